/**
 * What the read pool's workers do wrong must not end the process or leave a task waiting.
 * - A worker's answer that arrives after the pool stopped waiting for it: when a task's worker is
 *   ended (the call was cancelled, or the runtime closed) while the worker's next answer is already
 *   queued on its port, Node still delivers that answer, and Piscina reports it as an 'error' event,
 *   which, unheard, threw from the message handler: an uncaught exception. Seen in CI as a runtime
 *   closed during its index check; a cancelled grep did it as often. The tasks are the fastest a
 *   worker runs (a tool name it refuses), queued fifty deep, so answers pile up on the port.
 * - A worker that cannot start (here: a heap limit too small to load its modules): Piscina starts no
 *   other, and the queued tasks waited for their deadlines, or a one-shot ended with them unsettled.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TaskOutcome } from '../../lib/core/task_outcome.ts';
import type { ToolResult } from '../../lib/core/tool.ts';
import { createReadPool } from '../../lib/lanes/pool.ts';
import { QUICK } from '../helpers/pool.ts';

const ROUNDS = 30;

/** Runs `body` and the turns after it; the uncaught exceptions seen meanwhile. */
async function uncaughtDuring(body: () => Promise<void>): Promise<string[]> {
  const seen: string[] = [];
  const onUncaught = (e: Error) => seen.push(String(e).slice(0, 120));
  process.on('uncaughtException', onUncaught);
  try {
    await body();
    await new Promise((resolve) => setImmediate(resolve));
  } finally {
    process.off('uncaughtException', onUncaught);
  }
  return seen;
}

test("pool: closing with answers queued on a worker's port throws nothing", { timeout: 120_000 }, async () => {
  const seen = await uncaughtDuring(async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const pool = createReadPool({ workers: 1 });
      const signal = new AbortController().signal;
      const runs: Promise<TaskOutcome<ToolResult>>[] = Array.from({ length: 50 }, () =>
        pool.run<ToolResult>(QUICK, signal),
      );
      assert.equal((await runs[3])?.ok, true);
      await pool.close();
      // Each task settles: answered, or cancelled by the close (its worker terminated) — never left waiting.
      for (const o of await Promise.all(runs))
        if (!o.ok)
          assert.equal(
            `${o.error.reason}: ${o.error.message}`,
            'cancelled: the read pool was closed',
            `round ${round}`,
          );
    }
  });
  assert.deepEqual(seen, []);
});

test('pool: cancelling a call with answers queued throws nothing, and the pool serves on', {
  timeout: 120_000,
}, async () => {
  const pool = createReadPool({ workers: 1 });
  try {
    let cancelled = 0;
    const seen = await uncaughtDuring(async () => {
      for (let round = 0; round < ROUNDS; round++) {
        const cancel = new AbortController();
        const runs: Promise<TaskOutcome<ToolResult>>[] = Array.from({ length: 50 }, () =>
          pool.run<ToolResult>(QUICK, cancel.signal),
        );
        assert.equal((await runs[3])?.ok, true);
        cancel.abort();
        for (const o of await Promise.all(runs)) {
          if (!o.ok) assert.equal(o.error.reason, 'cancelled', `round ${round}: ${o.error.message}`);
          if (!o.ok) cancelled++;
        }
      }
    });
    assert.deepEqual(seen, []);
    assert.ok(cancelled > 0, 'tasks still queued at the abort were cancelled');
    const after = await pool.run<ToolResult>(QUICK, new AbortController().signal);
    assert.equal(after.ok, true, 'the pool serves after the cancellations');
  } finally {
    await pool.close();
  }
});

test('pool: a worker that cannot start fails the queued tasks at once, with the cause; a later pool serves', {
  timeout: 120_000,
}, async () => {
  const starved = createReadPool({ workers: 2, heapMb: 1 });
  try {
    // Deadlines far off: the failure must come from the worker, not from waiting for them.
    const far = AbortSignal.timeout(600_000);
    const outcomes = await Promise.all(Array.from({ length: 6 }, () => starved.run<ToolResult>(QUICK, far)));
    for (const o of outcomes) {
      assert.equal(o.ok, false);
      if (!o.ok)
        assert.match(`${o.error.reason}: ${o.error.message}`, /^failed: the read pool's worker failed: .*memory/);
    }
    const again = await starved.run<ToolResult>(QUICK, far);
    assert.equal(again.ok, false, 'the next task starts a new pool, which fails the same way');
  } finally {
    await starved.close();
  }
  const fine = createReadPool({ workers: 1 });
  try {
    assert.equal((await fine.run<ToolResult>(QUICK, new AbortController().signal)).ok, true);
  } finally {
    await fine.close();
  }
});

test('pool: closed while its first task loads Piscina, it starts no pool after the close', async () => {
  const pool = createReadPool({ workers: 1 });
  const first = pool.run<ToolResult>(QUICK, new AbortController().signal);
  await pool.close();
  const o = await first;
  assert.equal(o.ok, false);
  if (!o.ok) assert.equal(`${o.error.reason}: ${o.error.message}`, 'cancelled: the read pool was closed');
  const later = await pool.run<ToolResult>(QUICK, new AbortController().signal);
  assert.equal(later.ok, false, 'nor for a task after it');
  if (!later.ok) assert.equal(later.error.reason, 'cancelled');
});
