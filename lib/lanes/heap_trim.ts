/**
 * Gives an idle runtime its main-thread heap back: once nothing has run for a while (no call, no read
 * pool task, no index build or check a call started), one full garbage collection, then nothing more
 * until the runtime is used again. Left alone, V8 kept the heap a burst grew and the buffers only dead
 * objects held (an index build's, the searches'): a warm runtime's RSS did not move from 5 to 12 s
 * idle (bench/memory.bench.ts); the collection frees them and the allocator returns the pages.
 * A mark comes first, early in the idle period: V8 shrinks its young generation (grown to 32 MiB by
 * any burst) at a full collection only when it saw little allocation in the 5 s before it, measured
 * from its previous collection; a burst's last collection leaves up to 16 MiB allocated since, so
 * the trim alone never shrank it. A full collection a second into the pause gives the trim that
 * quiet window (Node 20's V8 runs an "async" one at once too, so it costs the same). Arming is a
 * counter and one unref'd timer at a time per idle period, never one per call, and nothing keeps the
 * process alive. Where V8's gc cannot be had, it does nothing. A sweep is one collection at once, for
 * work known to leave much dead behind it, busy or not (an index build, see start_lanes.ts). With
 * `hold`, the young generation is kept from growing while the runtime works (core/heap_hold.ts).
 * Main thread.
 */
import v8 from 'node:v8';
import vm from 'node:vm';

/**
 * How long a runtime must be idle before its heap is trimmed: after the read pool's idle workers end
 * (pool.ts IDLE_WORKER_MS), so the process gives back its workers' memory and its own together, and
 * far enough after the mark for V8's window. Measured against 1 s (bench/memory.bench.ts, 2 rounds
 * alternated): 1 s gave 2–33 MiB back while the workers still lived and the same once they ended,
 * at the price of a collection in every pause of more than a second (each model turn of an agent).
 */
export const HEAP_TRIM_IDLE_MS = 6200;
/** When the mark runs in an idle period: after the quick pauses between one turn's calls. */
export const HEAP_MARK_IDLE_MS = 1000;
/**
 * The span over which V8 judges the allocation rate at a collection (its tracer's throughput window,
 * 5 s), with room to spare: a mark helps only a trim at least this much later.
 */
export const V8_QUIET_WINDOW_MS = 5200;

/** Work that keeps the heap from being trimmed while it runs (a call, a pool task). */
export interface Activity {
  begin(): void;
  end(): void;
}

export interface HeapTrim extends Activity {
  /** Runs `work` as activity: no trim while it runs. */
  during<T>(work: () => Promise<T>): Promise<T>;
  /** Trims so far. */
  readonly trims: number;
  /** How long the last trim held the main thread, in ms. */
  readonly lastMs: number | undefined;
  /** Marks so far (the collection early in an idle period that lets the trim shrink the young generation). */
  readonly marks: number;
  /** Sweeps so far (collections asked for at once, after work that left much garbage). */
  readonly sweeps: number;
  /** A full collection now, whether busy or idle (none once closed); the trims wait as before. */
  sweep(): void;
  /** A mark or trim is waiting for the idle period to end (for tests: nothing else is pending). */
  readonly armed: boolean;
  /** Called after each trim with how long it held the main thread. */
  onTrim?: (ms: number) => void;
  /** Called after each mark. */
  onMark?: () => void;
  /** No more trims; the pending one is dropped. */
  close(): void;
}

/**
 * V8's own collector, reached without starting node with --expose-gc: the flag is set just long
 * enough to make one context that has `gc`, then unset, so other contexts and later workers do not
 * see it. Plain `gc()` is a full, synchronous mark-compact in Node 20's V8; there, an options object
 * asking for a synchronous major collection runs a minor one, and the `last-resort` flavour is
 * ignored. Undefined when the flag is refused or the engine is not V8.
 */
function v8Collector(): (() => void) | undefined {
  const own = (globalThis as { gc?: unknown }).gc;
  if (typeof own === 'function') return () => own();
  try {
    v8.setFlagsFromString('--expose-gc');
    const gc = vm.runInNewContext('gc') as unknown;
    v8.setFlagsFromString('--no-expose-gc');
    return typeof gc === 'function' ? () => gc() : undefined;
  } catch {
    return undefined;
  }
}

/** The longest wait a timer takes (longer ones fire at once, with a warning). */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** What is wrong with a runtime's `heapTrimMs` (ms, 0 for the default, or false), if anything. */
export function heapTrimOptionError(v: unknown): string | undefined {
  if (v === undefined || v === false) return undefined;
  if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 && v <= MAX_TIMER_MS) return undefined;
  return `heapTrimMs must be false or a whole number of ms from 0 (the default) to ${MAX_TIMER_MS}, not ${JSON.stringify(v) ?? String(v)}`;
}

/** What a trimmer waits with: `set` returns a handle `clear` takes. */
export interface IdleTimers {
  set(then: () => void, ms: number): unknown;
  clear(handle: unknown): void;
}

/** Timers that never keep the process alive. */
const unrefTimers: IdleTimers = {
  set: (then, ms) => setTimeout(then, ms).unref(),
  clear: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

/**
 * A trimmer that collects once `idleMs` after the last activity ended, and, when `markMs` is given
 * and leaves V8 its quiet window (`quietMs`, default V8_QUIET_WINDOW_MS) before the trim, once
 * `markMs` into the idle period too. `collect` is the collection (default: V8's full collection,
 * found on first need); `timers` what waits (default: unref'd setTimeout), for tests to step through.
 */
export function createHeapTrim(o: {
  idleMs: number;
  markMs?: number;
  quietMs?: number;
  collect?: () => void;
  timers?: IdleTimers;
  /** Called at each activity's start and end (core/heap_hold.ts: holdHeap). */
  hold?: () => void;
}): HeapTrim {
  let running = 0;
  let used = false;
  let closed = false;
  let timer: unknown;
  const timers = o.timers ?? unrefTimers;
  let collect = o.collect;
  let found = o.collect !== undefined;
  const quietMs = o.quietMs ?? V8_QUIET_WINDOW_MS;
  const markMs = o.markMs !== undefined && o.idleMs - o.markMs >= quietMs ? o.markMs : undefined;
  const wait = (then: () => void, ms: number) => {
    timer = timers.set(then, ms);
  };
  const disarm = () => {
    if (timer !== undefined) timers.clear(timer);
    timer = undefined;
  };
  const collected = (): number | undefined => {
    if (!found) {
      collect = v8Collector();
      found = true;
    }
    if (!collect) return undefined;
    const started = performance.now();
    collect();
    return Math.round((performance.now() - started) * 10) / 10;
  };
  const fire = () => {
    timer = undefined;
    if (running > 0 || !used || closed) return;
    used = false;
    const ms = collected();
    if (ms === undefined) return;
    trim.lastMs = ms;
    trim.trims++;
    trim.onTrim?.(ms);
  };
  const mark = () => {
    timer = undefined;
    if (running > 0 || !used || closed) return;
    if (collected() === undefined) return;
    trim.marks++;
    // Armed before the hook, so a hook that closes or begins work finds the trim to drop.
    wait(fire, o.idleMs - (markMs ?? 0));
    trim.onMark?.();
  };
  const trim = {
    trims: 0,
    marks: 0,
    sweeps: 0,
    lastMs: undefined as number | undefined,
    onTrim: undefined as ((ms: number) => void) | undefined,
    onMark: undefined as (() => void) | undefined,
    get armed() {
      return timer !== undefined;
    },
    begin() {
      o.hold?.();
      running++;
      used = true;
      disarm();
    },
    end() {
      o.hold?.();
      running = Math.max(0, running - 1);
      if (running > 0 || closed) return;
      disarm();
      if (markMs === undefined) wait(fire, o.idleMs);
      else wait(mark, markMs);
    },
    sweep() {
      if (closed || collected() === undefined) return;
      trim.sweeps++;
    },
    async during<T>(work: () => Promise<T>): Promise<T> {
      trim.begin();
      try {
        return await work();
      } finally {
        trim.end();
      }
    },
    close() {
      closed = true;
      disarm();
    },
  };
  return trim;
}
