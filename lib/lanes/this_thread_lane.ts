/**
 * This thread as one of a search's lanes, beside the pool's workers: it takes the next queued shard
 * whenever it is free, as a worker does, and runs it under V8's watchdog (core/watchdog.ts), so a
 * pattern that backtracks without end is stopped here as the deadline stops it in a worker. A worker
 * costs the process 15–24 MiB (its heap and its glibc arena); this thread is already there
 * (docs/benchmarks.md, "Where a worker's memory is").
 * A stopped shard runs no `finally`: the descriptors it opened are tracked and closed here, and the
 * modules it was changing reset themselves (`onStopped`). Each shard runs whole in one turn of the
 * event loop (a few ms to a few hundred on a large tree's share): timers and I/O wait that long.
 * Main thread.
 */
import { closeLeft, endTracking, trackOpens } from '../core/descriptors.ts';
import { errValue, okValue } from '../core/result.ts';
import type { TaskOutcome } from '../core/task_outcome.ts';
import { runWatched } from '../core/watchdog.ts';
import type { ShardRunner } from '../search/parallel.ts';
import { inlineLearning, runShard, SHARD_DEADLINE, type ShardResult, type ShardTask } from '../search/shards.ts';

/**
 * How long past a shard's own deadline the watchdog waits: a shard checks the deadline between files
 * and stops itself there, whole; the watchdog is for one that cannot get back to the check.
 */
export const WATCHDOG_GRACE_MS = 1000;
/** The watchdog's limit for a shard with no deadline of its own. */
const NO_DEADLINE_MS = 600_000;

interface Queued {
  task: ShardTask;
  settle: (o: TaskOutcome<ShardResult>) => void;
}

/** `pool` (its own lanes) and this thread, taking queued shards in order as each lane frees up. */
export function withThisThread(pool: ShardRunner): ShardRunner {
  const queue: Queued[] = [];
  let poolBusy = 0;
  let here = false;
  const pump = () => {
    while (poolBusy < pool.parallelism && queue.length > 0) {
      const q = queue.shift() as Queued;
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
      if (q) q.settle(runHere(q.task));
      here = false;
      pump();
    });
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

/** One shard on this thread, under the watchdog; what it opened and left open is closed if stopped. */
export function runHere(task: ShardTask): TaskOutcome<ShardResult> {
  const t = inlineLearning(task, false);
  const ms = t.stopAt === undefined ? NO_DEADLINE_MS : t.stopAt - Date.now() + WATCHDOG_GRACE_MS;
  const left = trackOpens();
  let run: ReturnType<typeof runWatched<TaskOutcome<ShardResult>>>;
  try {
    run = runWatched(() => outcomeOf(t), ms);
  } finally {
    endTracking();
  }
  if (!run.stopped) return run.value;
  closeLeft(left);
  return errValue({ reason: 'timeout', message: SHARD_DEADLINE });
}

function outcomeOf(t: ShardTask): TaskOutcome<ShardResult> {
  try {
    return okValue(runShard(t));
  } catch (e) {
    const message = (e as Error).message;
    return errValue({ reason: message === SHARD_DEADLINE ? 'timeout' : 'failed', message });
  }
}
