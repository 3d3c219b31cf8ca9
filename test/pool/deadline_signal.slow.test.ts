/**
 * A call's deadline survives garbage collection. Node clears the timer of an `AbortSignal.timeout`
 * held only by an `AbortSignal.any` composite when that signal is collected, so a collection during a
 * call used to remove its deadline: a runaway pattern then ran in its worker until the process was
 * killed (seen as the deadline test hanging for minutes, one run in three). These tests force
 * collections while the deadline is pending, and wait for the abort, never for a duration.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import v8 from 'node:v8';
import vm from 'node:vm';
import { callDeadline } from '../../lib/core/deadline.ts';
import { runtimeAt } from '../helpers/runtime.ts';
import { tempDir, writeTree } from '../helpers/temp.ts';

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;
const SAFETY = { timeout: 60_000 };

/** Collects garbage every few milliseconds until `done` settles. */
async function collectingUntil<T>(done: Promise<T>): Promise<T> {
  const timer = setInterval(gc, 20);
  try {
    return await done;
  } finally {
    clearInterval(timer);
  }
}

test(
  'deadline signal: fires with a TimeoutError after collections, follows the caller, and clear() ends it',
  SAFETY,
  async () => {
    const d = callDeadline(new AbortController().signal, 300);
    const fired = new Promise<unknown>((resolve) => d.signal.addEventListener('abort', () => resolve(d.signal.reason)));
    const reason = await collectingUntil(fired);
    assert.equal((reason as Error).name, 'TimeoutError');

    const caller = new AbortController();
    const followed = callDeadline(caller.signal, 60_000);
    caller.abort(new Error('stop'));
    assert.equal(followed.signal.aborted, true);
    assert.equal((followed.signal.reason as Error).message, 'stop');
    followed.clear();

    // Timers of the same length fire in the order they were set: once a later 1 ms deadline has
    // fired, the cleared one would have fired before it.
    const cleared = callDeadline(new AbortController().signal, 1);
    cleared.clear();
    const later = callDeadline(new AbortController().signal, 1);
    const alive = setTimeout(() => {}, 60_000); // deadlines are unref'd: keep the loop running meanwhile
    await new Promise((resolve) => later.signal.addEventListener('abort', resolve));
    clearTimeout(alive);
    assert.equal(cleared.signal.aborted, false);
  },
);

// The reported runaway pattern: polynomial backtracking on a line of a's; case-insensitive, so no
// linear fallback of V8 could end it: only the deadline does.
const RUNAWAY = `${'a*'.repeat(24)}[!?]x`;

for (const workers of [2, 0])
  test(
    `deadline signal: a runaway grep stops at its deadline though garbage is collected meanwhile (workers: ${workers})`,
    SAFETY,
    async () => {
      const root = tempDir();
      writeTree(root, { 'a.txt': `${'a'.repeat(40)}x\n` });
      const rt = runtimeAt(root, { workers, readTimeoutMs: 5_000, index: 'off' });
      // A started worker first (a pool's, or the standby one): a shard that starts after its deadline
      // stops at its first file without running the pattern, and would hide a lost deadline.
      let warm = await rt.call('grep', { pattern: 'a+x' });
      for (let tries = 1; warm.code === 'timeout' && tries < 10; tries++)
        warm = await rt.call('grep', { pattern: 'a+x' });
      assert.equal(warm.content, `a.txt:1:${'a'.repeat(40)}x`);
      const r = await collectingUntil(rt.call('grep', { pattern: RUNAWAY, case_insensitive: true }));
      assert.equal(r.code, 'timeout', r.content);
      // The pool goes on serving after the kill.
      assert.equal((await rt.call('grep', { pattern: 'ax' })).content, `a.txt:1:${'a'.repeat(40)}x`);
    },
  );
