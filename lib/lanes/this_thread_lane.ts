/**
 * This thread as one of a search's lanes, beside the pool's workers: it takes the next queued shard
 * whenever it is free, as a worker does. A worker costs the process 15–24 MiB (its heap and its glibc
 * arena); this thread is already there (docs/benchmarks.md, "Where a worker's memory is").
 * Nothing else runs here while a shard does (not the call's other shards' answers, not a
 * cancellation, not another call), so each shard gets a slice: its own deadline, checked between
 * files, at which it stops whole and is handed to a worker, where the call's deadline and a
 * cancellation reach it. A shard stuck in one file past the slice (a pattern that backtracks without
 * end) is stopped by V8's watchdog (core/watchdog.ts): it runs no `finally` then, so the descriptors it
 * opened are tracked and closed here, and the modules it may have been changing reset themselves.
 * Main thread.
 */
import { closeLeft, endTracking, trackOpens } from '../core/descriptors.ts';
import { errValue, okValue } from '../core/result.ts';
import type { TaskOutcome } from '../core/task_outcome.ts';
import { runWatched } from '../core/watchdog.ts';
import type { ShardRunner } from '../search/parallel.ts';
import { heldBy, joinResults, piecesOf, restOf } from '../search/shard_pieces.ts';
import { inlineLearning, runShard, SHARD_DEADLINE, type ShardResult, type ShardTask } from '../search/shards.ts';

/** How long this thread runs a shard's pieces before it lets the event loop turn. */
export const SLICE_MS = 100;
/**
 * How long past its slice a shard may stay in one file before the watchdog stops it. Stopped there,
 * it is inside that file's search, whose descriptors were opened and tracked well before. Stopped
 * anywhere else (just after an `open` returned inside Node's own `openSync`, say), a descriptor could
 * be left that nothing tracked: the slice, checked between files, keeps the watchdog for the stuck.
 */
export const WATCHDOG_GRACE_MS = 250;

interface Queued {
  task: ShardTask;
  settle: (o: TaskOutcome<ShardResult>) => void;
}

/** A task this thread works through piece by piece (shard_pieces.ts), a slice at a time. */
interface Working {
  q: Queued;
  pieces: ShardTask[];
  next: number;
  done: ShardResult[];
}

/**
 * `pool` (its own lanes) and this thread, taking queued shards in order as each lane frees up. This
 * thread runs a shard in pieces, as many as fit a slice, then lets the event loop turn and goes on;
 * a piece that outruns a whole slice alone, or gets stuck in a file, is handed to the pool's lanes
 * with the rest of its shard, before any other task, and its answer joined to what this thread found.
 */
export function withThisThread(pool: ShardRunner, signal?: AbortSignal, sliceMs = SLICE_MS): ShardRunner {
  const queue: Queued[] = [];
  const handed: Queued[] = [];
  let poolBusy = 0;
  let here = false;
  let working: Working | undefined;
  const pump = () => {
    while (poolBusy < pool.parallelism && (handed.length > 0 || queue.length > 0)) {
      const q = (handed.shift() ?? queue.shift()) as Queued;
      poolBusy++;
      pool.run<ShardResult>(q.task).then((o) => {
        poolBusy--;
        q.settle(o);
        pump();
      });
    }
    if (here || (working === undefined && queue.length === 0)) return;
    here = true;
    // After this turn: the pool's lanes take their tasks first, and callers' code runs between slices.
    setImmediate(turn);
  };
  const turn = () => {
    const w = working ?? startWorking(queue.shift());
    working = w;
    try {
      if (w) working = advance(w, sliceMs, signal, (rest) => handed.push(rest));
    } catch (e) {
      // A bug here must not end the host's process from an immediate, nor leave the shard unsettled.
      working = undefined;
      w?.q.settle(errValue({ reason: 'failed', message: String((e as Error)?.message ?? e) }));
    } finally {
      here = false;
    }
    pump();
  };
  return {
    parallelism: pool.parallelism + 1,
    run<T extends ShardResult>(task: ShardTask): Promise<TaskOutcome<T>> {
      return new Promise((settle) => {
        queue.push({ task, settle: settle as (o: TaskOutcome<ShardResult>) => void });
        pump();
      });
    },
  };
}

const startWorking = (q: Queued | undefined): Working | undefined =>
  q && { q, pieces: piecesOf(q.task), next: 0, done: [] };

/**
 * Runs `w`'s pieces for one slice: undefined once its task is settled or handed over (`hand`), else
 * `w` to go on with at the next turn.
 */
function advance(
  w: Working,
  sliceMs: number,
  signal: AbortSignal | undefined,
  hand: (rest: Queued) => void,
): Working | undefined {
  const until = Date.now() + sliceMs;
  const limit = (w.q.task as { maxResults?: number }).maxResults ?? Number.POSITIVE_INFINITY;
  let ran = 0;
  while (w.next < w.pieces.length) {
    // A call cancelled or past its deadline runs no more here; the pool's tasks answer theirs.
    if (signal?.aborted) return settled(w, abortedOutcome(signal));
    const held = w.done.reduce((n, r) => n + heldBy(r), 0);
    if (held >= limit) return settled(w, okValue(stoppedJoin(w.done)));
    if (ran > 0 && Date.now() >= until) return w;
    const o = runHere(
      { ...(w.pieces[w.next] as ShardTask), maxResults: limit - held } as ShardTask,
      until - Date.now(),
    );
    if (o === 'slice' && ran > 0) return w; // this piece gets a whole slice of its own next turn
    if (o === 'slice' || o === 'stuck') return handOver(w, limit - held, hand);
    if (!o.ok) return settled(w, o);
    w.done.push(o.value);
    w.next++;
    ran++;
  }
  return settled(w, okValue(joinResults(w.done)));
}

function settled(w: Working, o: TaskOutcome<ShardResult>): undefined {
  w.q.settle(o);
  return undefined;
}

/** The pieces' results joined, as a shard that stopped at its limit before walking everything. */
const stoppedJoin = (done: readonly ShardResult[]) => ({ ...joinResults(done), stopped: true });

/** The rest of `w`'s shard to the pool; its answer joined to what this thread found. */
function handOver(w: Working, left: number, hand: (rest: Queued) => void): undefined {
  const rest = { ...restOf(w.q.task, w.pieces, w.next), maxResults: left } as ShardTask;
  const done = w.done;
  hand({ task: rest, settle: (o) => w.q.settle(o.ok ? okValue(joinResults([...done, o.value])) : o) });
  return undefined;
}

/**
 * One shard on this thread for `sliceMs` at most (less when its deadline comes first): its outcome;
 * 'slice' when it stopped itself at the slice, between files; 'stuck' when the watchdog stopped it in
 * a file past the grace (what it had open is closed). Either way it is to be run again from the start.
 */
export function runHere(task: ShardTask, sliceMs: number): TaskOutcome<ShardResult> | 'slice' | 'stuck' {
  const deadline = task.stopAt ?? Number.POSITIVE_INFINITY;
  const stopAt = Math.min(deadline, Date.now() + sliceMs);
  const t = { ...inlineLearning(task, false), stopAt };
  const left = trackOpens();
  let run: ReturnType<typeof runWatched<TaskOutcome<ShardResult>>>;
  try {
    run = runWatched(() => outcomeOf(t), stopAt - Date.now() + WATCHDOG_GRACE_MS);
  } finally {
    endTracking();
  }
  if (run.stopped) closeLeft(left);
  else if (run.value.ok || run.value.error.message !== SHARD_DEADLINE) return run.value;
  // Stopped at its slice, or by the watchdog: past the call's own deadline, that is the answer.
  if (Date.now() >= deadline) return errValue({ reason: 'timeout', message: SHARD_DEADLINE });
  return run.stopped ? 'stuck' : 'slice';
}

function outcomeOf(t: ShardTask): TaskOutcome<ShardResult> {
  try {
    return okValue(runShard(t));
  } catch (e) {
    const message = (e as Error).message;
    return errValue({ reason: message === SHARD_DEADLINE ? 'timeout' : 'failed', message });
  }
}

/** What a shard not run because its call's signal fired answers, as the pool's tasks do (pool.ts). */
function abortedOutcome(signal: AbortSignal): TaskOutcome<ShardResult> {
  const reason = signal.reason as Error | undefined;
  return errValue({
    reason: reason?.name === 'TimeoutError' ? 'timeout' : 'cancelled',
    message: String(reason?.message ?? 'aborted'),
  });
}
