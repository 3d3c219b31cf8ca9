/**
 * `mewcode history`, `mewcode undo [--to ID]`, `mewcode redo`: the root's journal (lib/history/)
 * through a runtime made from the same flags as every command, so the root and the journal are the
 * ones the agent used. Exit 0 done, 1 a file left as it was (a conflict) or not restored, 2 a usage
 * error (nothing to undo or redo, an id not in effect). Main thread.
 */

import { historyTable, rewindReport } from '../history/print.ts';
import { createRuntime } from '../runtime/runtime.ts';
import { type ParsedArgs, positiveInt, UsageError } from './args.ts';
import { runtimeOptions } from './main.ts';

export async function runHistory(args: ParsedArgs): Promise<number> {
  if (args.positionals.length)
    throw new UsageError(`${args.command} takes no arguments; unexpected "${args.positionals[0]}".`);
  // Nothing here reads or searches: no worker threads, no index.
  const made = createRuntime({ ...runtimeOptions(args), workers: 0, index: 'off', backgroundJobs: false });
  if (!made.ok) throw new UsageError(made.error);
  const runtime = made.value;
  try {
    const journal = runtime.journal;
    if (!journal) throw new UsageError('The journal is turned off.');
    if (args.command === 'history') {
      const list = journal.list();
      process.stdout.write(args.values.json ? `${JSON.stringify(list, null, 2)}\n` : historyTable(list));
      return 0;
    }
    const force = args.values.force === true;
    const to = positiveInt('to', args.values.to);
    const done =
      args.command === 'redo'
        ? await journal.redo({ force })
        : to !== undefined
          ? await journal.rewind(to, { force })
          : await journal.undo({ force });
    if (!done.ok) throw new UsageError(`Nothing was changed: ${done.error}.`);
    const report = rewindReport(done.value, args.command === 'redo' ? 'redo' : 'undo');
    if (args.values.json) process.stdout.write(`${JSON.stringify(done.value, null, 2)}\n`);
    else process.stdout.write(report.out);
    process.stderr.write(report.err);
    return report.clean ? 0 : 1;
  } finally {
    await runtime.close();
  }
}
