/**
 * A task aborted while it runs ends its worker (the only way to stop a runaway regex), and Piscina
 * starts no other for the tasks queued behind it: it keeps only `minThreads` (0 here, so idle workers
 * end) after such an end, and starts workers only as tasks are given. Queued tasks then waited for
 * their own deadlines and answered 'timeout' without having run (under a flood of calls, thousands).
 * So did the tasks queued behind one whose worker ran out of memory under it, and without deadlines
 * they waited for ever. The pool (lib/lanes/pool.ts) starts a worker for them, through its compile gate. Seen through the answers and node's 'worker'
 * event, never a clock: with nothing left to run them, the tasks' promises stay pending and the test
 * fails as the event loop empties.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import type { PoolTask } from '../../lib/lanes/pool_protocol.ts';
import { countedPool, countingGate, QUICK } from '../helpers/pool.ts';
import { grepShard as shardOf } from '../helpers/shards.ts';
import { tempDir } from '../helpers/temp.ts';

/** A grep shard of `pattern` over the tree at `root`, all its answers wanted. */
const grepShard = (root: string, pattern: string, mode: 'count' | 'content') =>
  shardOf(root, pattern, { mode, useIgnore: false }) as unknown as PoolTask;

/** A grep shard that backtracks for far longer than the test: it runs until it is aborted. */
function runaway(): PoolTask {
  const root = tempDir();
  writeFileSync(path.join(root, 'a.txt'), `${'a'.repeat(40_000)}!\n`);
  return grepShard(root, '^(a|a)*$', 'count');
}

/** A grep shard whose lines (four million, each a match) fill a worker heap of a few MiB. */
function heapFiller(): PoolTask {
  const root = tempDir();
  writeFileSync(path.join(root, 'a.txt'), 'a\n'.repeat(4_000_000));
  return grepShard(root, 'a', 'content');
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

/**
 * `fills` tasks that each run a worker out of memory, then `queued` quick ones, on one worker with a
 * 16 MiB heap; once all have settled and every compile window has closed: how each ended, and the
 * counts. Piscina may hand a worker its next task before the last one ends, so one death may fail two.
 */
async function afterOutOfMemory(fills: number, queued: number) {
  const g = countingGate();
  const { pool, started } = countedPool({ workers: 1, heapMb: 16, compileGate: g.gate });
  try {
    const never = new AbortController().signal;
    const filler = heapFiller();
    const failing = Array.from({ length: fills }, () => pool.run(filler, never));
    const quick = Array.from({ length: queued }, () => pool.run(QUICK, never));
    const failed = await Promise.all(failing);
    const answered = (await Promise.all(quick)).map((o) => o.ok);
    await g.allShut();
    return { failed, answered, started: started(), windows: g.opened(), open: g.open() };
  } finally {
    await pool.close();
  }
}

test('pool: tasks queued behind one whose worker ran out of memory are run, on a worker started through the compile gate', {
  timeout: 120_000,
}, async () => {
  const r = await afterOutOfMemory(1, 3);
  assert.equal(r.failed[0]?.ok ? 'ok' : r.failed[0]?.error.reason, 'failed');
  assert.match(r.failed[0]?.ok ? '' : String(r.failed[0]?.error.message), /memory/);
  assert.deepEqual(r.answered, [true, true, true], 'each queued task answered');
  assert.equal(r.started, 2, 'a worker started for them after the first ended');
  // Both workers were started with the gate open: the first by the first task, the second for the queued ones.
  assert.equal(r.windows, 2);
  assert.equal(r.open, 0);
});

test('pool: after a burst of workers running out of memory, the queued tasks answer and every window closes; no start without a failure', {
  timeout: 120_000,
}, async () => {
  const r = await afterOutOfMemory(3, 2);
  for (const o of r.failed) assert.equal(o.ok ? 'ok' : o.error.reason, 'failed');
  assert.deepEqual(r.answered, [true, true]);
  assert.equal(r.open, 0);
  // The first worker, and at most one for each failure: the refills queued behind the last
  // failure start none of their own.
  assert.ok(r.windows >= 2 && r.windows <= 4, `${r.windows} windows`);
});
