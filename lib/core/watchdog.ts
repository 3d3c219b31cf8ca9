/**
 * Work run on this thread that V8 stops once it has run too long: a script run through
 * `vm.Script#runInThisContext` with a timeout is watched from a thread of its own, which terminates
 * this thread's JavaScript where it stands, inside a backtracking regex too. A pattern that could
 * backtrack without end can then run here as safely as in a worker under the deadline (measured on
 * Node 20: `/^(a+)+$/v` on forty `a`s and a `b` stopped 1 ms past a 200 ms limit; a watched run costs
 * ~0.16 ms more than an unwatched one, the watchdog's thread).
 * A stop runs no `finally` and no `catch` of the work: what it had opened stays open and what it was
 * changing stays half-changed. The caller must know what that can be: descriptors the work opened
 * are closed by `closeOpenedSince` (lib/core/descriptors.ts tracks the search's), and module state
 * is put back by the resets registered with `onStopped`, each run after every stop.
 */
import vm from 'node:vm';

const WORK = Symbol.for('mewcode.watchdog.work');
const script = new vm.Script(`globalThis[Symbol.for(${JSON.stringify(WORK.description)})]()`, {
  filename: 'mewcode-watchdog',
});

const resets = new Set<() => void>();

/**
 * Registers `reset`, run after every stop: module state that work run under the watchdog may leave
 * half-changed. Registered once, at the module's load; returns nothing to undo (modules stay).
 */
export function onStopped(reset: () => void): void {
  resets.add(reset);
}

export type Watched<T> = { stopped: false; value: T } | { stopped: true };

/**
 * Runs `work` on this thread, stopped by V8 after `ms` (at least 1). Its return or its throw, as the
 * work's own; `{ stopped: true }` once it was stopped, after every registered reset ran. Not
 * re-entrant: work run under the watchdog does not run more under it.
 */
export function runWatched<T>(work: () => T, ms: number): Watched<T> {
  const g = globalThis as unknown as Record<symbol, unknown>;
  if (g[WORK] !== undefined) throw new Error('runWatched is not re-entrant');
  // Set by the work's own `finally`, which a stop skips: a throw of the work is told from a stop by
  // it, not by the error's code (the work may run a timed script of its own). And the watchdog may
  // fire just as the work returns, and Node then throws its timeout all the same: the value kept
  // here is the answer.
  let ended = false;
  let returned: { value: T } | undefined;
  g[WORK] = () => {
    try {
      returned = { value: work() };
      return returned.value;
    } finally {
      ended = true;
    }
  };
  try {
    return { stopped: false, value: script.runInThisContext({ timeout: Math.max(1, Math.ceil(ms)) }) as T };
  } catch (e) {
    if (returned) return { stopped: false, value: returned.value };
    if (ended) throw e;
    for (const reset of resets) reset();
    return { stopped: true };
  } finally {
    delete g[WORK];
  }
}
