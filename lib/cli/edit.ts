/**
 * `mewcode edit FILE --old A --new B [--old C --new D …] [--replace-all]`: a read and an edit in one
 * process, so the write lane's ledger has seen the file (the same checks as the agent's edit_file and
 * multi_edit: exact matches, unique unless --replace-all, nothing written on any failure), their hints
 * worded with this command's flags (wording.ts). Main thread.
 */
import type { ToolResult } from '../core/tool.ts';
import type { Runtime } from '../runtime/runtime.ts';
import { type ParsedArgs, UsageError } from './args.ts';
import { CLI_WORDING } from './wording.ts';

export async function edit(runtime: Runtime, args: ParsedArgs, signal: AbortSignal): Promise<ToolResult> {
  const [file, ...extra] = args.positionals;
  if (file === undefined) throw new UsageError('edit needs a file: mewcode edit FILE --old TEXT --new TEXT.');
  if (extra.length) throw new UsageError(`edit takes one file; unexpected "${extra[0]}". Quote the text.`);
  const olds = args.values.old ?? [];
  const news = args.values.new ?? [];
  if (olds.length === 0) throw new UsageError('edit needs --old TEXT and --new TEXT.');
  if (olds.length !== news.length)
    throw new UsageError(`edit takes --old and --new in pairs; got ${olds.length} --old and ${news.length} --new.`);
  const replaceAll = args.values['replace-all'] ?? false;
  // Read first (a missing file is fine: an empty --old creates it), so the ledger knows the file.
  const read = await runtime.call('read_file', { file_path: file, limit: 1 }, { signal });
  if (read.isError && read.code !== 'not_found') return read;
  const edits = olds.map((o, i) => ({
    old_string: o,
    new_string: news[i] as string,
    ...(replaceAll ? { replace_all: true } : {}),
  }));
  const [one] = edits;
  const result =
    edits.length === 1 && one
      ? await runtime.call('edit_file', { file_path: file, ...one }, { signal, wording: CLI_WORDING })
      : await runtime.call('multi_edit', { file_path: file, edits }, { signal, wording: CLI_WORDING });
  return result;
}
