/**
 * The single-file bundle's entry (dist/mewcode.mjs, built by scripts/build.ts). One file is three things:
 * - the program, when node was started on it (`node mewcode.mjs grep …`);
 * - the library, when a script imports it: the names of lib/index.ts, and importing runs nothing;
 * - a read-lane worker's program, when the pool starts a worker thread on it (lib/lanes/pool.ts marks
 *   those through workerData).
 * Each evaluates only what it runs: the library's and the worker's modules are required on first use
 * (esbuild keeps a required module uninitialised until then), so `--version` does not evaluate the
 * runtime, and a worker evaluates the read tools and the searcher, never a write tool.
 */
import { isMainThread, workerData } from 'node:worker_threads';
import { runCli } from './cli/run.ts';
import { isProgram } from './core/entry_point.ts';
import type * as Lib from './index.ts';
import { isReadLaneWorker } from './lanes/pool_protocol.ts';
import type * as Worker from './runtime/pool_worker.ts';

export { MODEL_WORDING } from './core/wording.ts';
export type * from './index.ts';
export { runCli };

const lib = (): typeof Lib => require('./index.ts');

export const createRuntime: typeof Lib.createRuntime = (...a) => lib().createRuntime(...a);
export const runAgent: typeof Lib.runAgent = (...a) => lib().runAgent(...a);
export const makeProvider: typeof Lib.makeProvider = (...a) => lib().makeProvider(...a);
export const inspectTrust: typeof Lib.inspectTrust = (...a) => lib().inspectTrust(...a);

/** The read lane's task handler, which the pool's workers import this file for (READ_LANE_TASK). */
export const readLaneTask: typeof Worker.readLaneTask = (task) =>
  (require('./runtime/pool_worker.ts') as typeof Worker).readLaneTask(task);

if (!isMainThread && isReadLaneWorker(workerData)) bootWorker();
else if (isMainThread && isProgram(import.meta.url))
  runCli(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
  });

/** Piscina's worker bootstrap, once per thread (it then imports this file for `readLaneTask`). */
function bootWorker(): void {
  const booted = Symbol.for('mewcode.readLaneWorker');
  const g = globalThis as { [booted]?: true };
  if (g[booted]) return;
  g[booted] = true;
  require('piscina/dist/worker.js');
}
