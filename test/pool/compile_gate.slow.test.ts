/**
 * The read pool opens its compile gate (core/heap_hold.ts compileOnOwnThread) only around the tasks
 * that may start a worker, and closes each window once the workers started in it are online or have
 * exited: a window left open would have every isolate the host sets up later compile on its own
 * thread. Real pools and workers; the gate here only counts.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createReadPool } from '../../lib/lanes/pool.ts';
import { countedPool, countingGate, QUICK } from '../helpers/pool.ts';

test('compile gate: a window per task that may start a worker, each closed once its worker is online; none once the pool is full', {
  timeout: 120_000,
}, async () => {
  const g = countingGate();
  const { pool, allUp } = countedPool({ workers: 2, compileGate: g.gate }, 2);
  try {
    const signal = new AbortController().signal;
    const outcomes = await Promise.all(Array.from({ length: 20 }, () => pool.run(QUICK, signal)));
    assert.ok(outcomes.every((o) => o.ok));
    // Both workers come up (on a busy machine the first may answer all twenty first), and every
    // window closes.
    await allUp;
    await g.allShut();
    // Only the two tasks handed a pool with room for a worker opened one.
    assert.equal(g.opened(), 2);
    const more = await Promise.all(Array.from({ length: 10 }, () => pool.run(QUICK, signal)));
    assert.ok(more.every((o) => o.ok));
    assert.equal(g.opened(), 2);
    assert.equal(g.open(), 0);
  } finally {
    await pool.close();
  }
});

test('compile gate: a worker that cannot start closes its window too', { timeout: 120_000 }, async () => {
  const g = countingGate();
  // A heap limit too small to load the worker's modules: it exits before it is of use.
  const starved = createReadPool({ workers: 2, heapMb: 1, compileGate: g.gate });
  try {
    const o = await starved.run(QUICK, new AbortController().signal);
    assert.equal(o.ok, false);
    await g.allShut();
    assert.ok(g.opened() >= 1);
    assert.equal(g.open(), 0);
  } finally {
    await starved.close();
  }
});
