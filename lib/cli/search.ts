/**
 * `mewcode grep` and `mewcode glob`: ripgrep's and fd's flags turned into the tool's arguments, the
 * whole result printed (no model budget, no spill file: `--head-limit` cuts only when asked), results
 * on stdout and notes on stderr, exit 0 found, 1 nothing found, 2 an error. Main thread.
 */
import type { Runtime } from '../runtime/runtime.ts';
import { searchOnce } from '../search/dircache.ts';
import { typeGlobs, typeNames } from '../search/file_types.ts';
import { type ParsedArgs, positiveInt, UsageError } from './args.ts';
import { printGrepJson, printGrepText } from './grep_print.ts';
import { colorEnabled, printError, printGlob, processOut } from './output.ts';
import { CLI_WORDING } from './wording.ts';

/** A literal as a regex that matches exactly it, in JavaScript's and ripgrep's syntax alike. */
const escapeRegex = (s: string) => s.replace(/[\\^$.*+?()[\]{}|]/g, '\\$&');

export async function search(runtime: Runtime, args: ParsedArgs, tool: 'grep' | 'glob', signal: AbortSignal) {
  const input = tool === 'grep' ? grepInput(args) : globInput(args);
  const json = args.values.json ?? false;
  if (json && tool === 'grep' && input.output_mode !== undefined && input.output_mode !== 'content')
    throw new UsageError(
      '--json prints matching lines as ripgrep does; it cannot be combined with -l, -c or --output-mode (as in rg).',
    );
  const color = !json && colorEnabled(args.values.color);
  searchOnce(); // this process searches once and exits: no listing is kept for a later search
  // glob --json prints the whole result object, as every command's --json does.
  if (json && tool === 'glob') {
    const result = await runtime.call(tool, input, { signal, unbudgeted: true });
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    return result.isError ? 2 : (result.meta?.total ?? 0) > 0 ? 0 : 1;
  }
  // Where lines matched costs a scan of each: asked only when colour or JSON prints it.
  const spans = tool === 'grep' && (color || json);
  const result = await runtime.call(tool, input, {
    signal,
    unbudgeted: true,
    form: 'data',
    wording: CLI_WORDING,
    spans,
  });
  const d = result.data;
  if (result.isError || d === undefined) {
    printError(result);
    return 2;
  }
  if (d.tool === 'glob') {
    printGlob(d);
    return d.total > 0 ? 0 : 1;
  }
  if (d.tool !== 'grep') throw new Error(`${tool} answered with ${d.tool}'s data`);
  if (json) printGrepJson(d, processOut);
  else printGrepText(d, color, processOut);
  return d.totals.files > 0 ? 0 : 1;
}

function grepInput(args: ParsedArgs): Record<string, unknown> {
  const f = args.values;
  const words = [...args.positionals];
  const patterns = f.regexp?.length ? f.regexp : words.splice(0, 1);
  const [dir, ...extra] = words;
  if (patterns.length === 0 || patterns[0] === undefined)
    throw new UsageError('grep needs a pattern: mewcode grep PATTERN [path], or -e PATTERN.');
  if (extra.length)
    throw new UsageError(`grep takes a pattern and one path; unexpected "${extra[0]}". Quote a pattern with spaces.`);
  // -e (several), -F and -w become one pattern: each literal escaped, alternatives grouped, -w as \b…\b.
  const fixed = f['fixed-strings'] ?? false;
  const rewrite = patterns.length > 1 || f['word-regexp'];
  let pattern = patterns[0] as string;
  if (rewrite) {
    const alts = patterns.map((p) => (fixed ? escapeRegex(p) : p));
    pattern = alts.length > 1 ? alts.map((p) => `(?:${p})`).join('|') : (alts[0] as string);
    if (f['word-regexp']) pattern = `\\b(?:${pattern})\\b`;
  }
  const input: Record<string, unknown> = { pattern, head_limit: 0 };
  if (dir !== undefined) input.path = dir;
  if (fixed && !rewrite) input.fixed_strings = true;
  const modes = [f['files-with-matches'] && 'files_with_matches', f.count && 'count', f['output-mode']].filter(Boolean);
  if (modes.length > 1) throw new UsageError('Give one output mode: -l, -c or --output-mode.');
  if (modes[0] !== undefined) {
    if (!['content', 'files_with_matches', 'count'].includes(modes[0] as string))
      throw new UsageError(`--output-mode must be content, files_with_matches or count, not "${modes[0]}".`);
    input.output_mode = modes[0];
  }
  if (f['ignore-case']) input.case_insensitive = true;
  if (f.multiline) input.multiline = true;
  if (f['invert-match']) input.invert_match = true;
  if (f['only-matching']) input.only_matching = true;
  const maxCount = positiveInt('max-count', f['max-count']);
  if (maxCount !== undefined) input.max_count = maxCount;
  for (const [flag, key] of [
    ['context', 'context'],
    ['before', 'before'],
    ['after', 'after'],
    ['head-limit', 'head_limit'],
  ] as const) {
    const n = positiveInt(flag, f[flag], true);
    if (n !== undefined) input[key] = n;
  }
  // -T TYPE excludes the type's files: its globs negated, after the user's, so they win.
  const globs = [...(f.glob ?? [])];
  if (f['type-not']?.length) {
    const not = typeGlobs(f['type-not']);
    if ('unknown' in not) throw new UsageError(`Unknown type "${not.unknown}" for -T. Types: ${typeNames()}.`);
    globs.push(...not.globs.map((g) => `!${g}`));
  }
  if (globs.length) input.glob = globs;
  if (f.type?.length) {
    const known = typeGlobs(f.type);
    if ('unknown' in known) throw new UsageError(`Unknown type "${known.unknown}" for -t. Types: ${typeNames()}.`);
    input.type = f.type;
  }
  walkFlags(args, input);
  return input;
}

/** --hidden, --no-ignore, -u (-uu: hidden too), --include-ignored: which files the walk sees. */
function walkFlags(args: ParsedArgs, input: Record<string, unknown>): void {
  const f = args.values;
  const u = f.unrestricted?.length ?? 0;
  if (f['include-ignored']) input.include_ignored = true;
  if (f['no-ignore'] || u >= 1) input.no_ignore = true;
  if (f.hidden || u >= 2) input.hidden = true;
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
  const input: Record<string, unknown> = { pattern, limit: 0 }; // a pipe gets every path
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
