/**
 * Whether a walk kept beside the index (walk_record.ts) stands for the tree right now, checked as a
 * one-shot search checks a tree it has no watches on, so that a runtime's first search need not wait
 * for its watches: every indexed file's state compared in the pool (unlike ones are then searched; a
 * gone one, or one no longer a file, and the walk does not stand), and on the main thread meanwhile
 * every watched directory and ignore file unchanged since the build, and the rules outside the tree
 * as they were when the walk was kept. What it vouches for holds as of the check, as a one-shot
 * search's answer does; later searches wait for the background check, whose watches see what comes
 * after. Main thread.
 */
import type { GitUser } from '../ignore.ts';
import { queueStates } from './background_check.ts';
import type { IndexRunner } from './build.ts';
import type { LoadedIndex } from './store.ts';
import { rulesAtStart, rulesOutsideWatches } from './sweep.ts';

export interface KeptCheck {
  root: string;
  idx: LoadedIndex;
  runner: IndexRunner;
  /** Every directory the index watches. */
  dirs: ReadonlySet<string>;
  gitUser?: GitUser;
  /** The rules outside the tree when the walk was kept (sweep.ts `rulesOutsideWatches`). */
  rules: string;
}

/** The indexed files changed since the build (to be searched), or undefined when the walk does not stand. */
export async function keptWalkHolds(c: KeptCheck): Promise<{ changed: string[] } | undefined> {
  // Queued first, and a turn given for the pool to take them (its threads start on its first task):
  // it compares states while the main thread checks the directories.
  const tasks = queueStates(c, c.idx.rels.length);
  await new Promise((turn) => setImmediate(turn));
  const rules = rulesAtStart(c.root, c.idx, c.dirs, undefined, c.gitUser);
  const stands = !rules.unwatched && rulesOutsideWatches(rules.outside, rules.linked) === c.rules;
  const changed: string[] = [];
  let gone = false;
  for (const t of tasks) {
    const r = await t;
    if (!r.ok) return undefined;
    for (const u of r.value.unlike) {
      if (!u.file) gone = true;
      changed.push(u.rel);
    }
  }
  return stands && !gone ? { changed } : undefined;
}
