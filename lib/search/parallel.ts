/**
 * Splits one search into shards and runs them: inline for small trees (no dispatch cost), otherwise
 * across the worker pool, several shards per worker so a big directory does not leave the others
 * idle. Results come back in task order; callers merge them by path. Main thread.
 */
import { errValue, okValue } from '../core/result.ts';
import type { TaskOutcome } from '../core/task_outcome.ts';
import { comparePaths } from './compare_paths.ts';
import { IgnoreRules } from './ignore.ts';
import {
  inlineLearning,
  runShard,
  SHARD_DEADLINE,
  type ShardResult,
  type ShardTask,
  type SkipCounts,
} from './shards.ts';
import { type Entry, planShards, type ShardPlan, type SkipReason, type WalkOptions } from './walk.ts';

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
  /**
   * Tasks were left out, their results past a head limit the others met: the run saw part of the
   * tree, so the index learns nothing from it.
   */
  cut?: true;
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
  // A head limit is met in path order: tasks in path order, and none started past it. A walk the index
  // learns goes on past its results, so it needs every task.
  const enough = template.kind === 'grep' && template.learnUntil === undefined ? template.maxResults : Infinity;
  const tasks = Number.isFinite(enough) ? orderedTasks(plan, target, make) : spreadTasks(plan, target, make);
  const use = small ? inlineRunner : runner;
  const ran = await runInOrder<T>(
    tasks.map((t) => (small ? inlineLearning(t, true) : t)),
    use,
    enough,
  );
  const results: T[] = [];
  for (const o of ran.outcomes) {
    if (!o.ok) return o;
    results.push(o.value);
  }
  // Tasks left out walked nothing: the tree's size is not known from this run.
  if (!ran.cut) remember(key, results);
  return okValue({
    results,
    skipped,
    inline: use === inlineRunner,
    tasks: results.length,
    ...(ran.cut ? { cut: true } : {}),
  });
}

type MakeTask = (dirs: string[], files: Entry[]) => ShardTask;

/**
 * Loose files and directories in separate tasks (a shard walks its files, then its directories, so
 * each shard's output is in path order), the directories dealt round so that a large one does not
 * leave one worker all the rest.
 */
function spreadTasks(plan: ShardPlan, target: number, make: MakeTask): ShardTask[] {
  const tasks: ShardTask[] = [];
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
  return tasks;
}

/**
 * The plan's entries as tasks in path order: every path a task can meet sorts before every path of
 * the tasks after it (under comparePaths a directory's tree sorts between it and its next sibling).
 * Each task holds one kind, as in spreadTasks: a run of loose files, or of directories.
 */
function orderedTasks(plan: ShardPlan, target: number, make: MakeTask): ShardTask[] {
  const entries = [
    ...plan.files.map((file) => ({ rel: file.rel, file })),
    ...plan.dirs.map((rel) => ({ rel, file: undefined })),
  ].sort((a, b) => comparePaths(a.rel, b.rel));
  const perDirTask = Math.max(1, Math.ceil(plan.dirs.length / target));
  const tasks: ShardTask[] = [];
  let files: Entry[] = [];
  let dirs: string[] = [];
  const flush = () => {
    if (files.length || dirs.length) tasks.push(make(dirs, files));
    files = [];
    dirs = [];
  };
  for (const e of entries) {
    if (e.file) {
      if (dirs.length || files.length >= FILES_PER_TASK) flush();
      files.push(e.file);
    } else {
      if (files.length || dirs.length >= perDirTask) flush();
      dirs.push(e.rel);
    }
  }
  flush();
  return tasks;
}

/** What a shard holds toward a head limit: a grep's results, a glob's paths. */
const held = (r: ShardResult) => ('results' in r ? r.results : r.paths.length);

/**
 * Runs the tasks in order, as many at once as the runner has workers, and starts none once the tasks
 * before it that have ended hold `enough` results between them: those sort first, so whatever a
 * later task found would be cut from the answer. A head-limited search on the pool then reads about
 * what one walk in path order would, not each task's share up to the limit. The outcomes of the tasks
 * that ran, in order (after a failure no other task starts), up to those that held enough, and
 * whether any was left out.
 */
export async function runInOrder<T extends ShardResult>(
  tasks: readonly ShardTask[],
  use: ShardRunner,
  enough: number,
): Promise<{ outcomes: TaskOutcome<T>[]; cut: boolean }> {
  // No limit: every task queued at once, so a worker that ends one takes the next without waiting
  // for this thread (a whole-tree glob took 1.27× as long through the lanes below).
  if (!Number.isFinite(enough)) return { outcomes: await Promise.all(tasks.map((t) => use.run<T>(t))), cut: false };
  const outcomes: TaskOutcome<T>[] = [];
  let next = 0;
  let failed = false;
  let cut = false;
  const enoughBefore = (k: number) => {
    let n = 0;
    for (let i = 0; i < k; i++) {
      const o = outcomes[i];
      if (o?.ok) n += held(o.value);
    }
    return n >= enough;
  };
  const lane = async () => {
    while (next < tasks.length && !failed && !cut) {
      const k = next++;
      if (enoughBefore(k)) {
        cut = true; // and so for every later task
        return;
      }
      const o = await use.run<T>(tasks[k] as ShardTask);
      outcomes[k] = o;
      if (!o.ok) failed = true;
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(use.parallelism, tasks.length)) }, lane));
  // A task that failed (a runaway line, its deadline) after those before it held enough was started
  // beside them and is cut like the rest: its results would have been. The tasks that ran are the
  // first ones (each lane takes the next), so their outcomes have no gaps.
  const ran = outcomes.filter((o) => o !== undefined);
  const whole = ran.findIndex((_, k) => enoughBefore(k));
  return whole < 0 ? { outcomes: ran, cut } : { outcomes: ran.slice(0, whole), cut: true };
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
