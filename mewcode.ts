#!/usr/bin/env -S npx tsx
/**
 * MewCode's entry point from source: run the command line (lib/cli/run.ts), no tool logic here. While
 * the checkout's dist/ is current it hands over to the bundle, which starts in a fraction of the
 * time; bin/mewcode.mjs is the installed command.
 */
import { fileURLToPath } from 'node:url';
import { currentBundle } from './bin/current_bundle.mjs';
import { runCli } from './lib/cli/run.ts';
import { isProgram } from './lib/core/entry_point.ts';

export { runCli };

if (isProgram(import.meta.url)) {
  const argv = process.argv.slice(2);
  const bundle = currentBundle(fileURLToPath(new URL('.', import.meta.url)));
  const run: (argv: string[]) => Promise<number> = bundle
    ? ((await import(bundle)) as { runCli: typeof runCli }).runCli
    : runCli;
  process.exitCode = await run(argv);
}
