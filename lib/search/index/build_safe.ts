/**
 * A build that answers instead of throwing: a warm runtime builds in the background, where a throw
 * would be a rejection nobody handles (the process ends), and a one-shot build is asked for an answer.
 * Main thread.
 */
import path from 'node:path';
import type { TaskOutcome } from '../../core/task_outcome.ts';
import { type BuildOptions, buildIndex } from './build.ts';
import type { LoadedIndex } from './store.ts';

/**
 * No index belongs in /proc or /dev: making a directory under /proc can hang (Node 20), and /dev is
 * a memory file system of devices. (/sys refuses the mkdir, which answers as any unwritable place.)
 */
const KERNEL_DIRS = /^\/(proc|dev)(\/|$)/;

export async function buildIndexSafely(o: BuildOptions): Promise<TaskOutcome<LoadedIndex>> {
  const failed = (message: string): TaskOutcome<LoadedIndex> => ({ ok: false, error: { reason: 'failed', message } });
  if (KERNEL_DIRS.test(path.resolve(o.file)))
    return failed(
      `could not write the index ${o.file}: it is under /proc or /dev; set indexCacheDir (or XDG_CACHE_HOME) to a writable directory`,
    );
  try {
    return await buildIndex(o);
  } catch (e) {
    return failed(`the index build of ${o.root} failed: ${(e as Error).message}`);
  }
}
