/**
 * `mewcode glob`: fd's flags turned into the tool's arguments (a pattern without "/", as `fd -g`
 * takes it, matches a name at any depth), the whole result printed (no model
 * budget, no spill file: `--limit` cuts only when asked), paths on stdout and notes on stderr, exit 0
 * found, 1 nothing found, 2 an error. grep is grep_command.ts. Main thread.
 */
import type { Runtime } from '../runtime/runtime.ts';
import { searchOnce } from '../search/dircache.ts';
import { type ParsedArgs, positiveInt, UsageError } from './args.ts';
import { walkFlags } from './grep_input.ts';
import { printError, printGlob } from './output.ts';
import { CLI_WORDING } from './wording.ts';

export async function glob(runtime: Runtime, args: ParsedArgs, signal: AbortSignal): Promise<number> {
  const input = globInput(args);
  searchOnce(); // this process searches once and exits: no listing is kept for a later search
  // glob --json prints the whole result object, as every command's --json does.
  if (args.values.json) {
    const result = await runtime.call('glob', input, { signal, unbudgeted: true });
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    return result.isError ? 2 : (result.meta?.total ?? 0) > 0 ? 0 : 1;
  }
  const result = await runtime.call('glob', input, { signal, unbudgeted: true, form: 'data', wording: CLI_WORDING });
  const d = result.data;
  if (result.isError || d?.tool !== 'glob') {
    printError(result);
    return 2;
  }
  printGlob(d);
  return d.total > 0 ? 0 : 1;
}

function globInput(args: ParsedArgs): Record<string, unknown> {
  const f = args.values;
  const ext = f.extension ?? [];
  const words = [...args.positionals];
  // fd's `-e ts` alone lists every .ts file: the pattern defaults to everything below.
  const pattern = words.length === 0 && ext.length ? '**/*' : words.shift();
  const [dir, ...extra] = words;
  if (pattern === undefined) throw new UsageError('glob needs a pattern: mewcode glob "**/*.ts" [dir], or -e EXT.');
  if (extra.length)
    throw new UsageError(`glob takes a pattern and one directory; unexpected "${extra[0]}". Quote the pattern.`);
  // As `fd -g`: a pattern without "/" matches a file's name at any depth (the tool's own glob matches
  // it at the top level only, as its description tells the model).
  const input: Record<string, unknown> = { pattern: anyDepth(pattern), limit: 0 }; // a pipe gets every path
  if (dir !== undefined) input.path = dir;
  if (f.sort !== undefined && f.sort !== 'path' && f.sort !== 'mtime')
    throw new UsageError(`--sort must be path or mtime, not "${f.sort}".`);
  if (f.sort !== undefined) input.sort = f.sort;
  const limit = positiveInt('limit', f.limit, true); // 0: all, as --head-limit 0
  if (limit !== undefined) input.limit = limit;
  if (ext.length) input.extension = ext;
  walkFlags(args, input);
  return input;
}

/**
 * A pattern that names no directory (`*.ts`) matches a name at any depth, as fd's glob does: it is
 * searched as that pattern below `**`.
 */
export const anyDepth = (pattern: string): string => (pattern.includes('/') ? pattern : `**/${pattern}`);
