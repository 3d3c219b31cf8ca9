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
  let unfollow = () => {};
  const clear = () => {
    clearTimeout(timer);
    unfollow();
  };
  if (outer.aborted) onAbort();
  else {
    unfollow = follow(outer, onAbort);
    timer = setTimeout(() => {
      clear();
      controller.abort(new DOMException(`The deadline of ${ms} ms passed`, 'TimeoutError'));
    }, ms);
    // Like AbortSignal.timeout: a deadline alone does not keep the process alive.
    timer.unref();
  }
  return { signal: controller.signal, clear };
}

/** The calls following each caller's signal, and the one listener that tells them all. */
const followers = new WeakMap<AbortSignal, { calls: Set<() => void>; listener: () => void }>();

/**
 * Runs `onAbort` when `outer` aborts; returns what stops that. One listener on `outer` however many
 * calls share it, there while any does: a batch of eleven calls on one signal set off Node's
 * MaxListenersExceededWarning, a leak warning for what is none.
 */
function follow(outer: AbortSignal, onAbort: () => void): () => void {
  let f = followers.get(outer);
  if (!f) {
    const calls = new Set<() => void>();
    const listener = () => {
      followers.delete(outer);
      for (const call of calls) call();
    };
    f = { calls, listener };
    followers.set(outer, f);
    outer.addEventListener('abort', listener, { once: true });
  }
  const mine = f;
  mine.calls.add(onAbort);
  return () => {
    if (!mine.calls.delete(onAbort) || mine.calls.size > 0 || followers.get(outer) !== mine) return;
    followers.delete(outer);
    outer.removeEventListener('abort', mine.listener);
  };
}
