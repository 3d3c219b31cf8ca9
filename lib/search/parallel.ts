/**
 * Splits one search into shards and runs them: inline for small trees (no dispatch cost), otherwise
 * across the worker pool, several shards per worker so a big directory does not leave the others
 * idle. Results come back in task order; callers merge them by path. Main thread.
 */
import { errValue, okValue } from '../core/result.ts';
import type { TaskOutcome } from '../core/task_outcome.ts';
import { IgnoreRules } from './ignore.ts';
import {
  inlineLearning,
  runShard,
  SHARD_DEADLINE,
  type ShardResult,
  type ShardTask,
  type SkipCounts,
} from './shards.ts';
import { type Entry, planShards, type SkipReason, type WalkOptions } from './walk.ts';

/**
 * Trees up to this many files are searched inline: below it, dispatching to the pool costs more than
 * it saves. Measured on 2 cores with warm directory listings (ms per call, inline vs 2 workers):
 * glob 1,000 files 4.2 vs 7.5, 3,000 files 8.3 vs 16.4, 10,000 files 29.1 vs 19.2;
 * grep 1,000 files 9.0 vs 12.6, 3,000 files 28.4 vs 25.3, 10,000 files 89 vs 52.
 */
export const INLINE_MAX_FILES = { glob: 5000, grep: 2000 } as const;
/** Entries the main thread lists while planning before it hands the rest to the workers. */
const PLAN_BUDGET = 3000;
/** Loose files per task. */
const FILES_PER_TASK = 512;
/** Shards per worker: enough to balance uneven directories, few enough to keep dispatch cheap. */
const SHARDS_PER_WORKER = 4;

export interface ShardRunner {
  parallelism: number;
  run<T extends ShardResult>(task: ShardTask): Promise<TaskOutcome<T>>;
}

export const inlineRunner: ShardRunner = {
  parallelism: 1,
  async run<T extends ShardResult>(task: ShardTask): Promise<TaskOutcome<T>> {
    try {
      return okValue(runShard(task) as T);
    } catch (e) {
      const message = (e as Error).message;
      return errValue({ reason: message === SHARD_DEADLINE ? 'timeout' : 'failed', message });
    }
  },
};

type OmitEach<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
export type ShardTemplate = OmitEach<ShardTask, 'root' | 'walk' | 'dirs' | 'files'>;

export interface SearchRun<T> {
  results: T[];
  /** What planning skipped (the shards report the rest). */
  skipped: SkipCounts;
  inline: boolean;
  tasks: number;
}

export async function runSharded<T extends ShardResult>(
  root: string,
  start: string,
  walk: WalkOptions,
  template: ShardTemplate,
  runner: ShardRunner | undefined,
  /** Largest tree (in files) to search inline; 0 never does (a pattern that could run away). */
  inlineMaxFiles: number,
  /** Which skipped entries to count (glob counts only files its pattern matches). */
  counts: (rel: string, isDir: boolean) => boolean = () => true,
): Promise<TaskOutcome<SearchRun<T>>> {
  const make = (dirs: string[], files: Entry[]) => ({ ...template, root, walk, dirs, files }) as ShardTask;
  const key = JSON.stringify([root, start, walk.useIgnore, walk.hidden, walk.maxDepth]);
  const known = treeSizes.get(key);
  if (!runner || runner.parallelism <= 1 || (known !== undefined && known <= inlineMaxFiles)) {
    const use = runner && (known === undefined || known > inlineMaxFiles) ? runner : inlineRunner;
    const whole = make([start], []);
    const small = known !== undefined && known <= inlineMaxFiles;
    const r = await use.run<T>(use === inlineRunner ? inlineLearning(whole, small) : whole);
    if (!r.ok) return r;
    remember(key, [r.value]);
    return okValue({ results: [r.value], skipped: {}, inline: use === inlineRunner, tasks: 1 });
  }
  const skipped: SkipCounts = {};
  const note = (rel: string, isDir: boolean, reason: SkipReason) => {
    if (!counts(rel, isDir)) return;
    const c = skipped[reason] ?? { dirs: 0, files: 0 };
    if (isDir) c.dirs++;
    else c.files++;
    skipped[reason] = c;
  };
  const target = runner.parallelism * SHARDS_PER_WORKER;
  const plan = planShards(walk, start, target, PLAN_BUDGET, { skipped: note }, IgnoreRules.of({ ...walk, root }));
  const small = plan.dirs.length === 0 && plan.files.length <= inlineMaxFiles;
  const tasks: ShardTask[] = [];
  // Loose files and directories go to separate shards, so each shard's output is in path order.
  for (let i = 0; i < plan.files.length; i += FILES_PER_TASK)
    tasks.push(make([], plan.files.slice(i, i + FILES_PER_TASK)));
  const groups = Math.min(plan.dirs.length, target);
  for (let g = 0; g < groups; g++)
    tasks.push(
      make(
        plan.dirs.filter((_, i) => i % groups === g),
        [],
      ),
    );
  const use = small ? inlineRunner : runner;
  const outcomes = await Promise.all(tasks.map((t) => use.run<T>(small ? inlineLearning(t, true) : t)));
  const results: T[] = [];
  for (const o of outcomes) {
    if (!o.ok) return o;
    results.push(o.value);
  }
  remember(key, results);
  return okValue({ results, skipped, inline: use === inlineRunner, tasks: tasks.length });
}

/**
 * How many files each searched tree held last time, so a warm runtime sends a small tree straight
 * to the inline path without planning. A count from a search that stopped early is a lower bound,
 * kept only when it already says "large".
 */
const treeSizes = new Map<string, number>();
function remember(key: string, results: readonly ShardResult[]): void {
  let files = 0;
  let complete = true;
  for (const r of results) {
    files += r.visited;
    complete &&= !r.stopped;
  }
  if (complete || files > INLINE_MAX_FILES.glob) {
    if (treeSizes.size > 1000) treeSizes.clear();
    treeSizes.set(key, files);
  } else {
    treeSizes.delete(key);
  }
}
