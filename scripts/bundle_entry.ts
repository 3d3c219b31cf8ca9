/**
 * The bundle's main entry (scripts/build.ts): the program and the library in one module, so a script
 * can `import { createRuntime } from './mewcode.mjs'` and `node mewcode.mjs grep …` runs the CLI.
 * bin/mewcode.mjs imports it and calls `runCli`.
 */
export * from '../lib/index.ts';
export { runCli } from '../mewcode.ts';
