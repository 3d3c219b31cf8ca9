/**
 * ripgrep's flags as the grep tool's arguments: the patterns (-e, -f, the positional; -F, -w, -x, -i,
 * -S, -s), what to print (-l, -c, --count-matches), context, -m, -a, -g, -t, -T and which files the
 * walk sees. Every mistake is a UsageError. Main thread.
 */
import { readFileSync } from 'node:fs';
import { typeGlobs, typeNames } from '../search/file_types.ts';
import { type ParsedArgs, positiveInt, UsageError } from './args.ts';
import { refusedWhy } from './rg_refused.ts';

/** A literal as a regex that matches exactly it, in JavaScript's and ripgrep's syntax alike. */
const escapeRegex = (s: string) => s.replace(/[\\^$.*+?()[\]{}|]/g, '\\$&');

/** The patterns and the path, from -e, -f and the positionals; `patterns` empty: -f named no pattern. */
export function patternsAndPath(args: ParsedArgs): { patterns: string[]; path: string | undefined } {
  const f = args.values;
  const words = [...args.positionals];
  const fromFiles = (f.file ?? []).flatMap((file) => patternFile(file));
  const given = [...(f.regexp ?? []), ...fromFiles];
  const patterns = given.length || f.file?.length ? given : words.splice(0, 1);
  const [path, ...extra] = words;
  if (!f.file?.length && (patterns.length === 0 || patterns[0] === undefined))
    throw new UsageError('grep needs a pattern: mewcode grep PATTERN [path], or -e PATTERN.');
  if (extra.length)
    throw new UsageError(`grep takes a pattern and one path; unexpected "${extra[0]}". Quote a pattern with spaces.`);
  return { patterns, path };
}

/** rg -f: a pattern a line ('-': stdin); a last newline ends the last line, it starts no empty pattern. */
function patternFile(file: string): string[] {
  let text: string;
  try {
    text = readFileSync(file === '-' ? 0 : file, 'utf8');
  } catch (e) {
    throw new UsageError(`Cannot read the patterns in "${file}": ${(e as NodeJS.ErrnoException).code ?? e}.`);
  }
  if (text === '') return [];
  return text.replace(/\r?\n$/, '').split(/\r?\n/);
}

/** rg -S: a pattern with no upper-case letter (outside escapes such as \W or \p{Lu}) ignores case. */
function smartCaseFolds(patterns: readonly string[], fixed: boolean): boolean {
  const letters = (p: string) => (fixed ? p : p.replace(/\\[pP]\{[^}]*\}|\\[pP].|\\./g, ''));
  return !patterns.some((p) => /\p{Lu}/u.test(letters(p)));
}

/** -e (several), -f, -F, -w and -x as one pattern: literals escaped, alternatives grouped, -w as \b…\b, -x as ^…$. */
function onePattern(args: ParsedArgs, patterns: readonly string[], input: Record<string, unknown>): void {
  const f = args.values;
  const fixed = f['fixed-strings'] ?? false;
  const rewrite = patterns.length > 1 || f['word-regexp'] || f['line-regexp'];
  let pattern = patterns[0] as string;
  if (rewrite) {
    const alts = patterns.map((p) => (fixed ? escapeRegex(p) : p));
    pattern = alts.length > 1 ? alts.map((p) => `(?:${p})`).join('|') : (alts[0] as string);
    if (f['line-regexp']) pattern = `^(?:${pattern})$`;
    else if (f['word-regexp']) pattern = `\\b(?:${pattern})\\b`;
  }
  input.pattern = pattern;
  if (fixed && !rewrite) input.fixed_strings = true;
  const fold = f['case-sensitive'] ? false : f['ignore-case'] || (f['smart-case'] && smartCaseFolds(patterns, fixed));
  if (fold) input.case_insensitive = true;
}

/** The tool's arguments for a search of `patterns` (at least one) under `path`. */
export function grepInput(args: ParsedArgs, patterns: readonly string[], path: string | undefined) {
  const f = args.values;
  const input: Record<string, unknown> = { head_limit: 0 };
  onePattern(args, patterns, input);
  if (path !== undefined) input.path = path;
  // As rg 13: -c (or --count-matches) beats -l, whichever comes first.
  const modes = [
    f.count || f['count-matches'] ? 'count' : f['files-with-matches'] && 'files_with_matches',
    f['output-mode'],
  ].filter(Boolean);
  if (modes.length > 1) throw new UsageError('--output-mode does not combine with -l or -c: give one.');
  if (modes[0] !== undefined) {
    if (!['content', 'files_with_matches', 'count'].includes(modes[0] as string))
      throw new UsageError(`--output-mode must be content, files_with_matches or count, not "${modes[0]}".`);
    input.output_mode = modes[0];
  }
  if (f.multiline) input.multiline = true;
  if (f['invert-match']) input.invert_match = true;
  if (f.text) input.binary = 'text';
  if (f['only-matching'] || f['count-matches']) input.only_matching = true;
  const maxCount = positiveInt('max-count', f['max-count'], true); // 0: rg prints nothing
  if (maxCount !== undefined) input.max_count = maxCount;
  for (const [flag, key] of [
    ['context', 'context'],
    ['before', 'before'],
    ['before-context', 'before'],
    ['after', 'after'],
    ['after-context', 'after'],
    ['head-limit', 'head_limit'],
  ] as const) {
    const n = positiveInt(flag, f[flag], true);
    if (n !== undefined) input[key] = n;
  }
  fileFilter(args, input);
  walkFlags(args, input);
  // rg's -uuu adds --binary, refused with its reason rather than searched as -uu.
  if ((f.unrestricted?.length ?? 0) >= 3)
    throw new UsageError(`ripgrep's -uuu is -uu --binary, and --binary is not supported: ${refusedWhy('binary')}.`);
  return input;
}

/** -g, -t (`all`: every type) and -T: which files are searched, by name. */
function fileFilter(args: ParsedArgs, input: Record<string, unknown>): void {
  const f = args.values;
  // -T TYPE excludes the type's files: its globs negated, after the user's, so they win.
  const globs = [...(f.glob ?? [])];
  if (f['type-not']?.length) {
    const not = typeGlobs(allTypes(f['type-not']));
    if ('unknown' in not) throw new UsageError(`Unknown type "${not.unknown}" for -T. Types: ${typeNames()}.`);
    globs.push(...not.globs.map((g) => `!${g}`));
  }
  if (globs.length) input.glob = globs;
  if (f.type?.length) {
    const types = allTypes(f.type);
    const known = typeGlobs(types);
    if ('unknown' in known) throw new UsageError(`Unknown type "${known.unknown}" for -t. Types: ${typeNames()}.`);
    input.type = types;
  }
}

/** rg's type `all`: every type there is. */
const allTypes = (types: readonly string[]) => types.flatMap((t) => (t === 'all' ? typeNames().split(', ') : [t]));

/** --hidden, --no-ignore, -u (-uu: hidden too), --include-ignored: which files the walk sees. */
export function walkFlags(args: ParsedArgs, input: Record<string, unknown>): void {
  const f = args.values;
  const u = f.unrestricted?.length ?? 0;
  // --ignore and --no-hidden undo --no-ignore and --hidden, not -u's parts (as in rg 13).
  if (f['include-ignored']) input.include_ignored = true;
  if (f['no-ignore'] || u >= 1) input.no_ignore = true;
  if (f.hidden || u >= 2) input.hidden = true;
}
