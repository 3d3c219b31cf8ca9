/**
 * Read pools for the pool's own tests: the quickest task a worker runs, when its workers come up, and
 * a compile gate that counts its windows.
 */
import assert from 'node:assert/strict';
import { createReadPool, type ReadPool } from '../../lib/lanes/pool.ts';
import type { PoolTask } from '../../lib/lanes/pool_protocol.ts';

/** The fastest task a worker runs: a tool it refuses. */
export const QUICK: PoolTask = { kind: 'tool', name: 'no-such-tool', args: {}, root: '/', paths: [] };

/**
 * A read pool that counts the workers it starts, and says when the first is up, and when `awaited`
 * of them (default 1) are.
 */
export function countedPool(
  options: Omit<NonNullable<Parameters<typeof createReadPool>[0]>, 'onWorkerStart'>,
  awaited = 1,
): {
  pool: ReadPool;
  /** Workers started so far. */
  started: () => number;
  /** Settles once the first worker is up (its isolate set up, its module loaded). */
  firstUp: Promise<void>;
  /** Settles once `awaited` workers have come up. */
  allUp: Promise<void>;
} {
  let started = 0;
  let up: () => void = () => undefined;
  let all: () => void = () => undefined;
  const firstUp = new Promise<void>((resolve) => {
    up = resolve;
  });
  const allUp = new Promise<void>((resolve) => {
    all = resolve;
  });
  const pool = createReadPool({
    ...options,
    onWorkerStart: () => {
      started++;
      up();
      if (started === awaited) all();
    },
  });
  return { pool, started: () => started, firstUp, allUp };
}

/** A gate that counts its windows, and settles `shut` each time none is open. */
export function countingGate() {
  let open = 0;
  let opened = 0;
  let shut: () => void = () => undefined;
  const gate = () => {
    open++;
    opened++;
    let closed = false;
    return () => {
      assert.equal(closed, false, 'a window closed twice');
      closed = true;
      if (--open === 0) shut();
    };
  };
  const allShut = () =>
    open === 0
      ? Promise.resolve()
      : new Promise<void>((resolve) => {
          shut = resolve;
        });
  return { gate, allShut, open: () => open, opened: () => opened };
}
