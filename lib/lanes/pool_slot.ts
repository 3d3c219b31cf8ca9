/**
 * Which Piscina the read pool hands its tasks to, and when one ends. A recycle (after work that leaves
 * each worker fat for good: an index build) ends the current one once it runs no task, counted as each
 * task is handed it; the next one is made only once that one is gone, so its threads take over the
 * ended ones' allocator arenas (glibc hands a new thread an arena whose thread has ended) instead of
 * new ones. It also starts a worker for tasks left queued with none to run them, and opens the
 * compile gate while Piscina starts workers (`spawnGated`). Main thread.
 */
import type { Piscina } from 'piscina';
import type { PoolTask } from './pool_protocol.ts';

/**
 * A task a worker refuses at once (no tool has an empty name), given only so that Piscina starts a
 * worker for the tasks queued behind one that was aborted (see `refill`).
 */
const REFILL: PoolTask = { kind: 'tool', name: '', args: {}, root: '/', paths: [] };

/** Opens a window in which isolates set up compile on their own thread; undefined when it does not apply. */
export type CompileGate = () => (() => void) | undefined;

/**
 * Calls `start` (handing `p` a task, which may make it set up workers) with `gate` open for the
 * workers it sets up, until each is online (its isolate set up, when V8 read the flag) or has exited.
 * Piscina constructs a new worker in the same turn as the task that needs it.
 */
export function spawnGated<T>(p: Piscina, size: number, gate: CompileGate | undefined, start: () => T): T {
  const close = gate && p.threads.length < size ? gate() : undefined;
  if (!close) return start();
  const before = new Set(p.threads);
  try {
    return start();
  } finally {
    const fresh = p.threads.filter((w) => !before.has(w));
    let waiting = fresh.length;
    if (waiting === 0) close();
    for (const w of fresh) {
      let seen = false;
      const up = () => {
        if (seen) return;
        seen = true;
        if (--waiting === 0) close();
      };
      w.once('online', up);
      w.once('exit', up);
    }
  }
}

export class PiscinaSlot {
  /** The Piscina new tasks go to; undefined until one is made, and after one ends. */
  current: Piscina | undefined;
  /** A retired Piscina's end, which the next one waits for. Never rejects. */
  retired: Promise<void> | undefined;
  readonly #size: number;
  readonly #gate: CompileGate | undefined;
  // Tasks handed each Piscina and not ended yet.
  readonly #running = new Map<Piscina, number>();
  // The Piscina a recycle waits to end, once the last of its tasks ends.
  #recycleOf: Piscina | undefined;
  // Refill tasks handed each Piscina and not settled: queued, they need no worker of their own.
  readonly #refills = new Map<Piscina, number>();

  constructor(size: number, gate?: CompileGate) {
    this.#size = size;
    this.#gate = gate;
  }

  /** Hands `p` a task through `start`, the compile gate open for the workers that sets up. */
  give<T>(p: Piscina, start: () => T): T {
    return spawnGated(p, this.#size, this.#gate, start);
  }

  /** `p`, counted as it is handed to a task, in the same turn: a recycle then never ends it under the task. */
  take(p: Piscina): Piscina {
    this.#running.set(p, (this.#running.get(p) ?? 0) + 1);
    return p;
  }

  /** A task handed `p` has ended. */
  taskEnded(p: Piscina): void {
    const left = (this.#running.get(p) ?? 1) - 1;
    if (left > 0) return void this.#running.set(p, left);
    this.#running.delete(p);
    if (this.#recycleOf === p) this.retire(p);
  }

  /** Ends the current Piscina once it runs no task (tasks handed it meanwhile still run on it). */
  recycle(): void {
    const p = this.current;
    if (!p) return;
    if (this.#running.has(p)) this.#recycleOf = p;
    else this.retire(p);
  }

  /** Ends `old` now; new tasks go to the next Piscina, made once this one is gone. */
  retire(old: Piscina): void {
    if (this.#recycleOf === old) this.#recycleOf = undefined;
    if (this.current === old) this.current = undefined;
    // Never a rejection: the next Piscina waits for this one, and would fail every task after it.
    const gone: Promise<void> = old
      .destroy()
      .catch(() => undefined)
      .then(() => {
        if (this.retired === gone) this.retired = undefined;
      });
    this.retired = gone;
  }

  /**
   * After a task of `p` failed or was aborted. One whose worker ended under it (aborted while it ran,
   * or out of memory) leaves Piscina with no worker for the tasks queued behind it (it keeps
   * `minThreads`, 0 so that idle workers end) until a task is given or another worker frees up: with
   * one worker they waited for their deadlines and answered 'timeout' without having run (or, with
   * none, for ever), and a worker Piscina started later was started outside the compile gate. One
   * is given now, which starts a worker through the gate. Nothing when no worker is missing, or when
   * the tasks queued are only such refills (after a burst of failures: they would start a worker to
   * run themselves).
   */
  refill(p: Piscina): void {
    const pending = this.#refills.get(p) ?? 0;
    if (p !== this.current || p.queueSize <= pending || p.threads.length >= this.#size) return;
    this.#refills.set(p, pending + 1);
    const settled = () => {
      const left = (this.#refills.get(p) ?? 1) - 1;
      if (left > 0) this.#refills.set(p, left);
      else this.#refills.delete(p);
    };
    this.give(p, () => p.run(REFILL))
      .catch(() => undefined)
      .finally(settled);
  }

  /** Ends the current Piscina now (its tasks end cancelled) and waits for a retired one too. */
  async close(): Promise<void> {
    this.#recycleOf = undefined;
    const last = this.current;
    this.current = undefined;
    await Promise.all([last?.destroy(), this.retired]);
  }
}
