#!/usr/bin/env -S npx tsx
/**
 * MewCode's entry point: parse argv, hand the command to lib/cli, print, exit. No tool logic here.
 * Commands load lazily so `--version` and `--help` cost only Node's start-up.
 */
import { readFileSync, realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { isMainThread } from 'node:worker_threads';
import { IN_BUNDLE, version } from './lib/build_info.ts';
import { HELP, parseCli, UsageError } from './lib/cli/args.ts';

// The library, so the bundle can also be imported: import { createRuntime } from './mewcode.mjs'.
export * from './lib/index.ts';
// The read lane's task handler: in the single-file bundle, worker threads start on this very file.
export { default } from './lib/pool/worker.ts';

async function main(argv: string[]): Promise<number> {
  const args = parseCli(argv);
  if (args.values.version) {
    process.stdout.write(`mewcode ${version()}\n`);
    return 0;
  }
  const wordless = args.command === undefined || (args.command === 'agent' && args.positionals.length === 0);
  if (wordless && args.help === undefined && !process.stdin.isTTY) {
    // No words, but a pipe: the task comes on stdin.
    const task = readFileSync(0, 'utf8').trim();
    if (task) {
      args.positionals.push(task);
      args.command = 'agent';
    }
  }
  if (args.help !== undefined) {
    process.stdout.write(args.help);
    return 0;
  }
  if (args.command === undefined) {
    process.stderr.write(HELP);
    return 2;
  }
  if (args.command === 'index') return (await import('./lib/cli/index_command.ts')).runIndex(args);
  const { runCommand } = await import('./lib/cli/main.ts');
  return runCommand(args);
}

if (!isMainThread) {
  // A worker thread of the bundle: run Piscina's worker bootstrap, which then calls our handler.
  // @ts-expect-error: Piscina's worker bootstrap has no type declarations
  if (IN_BUNDLE) await import('piscina/dist/worker.js');
} else if (isEntry())
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (e: unknown) => {
      if (e instanceof UsageError) {
        process.stderr.write(`mewcode: ${e.message}\n`);
        process.exitCode = 2;
      } else {
        process.stderr.write(`mewcode: internal error: ${(e as Error)?.stack ?? e}\n`);
        process.exitCode = 70;
      }
    },
  );

/** True when this file was started as the program, false when it is imported as a library. */
function isEntry(): boolean {
  const entry = process.argv[1];
  if (!entry) return false;
  try {
    return realpathSync(entry) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}
