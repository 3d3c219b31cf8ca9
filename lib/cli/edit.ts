/**
 * `mewcode edit FILE --old A --new B [--old C --new D …] [--replace-all]`: a read and an edit in one
 * process, so the write lane's ledger has seen the file (the same checks as the agent's edit_file and
 * multi_edit: exact matches, unique unless --replace-all, nothing written on any failure). And the
 * advice a one-shot `call` of a write tool cannot follow ("read it with read_file first": the next
 * process has a fresh ledger) is replaced by what does work. Main thread.
 */
import type { ToolResult } from '../core/tool.ts';
import type { Runtime } from '../runtime/runtime.ts';
import { type ParsedArgs, UsageError } from './args.ts';

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
      ? await runtime.call('edit_file', { file_path: file, ...one }, { signal })
      : await runtime.call('multi_edit', { file_path: file, edits }, { signal });
  return result.isError ? { ...result, content: editWording(result.content) } : result;
}

/** The tools' argument names in hints, as this command's flags. */
function editWording(text: string): string {
  return text
    .replace(/set replace_all: true/g, 'pass --replace-all')
    .replace(/\bedits\[(\d+)\]\.?/g, (_, i: string) => `pair ${Number(i) + 1}: `)
    .replace(/\bold_string\b/g, '--old')
    .replace(/\bnew_string\b/g, '--new');
}

/** A one-shot `call` of a write tool cannot follow "read it first": say what can. */
export function oneShotAdvice(result: ToolResult): ToolResult {
  if (result.code !== 'not_read') return result;
  const content = result.content.replace(
    /read it with read_file first \(a partial read is enough\), then retry\./,
    'each mewcode call is a new session. Use mewcode edit FILE --old TEXT --new TEXT (it reads, then edits), ' +
      'or mewcode batch with a read_file call before the change.',
  );
  return { ...result, content };
}
