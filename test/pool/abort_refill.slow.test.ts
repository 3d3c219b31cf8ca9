/**
 * A task aborted while it runs ends its worker (the only way to stop a runaway regex), and Piscina
 * starts no other for the tasks queued behind it: it keeps only `minThreads` (0 here, so idle workers
 * end) after such an end, and starts workers only as tasks are given. Queued tasks then waited for
 * their own deadlines and answered 'timeout' without having run (under a flood of calls, thousands).
 * The pool (lib/lanes/pool.ts) starts a worker for them. Seen through the answers and node's 'worker'
 * event, never a clock: with nothing left to run them, the tasks' promises stay pending and the test
 * fails as the event loop empties.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import type { PoolTask } from '../../lib/lanes/pool_protocol.ts';
import { countedPool, QUICK } from '../helpers/pool.ts';
import { tempDir } from '../helpers/temp.ts';

/** A grep shard that backtracks for far longer than the test: it runs until it is aborted. */
function runaway(): PoolTask {
  const root = tempDir();
  writeFileSync(path.join(root, 'a.txt'), `${'a'.repeat(40_000)}!\n`);
  const walk = { root, useIgnore: false, hidden: false, maxDepth: Number.POSITIVE_INFINITY, ignoreBase: root };
  return {
    kind: 'grep',
    pattern: '^(a|a)*$',
    ignoreCase: false,
    fixedStrings: false,
    multiline: false,
    before: 0,
    after: 0,
    mode: 'count',
    maxResults: Number.POSITIVE_INFINITY,
    root,
    walk,
    dirs: [''],
    files: [],
  } as unknown as PoolTask;
}

test('pool: tasks queued behind one aborted while it runs are run, on a worker started for them', {
  timeout: 120_000,
}, async () => {
  const { pool, started, firstUp } = countedPool({ workers: 1 });
  try {
    const stop = new AbortController();
    const long = pool.run(runaway(), stop.signal);
    const queued = Array.from({ length: 3 }, () => pool.run(QUICK, new AbortController().signal));
    await firstUp; // the one worker is up, and took the first task given
    stop.abort();
    const aborted = await long;
    assert.equal(aborted.ok ? 'ok' : aborted.error.reason, 'cancelled');
    const answers = await Promise.all(queued);
    assert.deepEqual(
      answers.map((a) => a.ok),
      [true, true, true],
      'each queued task answered',
    );
    assert.equal(started(), 2, 'a worker started for them after the first ended');
  } finally {
    await pool.close();
  }
});
