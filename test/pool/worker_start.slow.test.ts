/**
 * The pool says when each of its workers is up (the runtime holds V8's young generation again then:
 * a worker's set-up puts the growth factor back): once per worker started, never for a task a live
 * worker takes.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createReadPool } from '../../lib/lanes/pool.ts';
import { QUICK } from '../helpers/pool.ts';

test('pool: onWorkerStart once per worker started, not per task', { timeout: 120_000 }, async () => {
  let started = 0;
  const pool = createReadPool({ workers: 1, onWorkerStart: () => started++ });
  const signal = new AbortController().signal;
  try {
    assert.equal(started, 0, 'no worker before the first task');
    for (let i = 0; i < 5; i++) assert.equal((await pool.run(QUICK, signal)).ok, true);
    assert.equal(started, 1, 'one worker, started once, took five tasks');
  } finally {
    await pool.close();
  }
});
