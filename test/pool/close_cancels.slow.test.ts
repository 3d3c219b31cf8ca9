/**
 * A call still running in a worker when its runtime closes answers "cancelled", as a call whose
 * caller cancelled it does: close() ends the workers under it. It answered "internal: grep failed:
 * Terminating worker thread" — an internal error for what a host did on purpose. The search here
 * backtracks without end, so it is still running (or queued) whenever close() comes.
 */
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { runtimeAt } from '../helpers/runtime.ts';
import { tempDir, writeTree } from '../helpers/temp.ts';

const RUNAWAY = { pattern: '(a+)+b', output_mode: 'count' };

/** This process's threads: a worker that starts is one more. */
const threads = () => readdirSync('/proc/self/task').length;

/**
 * Waits for a thread to start beside the `had` there were (the worker taking the search). No event
 * tells a pool's thread start, so this polls for it; the test's timeout is the only limit.
 */
async function workerStarted(had: number): Promise<void> {
  while (threads() <= had) await sleep(5);
}

for (const workers of [2, 0]) {
  const where = workers ? 'the pool' : 'the standby worker';
  test(`close: a search running on ${where} when the runtime closes answers cancelled`, async () => {
    const dir = tempDir('mewcode-close-cancels-');
    // The line holds a 'b' (the pattern's literal), so the regex runs on it, and backtracks.
    writeTree(dir, { 'a.txt': `${'a'.repeat(40)}cb\n`, 'b.txt': 'plain\n' });
    const rt = runtimeAt(dir, { workers, readTimeoutMs: 600_000 });
    const had = threads();
    const running = [rt.call('grep', RUNAWAY), rt.call('grep', { ...RUNAWAY, path: 'a.txt' })];
    let answered = 0;
    for (const r of running) void r.then(() => answered++);
    await workerStarted(had);
    assert.equal(answered, 0, 'the searches run away: nothing answers before close()');
    await rt.close();
    for (const r of await Promise.all(running)) {
      assert.equal(r.isError, true);
      assert.equal(r.code, 'cancelled', r.content);
      assert.equal(r.content, 'grep was cancelled.');
    }
  });
}
