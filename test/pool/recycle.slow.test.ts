/**
 * A pool recycled (lib/lanes/pool.ts `recycle`) ends its workers once the tasks they run are done,
 * and later tasks start fresh ones: after an index build, whose n-gram memory and tables' garbage
 * each worker would keep for as long as it lives. Tasks running or queued at the recycle, or given in
 * the same turn, are answered as if nothing happened; close() ends a pool still waiting for them. A runtime recycles its pool
 * after each build it puts in use, and the index then serves from fresh workers. Workers are seen
 * through node's 'worker' event and their own 'exit' events, never by waiting for a clock.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Worker } from 'node:worker_threads';
import { createReadPool } from '../../lib/lanes/pool.ts';
import { countedPool, QUICK } from '../helpers/pool.ts';
import { runtimeAt } from '../helpers/runtime.ts';
import { tempDir, writeTree } from '../helpers/temp.ts';

const SAFETY = { timeout: 120_000 };
// Workers are kept while idle far longer than any test runs: only the recycle ends them.
const KEPT_IDLE = 600_000;

/** The worker threads started while watching, each with a promise of its exit, and both in order. */
function watchWorkers() {
  const seen: { worker: Worker; exited: Promise<number> }[] = [];
  const events: string[] = [];
  const onWorker = (worker: Worker) => {
    const n = seen.length;
    events.push(`start ${n}`);
    const exited = new Promise<number>((resolve) => worker.once('exit', resolve));
    void exited.then(() => events.push(`exit ${n}`));
    seen.push({ worker, exited });
  };
  process.on('worker', onWorker);
  return { seen, events, stop: () => process.off('worker', onWorker) };
}

test(
  'pool recycle: tasks running or queued at the recycle are answered; then its workers end, and a task after it starts a new one',
  SAFETY,
  async () => {
    const watch = watchWorkers();
    const { pool, started, firstUp } = countedPool({ workers: 2, idleMs: KEPT_IDLE });
    const signal = new AbortController().signal;
    try {
      // Fifty deep: most wait in the queue at the recycle.
      const burst = Array.from({ length: 50 }, () => pool.run(QUICK, signal));
      await firstUp;
      pool.recycle();
      const outcomes = await Promise.all(burst);
      assert.deepEqual(
        outcomes.filter((o) => !o.ok),
        [],
        'no task failed or was cancelled by the recycle',
      );
      const before = watch.seen.slice();
      assert.ok(before.length >= 1, 'the burst started a worker');
      await Promise.all(before.map((w) => w.exited));
      const startedBefore = started();
      const after = await pool.run(QUICK, signal);
      assert.equal(after.ok, true, 'a task after the recycle is answered');
      assert.equal(started(), startedBefore + 1, 'by a worker started for it');
      // Idle: its worker ends at once, and the next task's worker starts once it is gone (the new
      // thread takes over the ended one's allocator arena).
      const last = watch.seen.length - 1;
      pool.recycle();
      assert.equal((await pool.run(QUICK, signal)).ok, true);
      assert.equal(watch.seen.length, last + 2, 'a new worker for the task after the recycle');
      await watch.seen[last]?.exited;
      const order = watch.events.filter((e) => e === `exit ${last}` || e === `start ${last + 1}`);
      assert.deepEqual(order, [`exit ${last}`, `start ${last + 1}`], watch.events.join(', '));
    } finally {
      watch.stop();
      await pool.close();
    }
  },
);

test(
  'pool recycle: a task given in the same turn as the recycle is answered, on an idle pool or one whose call was just aborted',
  SAFETY,
  async () => {
    const pool = createReadPool({ workers: 1, idleMs: KEPT_IDLE });
    const fresh = () => new AbortController().signal;
    try {
      assert.equal((await pool.run(QUICK, fresh())).ok, true);
      // Handed the pool, not yet running on it: the recycle must wait for it, not end it under it.
      const given = pool.run(QUICK, fresh());
      pool.recycle();
      const o = await given;
      assert.equal(o.ok, true, o.ok ? '' : `${o.error.reason}: ${o.error.message}`);
      // A recycle waiting for a call's tasks; the call aborted, and a task given in the same turn.
      const call = new AbortController();
      const tasks = Array.from({ length: 50 }, () => pool.run(QUICK, call.signal));
      await tasks[2];
      pool.recycle();
      call.abort();
      const after = await pool.run(QUICK, fresh());
      assert.equal(after.ok, true, after.ok ? '' : `${after.error.reason}: ${after.error.message}`);
      for (const t of await Promise.all(tasks)) if (!t.ok) assert.equal(t.error.reason, 'cancelled', t.error.message);
    } finally {
      await pool.close();
    }
  },
);

test(
  'pool recycle: close() ends a recycled pool still waiting for its tasks; they answer cancelled',
  SAFETY,
  async () => {
    const watch = watchWorkers();
    const { pool, firstUp } = countedPool({ workers: 1, idleMs: KEPT_IDLE });
    const signal = new AbortController().signal;
    try {
      const burst = Array.from({ length: 50 }, () => pool.run(QUICK, signal));
      await firstUp;
      pool.recycle();
      pool.recycle(); // twice, and nothing more to end the second time
      await pool.close();
      const outcomes = await Promise.all(burst);
      for (const o of outcomes) if (!o.ok) assert.equal(o.error.reason, 'cancelled', o.error.message);
      await Promise.all(watch.seen.map((w) => w.exited));
    } finally {
      watch.stop();
    }
  },
);

test('pool recycle: a runtime ends the workers that built its index, and serves from new ones', SAFETY, async () => {
  const root = tempDir();
  const files: Record<string, string> = {};
  for (let i = 0; i < 2100; i++) files[`src/d${i % 40}/f${i}.ts`] = `export const v${i} = ${i}; // TODO ${i}\n`;
  writeTree(root, files);
  const watch = watchWorkers();
  try {
    const rt = runtimeAt(root, { workers: 2, index: 'build', indexCacheDir: tempDir() });
    assert.equal((await rt.searchIndex?.build())?.ok, true);
    const served = await rt.call('grep', { pattern: 'v1234 = 1234', output_mode: 'files_with_matches' });
    assert.match(String(served.meta?.index), /served/, served.content);
    assert.match(served.content, /f1234\.ts/);
    // Every file holds TODO: the count runs on the pool.
    const counted = await rt.call('grep', { pattern: 'TODO', output_mode: 'count', head_limit: 0 });
    assert.equal(counted.isError, false, counted.content);
    assert.match(counted.content, /f1234\.ts:1/);
    // The build's pieces, queued many at once, started both workers; kept, they would have taken
    // everything after it (they end only after 5 s idle). Ended, what came after started others.
    assert.ok(watch.seen.length >= 3, `workers started: ${watch.seen.length}`);
    await Promise.all(watch.seen.slice(0, 2).map((w) => w.exited));
    await rt.close();
  } finally {
    watch.stop();
  }
});
