/**
 * A grep that needs no walk (see `PrefilterAnswer.direct`): only the candidate files, split into
 * file-list shards as the planner splits loose files, each reached from the root as a walk's shard
 * reaches loose files (`visitFiles`: through checked directories, or opened and checked itself). What the walk
 * would have skipped comes from the summary. Main thread.
 */
import { okValue } from '../../core/result.ts';
import type { TaskOutcome } from '../../core/task_outcome.ts';
import { inlineRunner, runInOrder, type SearchRun, type ShardRunner, type ShardTemplate } from '../parallel.ts';
import type { GrepShard, GrepShardResult, SkipCounts } from '../shards.ts';
import type { Entry, WalkOptions } from '../walk.ts';

/** Fewest files per task: below this, dispatch costs more than the reads. */
const FILES_PER_TASK = 256;
/** Tasks per worker: enough to even out uneven files. */
const TASKS_PER_WORKER = 4;

export async function runDirect(
  root: string,
  walk: WalkOptions,
  template: ShardTemplate,
  direct: { files: Entry[]; skipped: SkipCounts },
  runner: ShardRunner | undefined,
  /** Largest number of files to search inline; 0 never does. */
  inlineMaxFiles: number,
): Promise<TaskOutcome<SearchRun<GrepShardResult>>> {
  const { files } = direct;
  const inline = !runner || (files.length <= inlineMaxFiles && files.length <= FILES_PER_TASK);
  const use = inline ? inlineRunner : runner;
  const per = Math.max(FILES_PER_TASK, Math.ceil(files.length / (use.parallelism * TASKS_PER_WORKER)));
  const tasks: GrepShard[] = [];
  for (let i = 0; i < files.length || i === 0; i += per)
    tasks.push({ ...(template as Omit<GrepShard, 'root'>), root, walk, dirs: [], files: files.slice(i, i + per) });
  // A head limit is met in path order (the candidates are in it): no task started past it.
  const ran = await runInOrder<GrepShardResult>(tasks, use, (template as GrepShard).maxResults);
  const results: GrepShardResult[] = [];
  for (const o of ran.outcomes) {
    if (!o.ok) return o;
    results.push(o.value);
  }
  return okValue({
    results,
    skipped: direct.skipped,
    inline: use === inlineRunner,
    tasks: results.length,
    ...(ran.cut ? { cut: true as const } : {}),
  });
}
