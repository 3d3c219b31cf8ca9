/**
 * The write lane: calls that change things run one at a time on the main thread, in the order they
 * were requested (FIFO), whatever else is in flight. A failing call does not stop the ones queued
 * behind it.
 */
export class WriteLane {
  #tail: Promise<unknown> = Promise.resolve();
  #pending = 0;

  run<T>(fn: () => Promise<T>): Promise<T> {
    this.#pending++;
    const next = this.#tail.then(fn, fn).finally(() => {
      this.#pending--;
    });
    this.#tail = next.catch(() => undefined);
    return next;
  }

  /** Calls queued or running. */
  get pending(): number {
    return this.#pending;
  }
}
