/**
 * A call's deadline as a signal: it aborts when the caller's signal does, or with a `TimeoutError`
 * when `ms` have passed. Not `AbortSignal.any([signal, AbortSignal.timeout(ms)])`: Node keeps the
 * timeout signal of such a composite only weakly, and its timer is cleared when that signal is
 * garbage-collected, so a collection before the deadline silently removed it — a runaway pattern in a
 * worker then ran until the process was killed (reproduced: test/pool/deadline_signal.slow.test.ts). Here
 * the timer holds its controller strongly, and `clear()` ends both when the call ends, so no timer
 * or listener outlives its call. Any thread.
 */

interface CallDeadline {
  signal: AbortSignal;
  /** Stops the timer and detaches from the caller's signal; call it when the call has ended. */
  clear(): void;
}

export function callDeadline(outer: AbortSignal, ms: number): CallDeadline {
  const controller = new AbortController();
  const onAbort = () => controller.abort(outer.reason);
  let timer: NodeJS.Timeout | undefined;
  const clear = () => {
    clearTimeout(timer);
    outer.removeEventListener('abort', onAbort);
  };
  if (outer.aborted) onAbort();
  else {
    outer.addEventListener('abort', onAbort, { once: true });
    timer = setTimeout(() => {
      clear();
      controller.abort(new DOMException(`The deadline of ${ms} ms passed`, 'TimeoutError'));
    }, ms);
    // Like AbortSignal.timeout: a deadline alone does not keep the process alive.
    timer.unref();
  }
  return { signal: controller.signal, clear };
}
