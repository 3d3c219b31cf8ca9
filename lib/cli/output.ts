/**
 * How the CLI prints what grep, glob and read_file found, from their data (core/answers.ts): results
 * on stdout, everything else (notes, truncation markers, "no matches", errors) on stderr, so
 * `mewcode grep -l x | xargs wc -l` sees only paths. The tools word their hints with the CLI's flags
 * (wording.ts). Colour as ripgrep's, only on a terminal unless asked. Main thread.
 */
import type { GlobData, ReadFileData } from '../core/answers.ts';
import type { ToolResult } from '../core/tool.ts';
import { globNotes } from '../search/format.ts';
import { UsageError } from './args.ts';
import { CLI_WORDING } from './wording.ts';

/** Where a printer writes: the process's streams, or a test's. */
export interface Out {
  stdout(text: string): void;
  stderr(text: string): void;
}

export const processOut: Out = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
};

/** Whether stdout gets colour: --color, then NO_COLOR (any non-empty value), then whether it is a terminal. */
export function colorEnabled(when: string | undefined): boolean {
  if (when !== undefined && when !== 'auto' && when !== 'always' && when !== 'never')
    throw new UsageError(`--color must be auto, always or never, not "${when}".`);
  if (when === 'always') return true;
  if (when === 'never') return false;
  if (process.env.NO_COLOR) return false;
  return process.stdout.isTTY === true && process.env.TERM !== 'dumb';
}

/** An error result: its words on stderr. */
export function printError(result: ToolResult, out: Out = processOut): void {
  out.stderr(`${result.content}\n`);
}

/** glob's paths on stdout (never painted, as fd's piped output), its notes on stderr. */
export function printGlob(d: GlobData, out: Out = processOut): void {
  if (d.paths.length) out.stdout(`${d.paths.join('\n')}\n`);
  const notes = globNotes(d, CLI_WORDING);
  if (notes.length) out.stderr(`${notes.join('\n')}\n`);
}

/** `mewcode read`: the numbered lines on stdout; the footer saying where to continue on stderr. */
export function printRead(d: ReadFileData, out: Out = processOut): void {
  if (d.text !== '') out.stdout(`${d.text.replace(/\n$/, '')}\n`);
  if (d.footer) out.stderr(`${d.footer}\n`);
}
