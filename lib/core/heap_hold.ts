/**
 * Keeps V8's heaps lean while a runtime is open, through V8's flags, which can be set at run time
 * and are the process's.
 *
 * The young generations stay at the size they start with (1 MiB a semi-space on the main thread)
 * instead of doubling whenever more survived a scavenge than they hold. Left alone, loading the
 * bundle's code and any burst of calls grew the main thread's to 8–16 MiB a semi-space, kept while the
 * runtime is busy and until the idle trim (bench/memory.bench.ts --heaps: 16–32 MiB of RSS). V8 puts
 * a growth factor below 2 back to 2 whenever it sets up an isolate (each worker thread the read pool
 * starts), so a runtime sets it again at each activity's start and end and as each of its workers
 * starts. That set-up runs on the worker's thread, at a moment the main thread cannot see: a scavenge
 * on the main thread in the milliseconds between it and the hold again can still double the young
 * generation once (seen in 1 of 20 runs of test/pool/heap_hold.slow.test.ts), until the idle trim.
 *
 * The old generations are collected once they have grown by OLD_GROWTH_PERCENT since the last full
 * collection, instead of by V8's own factor, which on a machine with gigabytes to spare is up to 4×
 * on the main thread. With the young generation held, a call's short-lived objects are promoted
 * sooner, and the main thread's old space of a runtime serving from its index grew from 15 to 37 MiB
 * over sixteen calls, most of it dead (bench/memory.bench.ts).
 *
 * While it is held, the pool's workers are set up to optimise their hot code on their own thread
 * instead of handing it to V8's compiler threads (`compileOnOwnThread`).
 *
 * Every isolate in the process (a host's too) is held so while a runtime that holds it is open (the
 * pool's workers have their young generation capped at 4 MiB anyway). A runtime with `heapTrimMs:
 * false`, without a pool, or on a worker thread does not hold it (runtime.ts says why).
 */
import v8 from 'node:v8';
import { isMainThread } from 'node:worker_threads';

/**
 * How much an old generation may grow past what its last full collection left before the next (V8
 * grows it by a few MiB at least, whatever this says). Against V8's own factor, a runtime serving
 * from its index on a 104k-file tree (two workers, sixteen agent calls): the main thread's heap 31
 * against 52 MiB at the end, RSS 168 against 190; warm speed, 8 calls alternated in separate
 * processes (3 × 3, medians), 1.003 of before without the index and 0.975 with it.
 */
export const OLD_GROWTH_PERCENT = 30;

/**
 * A count kept on the process under `name`, not in this module: the single-file bundle carries this
 * module twice (in its start, which loads code, and in the code it loads, which makes runtimes).
 */
function processCount(name: string) {
  const key = Symbol.for(name);
  const store = globalThis as { [key: symbol]: number | undefined };
  return {
    get: () => store[key] ?? 0,
    /** Adds one; returns the count before. */
    up: () => {
      const n = store[key] ?? 0;
      store[key] = n + 1;
      return n;
    },
    /** Takes one away (never below none); returns the count after. */
    down: () => {
      const n = Math.max(0, (store[key] ?? 0) - 1);
      store[key] = n;
      return n;
    },
  };
}

/** How many open runtimes hold the heap. */
const holders = processCount('mewcode.heapHolders');

const setFlag = (flag: string): void => {
  try {
    v8.setFlagsFromString(flag);
  } catch {
    // not V8, or the flag refused: the heap grows as it would
  }
};

/**
 * A start argument as V8 reads its name: dashes and underscores alike (here dashes), one leading dash
 * as two; a value after `=` as given.
 */
function v8Spelling(arg: string): string {
  const eq = arg.indexOf('=');
  const name = (eq === -1 ? arg : arg.slice(0, eq)).replaceAll('_', '-').replace(/^-(?=[^-])/, '--');
  return eq === -1 ? name : name + arg.slice(eq);
}

/**
 * The value the process was started with for V8 flag `--name` (node's own flags or NODE_OPTIONS, as
 * `--name=V` in any spelling `v8Spelling` takes: V8 takes no value as the next argument, and node
 * does not start with one), the last one given; undefined when none was.
 */
export function startValue(name: string, argv = startArgs()): string | undefined {
  const flag = `${v8Spelling(`--${name}`)}=`;
  let value: string | undefined;
  for (const raw of argv) {
    const arg = v8Spelling(raw);
    if (arg.startsWith(flag)) value = arg.slice(flag.length);
  }
  return value;
}

/**
 * Whether the process was started with boolean V8 flag `--name` on (true), off (`--no-name`, also
 * `--noname`: false) or neither (undefined), the last one given, in any spelling `v8Spelling` takes.
 */
export function startSwitch(name: string, argv = startArgs()): boolean | undefined {
  const flag = v8Spelling(`--${name}`).slice(2);
  let value: boolean | undefined;
  for (const raw of argv) {
    const arg = v8Spelling(raw);
    if (arg === `--${flag}`) value = true;
    else if (arg === `--no-${flag}` || arg === `--no${flag}`) value = false;
  }
  return value;
}

// NODE_OPTIONS first: a flag on the command line wins over the same flag there.
const startArgs = () => [...(process.env.NODE_OPTIONS ?? '').split(/\s+/).filter(Boolean), ...process.execArgv];

// What the process started with, read once: the hold runs at every call's start and end.
let started: { growingPercent?: string; growthFactor?: string; recompilation?: boolean } | undefined;
const startedWith = () => {
  started ??= {
    growingPercent: startValue('heap-growing-percent'),
    growthFactor: startValue('semi-space-growth-factor'),
    recompilation: startSwitch('concurrent-recompilation'),
  };
  return started;
};

/**
 * Young generations kept at their size; old ones collected after OLD_GROWTH_PERCENT of growth, unless
 * the process was started with a growing percent of its own (the host's choice stands).
 */
const hold = () => {
  setFlag('--semi-space-growth-factor=1');
  if (startedWith().growingPercent === undefined) setFlag(`--heap-growing-percent=${OLD_GROWTH_PERCENT}`);
};

/** The values the process started with back (V8's own by default), once no runtime holds them. */
const release = () => {
  if (holders.get() > 0) return;
  const { growthFactor, growingPercent } = startedWith();
  setFlag(`--semi-space-growth-factor=${growthFactor ?? 2}`);
  setFlag(`--heap-growing-percent=${growingPercent ?? 0}`);
};

/**
 * Holds the heaps lean until the returned function is called (a runtime's close); calling this again
 * while held sets the flags again (after an isolate set-up put one back).
 */
export function holdHeap(): () => void {
  // The flags are the process's but a thread's count is its own: a runtime on a worker thread (which
  // could end without closing it) neither holds nor gives back what the main thread's hold.
  if (!isMainThread) return () => undefined;
  holders.up();
  hold();
  let released = false;
  return () => {
    if (released) return;
    released = true;
    holders.down();
    release();
  };
}

/**
 * Sets the flags again for the runtimes that hold them (after an isolate set-up put one back: a pool
 * worker's, or a host's own worker thread, which leaves it unheld until the runtime's next activity).
 */
export function holdAgain(): void {
  if (holders.get() > 0 && isMainThread) hold();
}

/**
 * Runs `work` (compiling a bundle's island: code whose objects all survive) with the heap held until
 * the next turn of the event loop: the call that asked for the island goes on, in the same turn, to
 * initialise its modules (which grew the young generation from 1 to 8 MiB a semi-space) and often to
 * create a runtime, which then holds it. On a worker thread (an island it loads) it only runs `work`.
 */
export function withHeapHeld<T>(work: () => T): T {
  if (holders.get() > 0 || !isMainThread) return work();
  hold();
  setImmediate(release).unref();
  return work();
}

/** How many worker set-ups are under way with background compilation off. */
const ownThread = processCount('mewcode.ownThreadCompiles');

/**
 * Whether a pool's workers are being set up now (each isolate set-up puts V8's young-generation
 * growth factor back to 2 until the hold is set again, which the main thread does once the worker is
 * online): work that runs long on the main thread meanwhile (this thread's search lane) sets the hold
 * again as it goes, or a scavenge there doubles its young generation for good (seen: 2 → 8 MiB).
 */
export const workersStarting = (): boolean => ownThread.get() > 0;

/**
 * Has the isolates set up from now on optimise their hot code on their own thread instead of on V8's
 * compiler threads (`--no-concurrent-recompilation`), until the returned function is called: a read
 * pool calls it as it starts workers, and ends it once they are online (their isolates set up).
 * V8 reads the flag only as it sets an isolate up, and after that checks for the compiler threads it
 * gave the isolate, never the flag (V8 11's sources; a debug build's checks would object), so an
 * isolate keeps the mode it was set up with: the main thread's goes on compiling in the background,
 * and so does a host's worker set up outside such a window. Why: the compiler threads allocate each
 * compilation's memory from glibc arenas of their own, which keep it once freed, and every isolate
 * shares them; a worker's own arena serves its next searches from it (docs/benchmarks.md, "Workers
 * compile on their own thread": a runtime serving from its index 2–7 MiB less, idle ~10, at the same speed).
 * Undefined when no runtime holds the heap, on a worker thread, or when the process was started with
 * `--[no-]concurrent-recompilation` (the host's choice stands).
 */
export function compileOnOwnThread(): (() => void) | undefined {
  if (!isMainThread || holders.get() === 0 || startedWith().recompilation !== undefined) return undefined;
  if (ownThread.up() === 0) setFlag('--no-concurrent-recompilation');
  let ended = false;
  return () => {
    if (ended) return;
    ended = true;
    if (ownThread.down() === 0) setFlag('--concurrent-recompilation');
  };
}
