/**
 * The command line as a function: parse argv, hand the command to lib/cli, print, resolve to the exit
 * code. Commands load lazily so `--version` and `--help` cost only Node's start-up. Both programs run
 * it: mewcode.ts from source and the single-file bundle (lib/bundle.ts). Main thread.
 */
import { readFileSync } from 'node:fs';
import { version } from '../core/build_info.ts';
import { HELP, parseCli, UsageError } from './args.ts';
import { endQuietlyOnClosedPipe } from './closed_pipe.ts';

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
  if (args.command === 'stats') return (await import('./stats_command.ts')).runStats(args);
  if (args.command === 'index') return (await import('./index_command.ts')).runIndex(args);
  if (args.command === 'history' || args.command === 'undo' || args.command === 'redo')
    return (await import('./history_command.ts')).runHistory(args);
  const { runCommand } = await import('./main.ts');
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
