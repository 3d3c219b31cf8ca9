import assert from 'node:assert/strict';
import { test } from 'node:test';
import vm from 'node:vm';
import { onStopped, runWatched } from '../../lib/core/watchdog.ts';

// Backtracks exponentially in the number of `a`s: 40 of them take far longer than any test runs.
// Compiled as grep compiles its patterns (with /v), which V8's linear fallback does not take.
const GREP_FLAGS = 'v';
const runaway = () => new RegExp('^(a+)+$', GREP_FLAGS).test(`${'a'.repeat(40)}b`);

test('runWatched returns what the work returns', () => {
  assert.deepEqual(
    runWatched(() => 6 * 7, 10_000),
    { stopped: false, value: 42 },
  );
});

test('runWatched throws what the work throws, even an error coded as a timeout', () => {
  assert.throws(() => runWatched(() => JSON.parse('{'), 10_000), SyntaxError);
  // The work's own timed script ran out: its error, not a stop of this work.
  const own = () => new vm.Script('for (;;) {}').runInThisContext({ timeout: 20 });
  assert.throws(() => runWatched(own, 600_000), { code: 'ERR_SCRIPT_EXECUTION_TIMEOUT' });
});

test('runWatched stops a runaway regex, skipping its finally, and runs every reset once', () => {
  let resets = 0;
  let finallies = 0;
  onStopped(() => resets++);
  const r = runWatched(() => {
    try {
      return runaway();
    } finally {
      finallies++;
    }
  }, 50);
  assert.deepEqual(r, { stopped: true });
  assert.equal(finallies, 0, 'a stop runs no finally of the work: why the resets exist');
  assert.equal(resets, 1);
  // This thread runs on, and so does the watchdog.
  assert.deepEqual(
    runWatched(() => new RegExp('b', GREP_FLAGS).test('abc'), 10_000),
    { stopped: false, value: true },
  );
  assert.deepEqual(runWatched(runaway, 50), { stopped: true });
  assert.equal(resets, 2);
});

test('runWatched is not re-entrant', () => {
  const inner = () => runWatched(() => 1, 1000);
  assert.throws(() => runWatched(inner, 10_000), /not re-entrant/);
  // The outer run cleaned up: the next one runs.
  assert.deepEqual(
    runWatched(() => 2, 10_000),
    { stopped: false, value: 2 },
  );
});

// Node throws its timeout when the watchdog fired as the script returned: the work's value is the
// answer then. Work that ends around the limit, many times: whether a run lands in that window
// depends on the machine, what it answers does not.
test('runWatched answers the value of work that returned as the watchdog fired, never its timeout', () => {
  const seen = { value: 0, stopped: 0 };
  for (let i = 0; i < 2000; i++) {
    const spin = 2 + (i % 3) * 0.5;
    const r = runWatched(() => {
      const until = performance.now() + spin;
      while (performance.now() < until);
      return i;
    }, 3);
    if (r.stopped) seen.stopped++;
    else {
      assert.equal(r.value, i);
      seen.value++;
    }
  }
  assert.equal(seen.value + seen.stopped, 2000);
});
