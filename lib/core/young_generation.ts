/**
 * Keeps V8's young generations at the size they start with (1 MiB a semi-space on the main thread)
 * instead of doubling them whenever more survived a scavenge than they hold. Left alone, loading the
 * bundle's code and any burst of calls grew the main thread's to 8–16 MiB a semi-space, kept while the
 * runtime is busy and until the idle trim (bench/memory.bench.ts --heaps: 16–32 MiB of RSS); only a
 * flag at node's start could cap it. The growth factor can be set at run time, but V8 puts a value
 * below 2 back to 2 whenever it sets up an isolate (each worker thread the read pool starts), so a
 * runtime sets it again at each activity's start and end and as each of its workers starts. The flag
 * is the process's: every isolate in it stops growing its young generation while a runtime that
 * holds it is open (the pool's workers have theirs capped at 4 MiB anyway). A runtime with
 * `heapTrimMs: false`, without a pool, or on a worker thread does not hold it (runtime.ts says why).
 */
import v8 from 'node:v8';
import { isMainThread } from 'node:worker_threads';

// How many open runtimes hold it, kept on the process: the single-file bundle carries this module
// twice (in its start, which loads code, and in the code it loads, which makes runtimes).
const HOLDERS = Symbol.for('mewcode.youngGenerationHolders');
const state = globalThis as { [HOLDERS]?: number };
const holders = () => state[HOLDERS] ?? 0;

const growthFactor = (n: number): void => {
  try {
    v8.setFlagsFromString(`--semi-space-growth-factor=${n}`);
  } catch {
    // not V8, or the flag refused: the young generation grows as it would
  }
};

/** V8's own factor back, once no runtime holds it (a later start puts it back too). */
const release = () => {
  if (holders() === 0) growthFactor(2);
};

/**
 * Stops the young generations from growing until the returned function is called (a runtime's
 * close); calling this again while held sets the flag again (after an isolate set-up put it back).
 */
export function holdYoungGeneration(): () => void {
  // The flag is the process's but a thread's count is its own: a runtime on a worker thread (which
  // could end without closing it) neither holds nor gives back what the main thread's hold.
  if (!isMainThread) return () => undefined;
  state[HOLDERS] = holders() + 1;
  growthFactor(1);
  let released = false;
  return () => {
    if (released) return;
    released = true;
    state[HOLDERS] = Math.max(0, holders() - 1);
    release();
  };
}

/**
 * Sets the flag again for the runtimes that hold it (after an isolate set-up put it back: a pool
 * worker's, or a host's own worker thread, which leaves it unheld until the runtime's next activity).
 */
export function holdAgain(): void {
  if (holders() > 0 && isMainThread) growthFactor(1);
}

/**
 * Runs `work` (compiling a bundle's island: code whose objects all survive) with the young generation
 * held until the next turn of the event loop: the call that asked for the island goes on, in the same
 * turn, to initialise its modules (which grew it from 1 to 8 MiB a semi-space) and often to create a
 * runtime, which then holds it. On a worker thread (an island it loads) it only runs `work`.
 */
export function withYoungHeld<T>(work: () => T): T {
  if (holders() > 0 || !isMainThread) return work();
  growthFactor(1);
  setImmediate(release).unref();
  return work();
}
