/** Read pools for the pool's own tests: the quickest task a worker runs, and when its workers come up. */
import { createReadPool, type ReadPool } from '../../lib/lanes/pool.ts';
import type { PoolTask } from '../../lib/lanes/pool_protocol.ts';

/** The fastest task a worker runs: a tool it refuses. */
export const QUICK: PoolTask = { kind: 'tool', name: 'no-such-tool', args: {}, root: '/', paths: [] };

/** A read pool that counts the workers it starts, and says when the first is up. */
export function countedPool(options: Omit<NonNullable<Parameters<typeof createReadPool>[0]>, 'onWorkerStart'>): {
  pool: ReadPool;
  /** Workers started so far. */
  started: () => number;
  /** Settles once the first worker is up (its isolate set up, its module loaded). */
  firstUp: Promise<void>;
} {
  let started = 0;
  let up: () => void = () => undefined;
  const firstUp = new Promise<void>((resolve) => {
    up = resolve;
  });
  const pool = createReadPool({
    ...options,
    onWorkerStart: () => {
      started++;
      up();
    },
  });
  return { pool, started: () => started, firstUp };
}
