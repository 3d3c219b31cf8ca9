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
import { inlineLearning, runShard, SHARD_DEADLINE, type ShardResult, type ShardTask } from '../search/shards.ts';

/** How long one shard may hold this thread at first before it stops and is queued again. */
export const SLICE_MS = 500;
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
  /** This thread's slice for it: doubled each time it ran out. */
  sliceMs: number;
}

/**
 * `pool` (its own lanes) and this thread, taking queued shards in order as each lane frees up. A shard
 * that used up its slice here goes back to the front of the queue, with twice the slice for when this
 * thread takes it again (so one too long for any slice here is redone at most twice over); one stuck
 * in a file goes to the pool's lanes before any other, since only there can it be stopped.
 */
export function withThisThread(pool: ShardRunner, signal?: AbortSignal, sliceMs = SLICE_MS): ShardRunner {
  const queue: Queued[] = [];
  const stuck: Queued[] = [];
  let poolBusy = 0;
  let here = false;
  const pump = () => {
    while (poolBusy < pool.parallelism && (stuck.length > 0 || queue.length > 0)) {
      const q = (stuck.shift() ?? queue.shift()) as Queued;
      poolBusy++;
      pool.run<ShardResult>(q.task).then((o) => {
        poolBusy--;
        q.settle(o);
        pump();
      });
    }
    if (here || queue.length === 0) return;
    here = true;
    // After this turn: the pool's lanes take their tasks first, and callers' code runs between shards.
    setImmediate(() => {
      const q = queue.shift();
      try {
        if (q) runQueued(q);
      } catch (e) {
        // A bug here must not end the host's process from an immediate, nor leave the shard unsettled.
        q?.settle(errValue({ reason: 'failed', message: String((e as Error)?.message ?? e) }));
      } finally {
        here = false;
      }
      pump();
    });
  };
  const runQueued = (q: Queued) => {
    // A call cancelled or past its deadline runs no more shards here; the pool's answer theirs.
    const o = signal?.aborted ? abortedOutcome(signal) : runHere(q.task, q.sliceMs);
    if (o === 'slice') queue.unshift({ ...q, sliceMs: q.sliceMs * 2 });
    else if (o === 'stuck') stuck.push(q);
    else q.settle(o);
  };
  return {
    parallelism: pool.parallelism + 1,
    run<T extends ShardResult>(task: ShardTask): Promise<TaskOutcome<T>> {
      return new Promise((settle) => {
        queue.push({ task, settle: settle as (o: TaskOutcome<ShardResult>) => void, sliceMs });
        pump();
      });
    },
  };
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
