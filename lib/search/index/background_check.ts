/**
 * What a warm runtime does when it starts using an index, in the background: opens the watches of its
 * directories (main thread, a slice at a time), then has the pool compare every indexed file's state
 * with the indexed one (states_shard.ts), then checks the ignore rules — so the runtime's first search
 * is answered at once instead of after all of it (on a 110k-file tree the watches took ~0.25 s of the
 * main thread, the states ~0.8 s), and the check queues behind that search instead of competing with
 * it for the cores. Until the check ends, searches compare each file's state before skipping it, as a
 * one-shot call's do (skip.ts `validate`). The order is what makes the end state fresh: a file's
 * directory is watched before its state is read, so a file changed after its state was read raised an
 * event, and one changed before is unlike its indexed state. For an index loaded from disk the states
 * of a slice's files are compared while the next slice's watches open (the watches in the table's
 * order of directories), not after all of them: on the 110k-file tree the two had taken ~0.25 and
 * ~0.8 s one after the other. Main thread.
 */

import type { GitUser } from '../ignore.ts';
import type { IndexRunner } from './build.ts';
import type { EventsDuringBuild } from './during_build.ts';
import type { StatesShard } from './states_shard.ts';
import type { LoadedIndex } from './store.ts';
import { rulesAtStart } from './sweep.ts';
import { type DirWatch, watchDirs } from './watch.ts';

/** Watches opened per slice of the main thread (~25 µs each). */
const WATCH_SLICE = 500;
/** Files compared per pool task (~6 µs each on the bench machine). */
const STATES_PER_TASK = 8192;

/** How far the check is: `done` of `of` directories watched, or of file numbers compared. */
export interface CheckProgress {
  phase: 'watch' | 'state';
  done: number;
  of: number;
}

export interface CheckTarget {
  root: string;
  /** Where the user's git config is: its excludes file is one of the rules outside the tree. */
  gitUser?: GitUser;
  idx: LoadedIndex;
  runner: IndexRunner;
  /** The directories to watch: every one the build entered or that holds an indexed file. */
  dirs: ReadonlySet<string>;
  /** The watches kept from the index this one replaces (a rebuild's), updated to `dirs`. */
  watching: DirWatch | undefined;
  /** What the watches saw while the build that made `idx` ran; none for an index loaded from disk. */
  seen: EventsDuringBuild | undefined;
  /** The watches' callback (watch.ts `watchDirs`). */
  event: (rel: string, named: boolean, lost?: boolean) => void;
  /** The watches as they open, the caller's to close; undefined when the system refuses them. */
  watched(w: DirWatch | undefined): void;
  /** An indexed file not as indexed (`file`: still a file). */
  unlike(rel: string, file: boolean): void;
  /** False once the check is no longer wanted (the index closed or replaced, its watches dropped). */
  live(): boolean;
  /** Awaited between slices, after the event loop's turn. */
  between?: (p: CheckProgress) => Promise<void> | void;
  /**
   * The first searches' own check of the tree (kept_check.ts), if one began: the background check
   * starts once it is done, so that the two do not share the cores while a first answer waits.
   */
  first?: () => Promise<unknown> | undefined;
}

/** What the ignore rules say once watching began (sweep.ts `rulesAtStart`). */
export type RulesAtStart = ReturnType<typeof rulesAtStart>;

/**
 * Runs the check; what the rules say at its end, or undefined when it did not finish: no longer
 * `live`, the system refused the watches, or a pool task failed.
 */
export async function checkInBackground(t: CheckTarget): Promise<RulesAtStart | undefined> {
  // The watches open on the main thread while the pool's turn comes (workers starting, in a fresh
  // runtime: ~0.3–0.7 s on the bench machine): neither waits for the other.
  if (!(await pause(t, { phase: 'watch', done: 0, of: t.dirs.size }))) return undefined;
  await t.first?.();
  if (!t.live()) return undefined;
  const turn = poolTurn(t);
  // An index loaded from disk (no watches before, nothing seen during a build) has its files'
  // states compared as their directories' watches open, in the table's order of directories.
  const piped = t.seen === undefined && t.watching === undefined ? pipedStates(t) : undefined;
  const w = await watchInSlices(t, piped);
  if (!(await turn) || !w) return undefined;
  if (piped) {
    if (!(await takeStates(t, piped.tasks, t.idx.rels.length))) return undefined;
    return rulesAtStart(t.root, t.idx, t.dirs, undefined, t.gitUser);
  }
  // Directories watched since before the build began saw every change after it read their files.
  const onlyIn = t.seen?.unwatchedDuring(w, t.dirs);
  if (!(await compareStates(t, onlyIn))) return undefined;
  return rulesAtStart(t.root, t.idx, t.dirs, onlyIn, t.gitUser);
}

type StatesOutcome = ReturnType<IndexRunner['states']>;

/** The order of watching that lets states be compared meanwhile, and the tasks queued so far. */
interface PipedStates {
  /** `t.dirs`, those that hold indexed files first, in table order. */
  order: string[];
  /** After the first `opened` of `order` are watched: queues the states of the files they hold. */
  opened(opened: number): void;
  tasks: { outcome: StatesOutcome; files: number }[];
}

function pipedStates(t: CheckTarget): PipedStates {
  const holding = t.idx.rels.dirs();
  const held = new Set(holding);
  const order = [...holding, ...[...t.dirs].filter((d) => !held.has(d))];
  const tasks: PipedStates['tasks'] = [];
  let queued = 0;
  const opened = (n: number) => {
    const to = Math.min(n, holding.length);
    if (to <= queued) return;
    const ids = t.idx.rels.filesIn(queued, to);
    queued = to;
    if (ids.length > 0) tasks.push({ outcome: t.runner.states({ ...statesTask(t, 0, 0), ids }), files: ids.length });
  };
  return { order, opened, tasks };
}

/** The piped tasks' answers, in order, each reporting the files unlike. False when the check ends. */
async function takeStates(t: CheckTarget, tasks: PipedStates['tasks'], n: number): Promise<boolean> {
  let done = 0;
  for (const task of tasks) {
    const r = await task.outcome;
    if (!r.ok || !t.live()) return false;
    for (const { rel, file } of r.value.unlike) t.unlike(rel, file);
    done += task.files;
    if (!(await pause(t, { phase: 'state', done, of: n }))) return false;
  }
  return true;
}

const statesTask = (
  t: Pick<CheckTarget, 'root' | 'idx'>,
  from: number,
  to: number,
  onlyIn?: string[],
): StatesShard => ({
  kind: 'index-states',
  root: t.root,
  table: t.idx.table,
  from,
  to,
  ...(onlyIn ? { onlyIn } : {}),
});

/**
 * A turn in the pool's queue, one task per worker that compares nothing: the searches queued before,
 * the one that loaded the index among them, are done or nearly by then. False when the check ends.
 */
async function poolTurn(t: CheckTarget): Promise<boolean> {
  const turns = Array.from({ length: t.runner.parallelism }, () => t.runner.states(statesTask(t, 0, 0)));
  return (await Promise.all(turns)).every((r) => r.ok) && t.live();
}

/**
 * Has the pool compare the states of the indexed files (those directly in `onlyIn`, when given), and
 * reports those unlike. All its tasks are queued at once, so the check ends soon after the first
 * answer even when searches follow back to back (one at a time, each waited behind a whole search's
 * shards: ~2.5 s a task under load); a search queued meanwhile waits for them (~0.3 s of two
 * workers on a 78k-file tree). False when the check ends.
 */
async function compareStates(t: CheckTarget, onlyIn: ReadonlySet<string> | undefined): Promise<boolean> {
  const n = onlyIn?.size === 0 ? 0 : t.idx.rels.length;
  const only = onlyIn && onlyIn.size < t.dirs.size ? [...onlyIn] : undefined;
  const tasks = queueStates(t, n, only);
  for (let i = 0; i < tasks.length; i++) {
    const r = await tasks[i];
    if (!r?.ok || !t.live()) return false;
    for (const { rel, file } of r.value.unlike) t.unlike(rel, file);
    if (!(await pause(t, { phase: 'state', done: Math.min(n, (i + 1) * STATES_PER_TASK), of: n }))) return false;
  }
  return true;
}

/** Queues the comparison of the states of files 0 … n - 1 (those directly in `onlyIn`, when given), a task per slice. */
export function queueStates(
  t: Pick<CheckTarget, 'root' | 'idx' | 'runner'>,
  n: number,
  onlyIn?: string[],
): StatesOutcome[] {
  const tasks: StatesOutcome[] = [];
  for (let from = 0; from < n; from += STATES_PER_TASK)
    tasks.push(t.runner.states(statesTask(t, from, from + STATES_PER_TASK, onlyIn)));
  return tasks;
}

/** Gives the event loop a turn (and the hook its hold); false when the check is no longer wanted. */
async function pause(t: CheckTarget, p: CheckProgress): Promise<boolean> {
  if (!t.live()) return false;
  await new Promise((r) => setImmediate(r));
  await t.between?.(p);
  return t.live();
}

/**
 * Watches `t.dirs`, a slice at a time: those a rebuild's watches already cover first (kept as they
 * are), then the rest. The watch is handed to the caller as soon as it exists.
 */
async function watchInSlices(t: CheckTarget, piped?: PipedStates): Promise<DirWatch | undefined> {
  let w = t.watching;
  const dirs = piped?.order ?? [...t.dirs];
  const kept = dirs.filter((d) => w?.watchedSince(d) !== undefined);
  const rest = dirs.filter((d) => w?.watchedSince(d) === undefined);
  for (let end = 0; end === 0 || end < rest.length; ) {
    end += WATCH_SLICE;
    const now = [...kept, ...rest.slice(0, end)];
    if (w && !w.update(now)) w = undefined;
    // A first watch, or one that the system refused more (then every watch was closed): opened anew.
    w ??= watchDirs(t.root, now, t.event);
    t.watched(w);
    if (!w) return undefined;
    const done = kept.length + Math.min(end, rest.length);
    piped?.opened(done);
    if (!(await pause(t, { phase: 'watch', done, of: t.dirs.size }))) return undefined;
  }
  return w;
}
