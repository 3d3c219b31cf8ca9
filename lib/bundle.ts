/**
 * The single-file bundle's entry (dist/mewcode.mjs, built by scripts/build.ts). One file is the program,
 * when node was started on it (`node mewcode.mjs grep …`), and the library, when a script imports it
 * (the names of lib/index.ts; importing runs nothing). The library's modules are required on first use
 * (the build carries them as an island, lib/core/islands.ts), so `--version` neither parses nor
 * evaluates the runtime. The read lane's worker threads run an island of their own.
 */
import { isMainThread } from 'node:worker_threads';
import { runCli } from './cli/run.ts';
import { isProgram } from './core/entry_point.ts';
import type * as Lib from './index.ts';

export { MODEL_WORDING } from './core/wording.ts';
export type * from './index.ts';
export { runCli };

const lib = (): typeof Lib => require('./index.ts');

export const createRuntime: typeof Lib.createRuntime = (...a) => lib().createRuntime(...a);
export const runAgent: typeof Lib.runAgent = (...a) => lib().runAgent(...a);
export const makeProvider: typeof Lib.makeProvider = (...a) => lib().makeProvider(...a);
export const inspectTrust: typeof Lib.inspectTrust = (...a) => lib().inspectTrust(...a);
export const openTelemetry: typeof Lib.openTelemetry = (...a) => lib().openTelemetry(...a);
export const openAuditLog: typeof Lib.openAuditLog = (...a) => lib().openAuditLog(...a);
export const defaultAuditPath: typeof Lib.defaultAuditPath = (...a) => lib().defaultAuditPath(...a);
export const auditFiles: typeof Lib.auditFiles = (...a) => lib().auditFiles(...a);
export const auditStats: typeof Lib.auditStats = (...a) => lib().auditStats(...a);

if (isMainThread && isProgram(import.meta.url))
  runCli(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
  });
