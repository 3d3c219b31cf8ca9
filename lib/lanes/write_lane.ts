/**
 * The write lane: calls that change things run one at a time on the main thread, in the order they
 * were requested (FIFO), whatever else is in flight. A failing call does not stop the ones queued
 * behind it.
 */
export class WriteLane {
  #tail: Promise<unknown> = Promise.resolve();

  run<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.#tail.then(fn, fn);
    this.#tail = next.catch(() => undefined);
    return next;
  }
}
