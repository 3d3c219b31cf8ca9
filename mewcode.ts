#!/usr/bin/env -S npx tsx
/**
 * MewCode's entry point: parse argv, hand the command to lib/cli, print, exit. No tool logic here.
 * Commands load lazily so `--version` and `--help` cost only Node's start-up. Run from source (tsx)
 * while the checkout's dist/ is current, it hands over to the bundle, which starts in a fraction of
 * the time; bin/mewcode.mjs is the installed command.
 */
import { readFileSync, realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { currentBundle } from './bin/current_bundle.mjs';
import { HELP, parseCli, UsageError } from './lib/cli/args.ts';
import { endQuietlyOnClosedPipe } from './lib/cli/closed_pipe.ts';
import { IN_BUNDLE, version } from './lib/core/build_info.ts';

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

/** Runs the command line `argv` (without node and the script); resolves to the exit code, never rejects. */
export async function runCli(argv: string[]): Promise<number> {
  endQuietlyOnClosedPipe();
  try {
    return await main(argv);
  } catch (e) {
    if (e instanceof UsageError) {
      process.stderr.write(`mewcode: ${e.message}\n`);
      return 2;
    }
    process.stderr.write(`mewcode: internal error: ${(e as Error)?.stack ?? e}\n`);
    return 70;
  }
}

if (isEntry()) {
  const argv = process.argv.slice(2);
  const bundle = IN_BUNDLE ? undefined : currentBundle(fileURLToPath(new URL('.', import.meta.url)));
  const run: (argv: string[]) => Promise<number> = bundle
    ? ((await import(bundle)) as { runCli: typeof runCli }).runCli
    : runCli;
  process.exitCode = await run(argv);
}

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
