/**
 * What a worker thread of the bundle starts on (dist/pool-worker.mjs): Piscina's worker bootstrap,
 * then the read lane's task handler as the default export. From source, workers start on worker.ts.
 */
import { isMainThread } from 'node:worker_threads';
import { IN_BUNDLE } from '../core/build_info.ts';

export { default } from './pool_worker.ts';

// @ts-expect-error: Piscina's worker bootstrap has no type declarations
if (IN_BUNDLE && !isMainThread) await import('piscina/dist/worker.js');
