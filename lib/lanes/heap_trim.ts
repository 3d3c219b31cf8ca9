/**
 * Gives an idle runtime its main-thread heap back: once nothing has run for a while (no call, no read
 * pool task, no index build or check a call started), one full garbage collection, then nothing more
 * until the runtime is used again. Left alone, V8 kept the heap a burst grew and the buffers only dead
 * objects held (an index build's, the searches'): a warm runtime's RSS did not move from 5 to 12 s
 * idle (bench/memory.bench.ts); the collection frees them and the allocator returns the pages.
 * Arming is a counter and one unref'd timer per idle period, never one per call, and nothing keeps
 * the process alive. Where V8's gc cannot be had, it does nothing. Main thread.
 */
import v8 from 'node:v8';
import vm from 'node:vm';

/**
 * How long a runtime must be idle before its heap is trimmed: as long as the read pool's idle workers
 * live (pool.ts IDLE_WORKER_MS), so the process gives back its workers' memory and its own together.
 * Measured against 1 s (bench/memory.bench.ts, 2 rounds alternated): 1 s gave 2–33 MiB back while the
 * workers still lived and the same once they ended, at the price of a collection in every pause of
 * more than a second (each model turn of an agent).
 */
export const HEAP_TRIM_IDLE_MS = 5000;

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
  /** A trim is waiting for the idle period to end (for tests: nothing else is pending). */
  readonly armed: boolean;
  /** Called after each trim with how long it held the main thread. */
  onTrim?: (ms: number) => void;
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

/**
 * A trimmer that collects once `idleMs` after the last activity ended. `collect` is the collection
 * (default: V8's full collection, found on first need).
 */
export function createHeapTrim(o: { idleMs: number; collect?: () => void }): HeapTrim {
  let running = 0;
  let used = false;
  let closed = false;
  let timer: NodeJS.Timeout | undefined;
  let collect = o.collect;
  let found = o.collect !== undefined;
  const disarm = () => {
    if (timer) clearTimeout(timer);
    timer = undefined;
  };
  const fire = () => {
    timer = undefined;
    if (running > 0 || !used || closed) return;
    used = false;
    if (!found) {
      collect = v8Collector();
      found = true;
    }
    if (!collect) return;
    const started = performance.now();
    collect();
    trim.lastMs = Math.round((performance.now() - started) * 10) / 10;
    trim.trims++;
    trim.onTrim?.(trim.lastMs);
  };
  const trim = {
    trims: 0,
    lastMs: undefined as number | undefined,
    onTrim: undefined as ((ms: number) => void) | undefined,
    get armed() {
      return timer !== undefined;
    },
    begin() {
      running++;
      used = true;
      disarm();
    },
    end() {
      running = Math.max(0, running - 1);
      if (running > 0 || closed) return;
      disarm();
      timer = setTimeout(fire, o.idleMs);
      timer.unref();
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
