/**
 * This thread as one of a search's lanes, beside the pool's workers: it takes the next queued shard
 * whenever it is free, as a worker does. A worker costs the process 15–24 MiB (its heap and its glibc
 * arena); this thread is already there (docs/benchmarks.md, "Where a worker's memory is").
 * Nothing else runs here while a shard does (not the call's other shards' answers, not a
 * cancellation, not another call), so it runs a shard in pieces (search/shard_pieces.ts) for a slice,
 * and lets the event loop turn between slices: the piece under way at the slice's end pauses before
 * its next file and resumes there. A piece stuck in one file (a pattern that backtracks without end) is
 * stopped by V8's watchdog, one per slice (core/watchdog.ts): it runs no `finally` then, so the
 * descriptors the slice opened are tracked and closed here, and the modules it may have been changing
 * reset themselves.
 * Main thread.
 */
import { closeLeft, endTracking, trackOpens } from '../core/descriptors.ts';
import { holdAgain, workersStarting } from '../core/heap_hold.ts';
import { errValue, okValue } from '../core/result.ts';
import type { TaskOutcome } from '../core/task_outcome.ts';
import { runWatched } from '../core/watchdog.ts';
import type { ShardRunner } from '../search/parallel.ts';
import { heldBy, joinResults, piecesOf, restOf } from '../search/shard_pieces.ts';
import {
  anyRaised,
  inlineLearning,
  runShard,
  SHARD_DEADLINE,
  type ShardResult,
  type ShardSession,
  type ShardTask,
} from '../search/shards.ts';

/** How long this thread runs a shard's pieces before it lets the event loop turn. */
export const SLICE_MS = 100;
/**
 * How long past its slice a piece may stay in one file (it pauses before the next) before the
 * watchdog stops it. Stopped there, it is inside that file's search, whose descriptors were opened
 * and tracked well before. Stopped anywhere else (just after an `open` returned inside Node's own
 * `openSync`, say), a descriptor could be left that nothing tracked: the slice, checked between files,
 * keeps the watchdog for the stuck.
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
  /**
   * The results of the pieces run so far, in order, each with how many results all of them up to it
   * hold: one push records a piece, so a watchdog stop leaves no piece half counted.
   */
  done: { result: ShardResult; heldSoFar: number }[];
  /** What the piece under way found before each of its pauses, in order (the last says where). */
  partial: ShardResult[];
  /** What its pieces set up once and share; dropped with `w` after a stop. */
  session: ShardSession;
}

/** What a slice of a task's pieces came to. */
type Step = { settle: TaskOutcome<ShardResult> } | 'more' | 'hand';

/**
 * `pool` (its own lanes) and this thread, taking queued shards in order as each lane frees up. This
 * thread runs a shard in pieces for a slice (less once a worker has answered), then lets the event
 * loop turn and goes on (a piece under way pauses and resumes); a piece stuck in a file is handed to
 * the pool's lanes with the rest of its shard, before any other task, and its answer joined to what
 * this thread found. A worker with nothing queued takes half of what is left here.
 */
export function withThisThread(
  pool: ShardRunner,
  /** What stops this thread's part: the call's signal, and the pool's close (either may fire). */
  stops: AbortSignal | readonly AbortSignal[] = [],
  sliceMs = SLICE_MS,
): ShardRunner {
  const signals = Array.isArray(stops) ? stops : [stops as AbortSignal];
  const stopped = () => signals.find((s) => s.aborted);
  const queue: Queued[] = [];
  const handed: Queued[] = [];
  let poolBusy = 0;
  let here = false;
  let working: Working | undefined;
  // Raised by a worker as it answers one of these shards: this thread's piece pauses then.
  const flags = answerFlags(pool.parallelism);
  const answered = flags.all;
  /** `freed`: a worker has just answered (a task given now is the call's last only at its tail). */
  const pump = (freed = false) => {
    for (;;) {
      // A worker with nothing queued takes the second half of what this thread is working through.
      const idle = poolBusy < pool.parallelism && handed.length === 0 && queue.length === 0;
      const split = idle && working ? splitOff(working) : undefined;
      if (split) handed.push(split);
      if (poolBusy >= pool.parallelism || (handed.length === 0 && queue.length === 0)) break;
      let q = (handed.shift() ?? queue.shift()) as Queued;
      // The call's last queued task goes to a freed worker in halves; the second waits for either lane.
      const two = freed && handed.length === 0 && queue.length === 0 && !split ? halved(q) : undefined;
      if (two) {
        q = two[0];
        queue.push(two[1]);
      }
      poolBusy++;
      const flag = flags.take();
      pool.run<ShardResult>({ ...q.task, answered: flag.raised }).then((o) => {
        flag.put();
        poolBusy--;
        q.settle(o);
        pump(true);
      });
    }
    if (here || (working === undefined && queue.length === 0)) return;
    here = true;
    takeTurn(turn);
  };
  const turn = () => {
    const w = working ?? startWorking(queue.shift());
    working = w;
    try {
      if (w) working = advance(w, { sliceMs, answered }, stopped, (rest) => handed.push(rest));
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

/**
 * The flags the pool's workers raise as they answer (`ShardTask.answered`), one per task in flight,
 * each a view on one shared buffer: this thread's piece pauses while any is up, and each is put down
 * as its own answer is taken. One flag for all let the answer taken first put down a raise of
 * another worker's not yet taken, whose next task then waited out the slice.
 */
function answerFlags(inFlight: number) {
  const all = new Int32Array(new SharedArrayBuffer(4 * Math.max(1, inFlight)));
  const free = Array.from({ length: all.length }, (_, i) => i);
  return {
    all,
    take() {
      const slot = free.pop() as number;
      return {
        raised: new Int32Array(all.buffer, 4 * slot, 1),
        put: () => {
          Atomics.store(all, slot, 0);
          free.push(slot);
        },
      };
    },
  };
}

/**
 * The turns of every search's lane on this thread (every call's, every runtime's), one slice for each
 * turn of the event loop, in the order asked: the pool's lanes take their tasks first, and callers'
 * code runs between slices. Each call setting up its own ran all theirs in one pass of the loop,
 * which waited for all their slices (a runaway beside five calls held it 528–845 ms).
 */
const turns: (() => void)[] = [];
let turnAhead = false;
function takeTurn(turn: () => void): void {
  turns.push(turn);
  if (turnAhead) return;
  turnAhead = true;
  setImmediate(nextTurn);
}
function nextTurn(): void {
  turnAhead = false;
  try {
    turns.shift()?.(); // it settles its own failures
  } finally {
    if (turns.length > 0 && !turnAhead) {
      turnAhead = true;
      setImmediate(nextTurn);
    }
  }
}

const startWorking = (q: Queued | undefined): Working | undefined =>
  q && { q, pieces: piecesOf(q.task), done: [], partial: [], session: {} };

/**
 * Runs `w`'s pieces for one slice, under one watchdog run (setting one up costs ~0.16 ms, as much as
 * a small piece): undefined once its task is settled or handed over (`hand`), else `w` to go on with
 * at the next turn.
 */
function advance(
  w: Working,
  { sliceMs, answered }: { sliceMs: number; answered: Int32Array },
  stopped: () => AbortSignal | undefined,
  hand: (rest: Queued) => void,
): Working | undefined {
  const deadline = w.q.task.stopAt ?? Number.POSITIVE_INFINITY;
  const until = Date.now() + sliceMs;
  const left = trackOpens();
  let run: ReturnType<typeof runWatched<Step>>;
  try {
    // A piece pauses at `until` before its next file: only one file (or a long stretch without any)
    // runs past it.
    const watch = until - Date.now() + WATCHDOG_GRACE_MS;
    run = runWatched(() => piecesUntil(w, { until, deadline, answered }, stopped), watch);
  } finally {
    endTracking();
  }
  if (run.stopped) closeLeft(left);
  // Stopped in a piece by the watchdog: past the call's own deadline, that is the answer.
  const step: Step = !run.stopped ? run.value : Date.now() >= deadline ? { settle: timedOut() } : 'hand';
  if (step === 'more') return w;
  if (step === 'hand') return handOver(w, hand);
  w.q.settle(step.settle);
  return undefined;
}

/**
 * `w`'s next pieces, run until `until` or until a worker has answered (`answered`): a piece under way
 * then pauses before its next file and goes on from there in the next slice, what it found kept
 * (`ShardTask.yieldAt`). 'more' when pieces are left for the next slice.
 */
function piecesUntil(
  w: Working,
  at: { until: number; deadline: number; answered: Int32Array },
  stopped: () => AbortSignal | undefined,
): Step {
  const limit = (w.q.task as { maxResults?: number }).maxResults ?? Number.POSITIVE_INFINITY;
  let ran = 0;
  while (w.done.length < w.pieces.length) {
    // A call cancelled or past its deadline runs no more here; the pool's tasks answer theirs.
    const stop = stopped();
    if (stop) return { settle: abortedOutcome(stop) };
    const held = heldHere(w);
    if (held >= limit) return { settle: okValue(stoppedJoin([...w.done.map((d) => d.result), ...w.partial])) };
    if (ran > 0 && (Date.now() >= at.until || anyRaised(at.answered))) return 'more';
    if (workersStarting()) holdAgain(); // ~70 µs, only while a worker is being set up
    const piece = w.pieces[w.done.length] as ShardTask;
    const from = w.partial.at(-1)?.pausedAt;
    if (from === undefined) w.session.skipsSeen = new Set();
    const t = {
      ...inlineLearning(piece, false),
      maxResults: limit - held,
      // An endless deadline is none: a shard reads the clock at each file for one.
      stopAt: Number.isFinite(at.deadline) ? at.deadline : undefined,
      yieldAt: at.until,
      yieldOn: at.answered,
      ...(from === undefined ? {} : { walk: { ...piece.walk, from } }),
    } as ShardTask;
    const o = outcomeOf(t, w.session);
    if (!o.ok) return { settle: o };
    ran++;
    // One assignment or push each: a watchdog stop leaves no result counted twice (it drops `partial`).
    if (o.value.pausedAt !== undefined) w.partial = [...w.partial, o.value];
    else {
      const whole = w.partial.length > 0 ? joinResults([...w.partial, o.value]) : o.value;
      w.done.push({ result: whole, heldSoFar: (w.done.at(-1)?.heldSoFar ?? 0) + heldBy(whole) });
      w.partial = [];
    }
  }
  return { settle: okValue(joinResults(w.done.map((d) => d.result))) };
}

/** What `w`'s finished pieces and the paused one hold, as a head limit counts them. */
const heldHere = (w: Working) => w.partial.reduce((n, r) => n + heldBy(r), w.done.at(-1)?.heldSoFar ?? 0);

const timedOut = (): TaskOutcome<ShardResult> => errValue({ reason: 'timeout', message: SHARD_DEADLINE });

/** The pieces' results joined, as a shard that stopped at its limit before walking everything. */
const stoppedJoin = (results: ShardResult[]) => ({ ...joinResults(results), stopped: true });

/**
 * The second half of `w`'s pieces not yet run, as a task of its own for an idle worker; `w` keeps
 * the first half, and its task settles once both halves have answered, joined in order (at the
 * first failure, with it). Only for a shard without a head limit (one with a limit is met in order,
 * and its halves could not each know how many results are left): the last shard of a call otherwise
 * left the worker idle while this thread, a slice at a time, worked through it alone.
 */
function splitOff(w: Working): Queued | undefined {
  const left = w.pieces.length - w.done.length;
  if (left < 2 || hasLimit(w.q.task)) return undefined;
  const mid = w.done.length + Math.ceil(left / 2);
  const tail = restOf(w.q.task, w.pieces, mid);
  w.pieces = w.pieces.slice(0, mid);
  const [first, second] = halves(w.q.settle);
  w.q = { task: w.q.task, settle: first };
  return { task: tail, settle: second };
}

/**
 * The last queued task as two, for a worker to take the first and whichever lane frees first the
 * second (a shard without a head limit, of two pieces or more): given whole to a worker, this thread
 * sat idle while the worker worked through the call's last shard alone (1.05 s of six whole-tree
 * counts with a glob).
 */
function halved(q: Queued): [Queued, Queued] | undefined {
  if (hasLimit(q.task)) return undefined;
  const pieces = piecesOf(q.task);
  if (pieces.length < 2) return undefined;
  const mid = Math.ceil(pieces.length / 2);
  const [first, second] = halves(q.settle);
  return [
    { task: restOf(q.task, pieces.slice(0, mid), 0), settle: first },
    { task: restOf(q.task, pieces, mid), settle: second },
  ];
}

const hasLimit = (t: ShardTask) =>
  Number.isFinite((t as { maxResults?: number }).maxResults ?? Number.POSITIVE_INFINITY);

/** Settlers of a task's two halves: `whole` gets their results joined in order, or the first failure. */
function halves(whole: (o: TaskOutcome<ShardResult>) => void): [Queued['settle'], Queued['settle']] {
  let ended = false;
  const got: (ShardResult | undefined)[] = [undefined, undefined];
  const half = (i: 0 | 1) => (o: TaskOutcome<ShardResult>) => {
    if (ended) return;
    if (!o.ok) {
      ended = true;
      whole(o);
      return;
    }
    got[i] = o.value;
    const [first, second] = got;
    if (first === undefined || second === undefined) return;
    ended = true;
    whole(okValue(joinResults([first, second])));
  };
  return [half(0), half(1)];
}

/** The rest of `w`'s shard to the pool; its answer joined to what this thread found. */
function handOver(w: Working, hand: (rest: Queued) => void): undefined {
  const held = w.done.at(-1)?.heldSoFar ?? 0;
  const limit = (w.q.task as { maxResults?: number }).maxResults ?? Number.POSITIVE_INFINITY;
  const rest = { ...restOf(w.q.task, w.pieces, w.done.length), maxResults: limit - held } as ShardTask;
  const done = w.done.map((d) => d.result);
  hand({ task: rest, settle: (o) => w.q.settle(o.ok ? okValue(joinResults([...done, o.value])) : o) });
  return undefined;
}

function outcomeOf(t: ShardTask, session: ShardSession = {}): TaskOutcome<ShardResult> {
  try {
    return okValue(runShard(t, session));
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
