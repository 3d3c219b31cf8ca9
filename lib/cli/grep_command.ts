/**
 * `mewcode grep`: ripgrep's flags (grep_input.ts) run as the grep tool, its whole answer printed as
 * rg prints it (grep_print.ts): lines on a terminal under a heading per file with line numbers, piped
 * `path:text`, one file searched without its path; results on stdout, notes on stderr; exit 0 found,
 * 1 nothing found, 2 an error or, as in rg, no file searched at all. The modes rg has and the tool
 * does not (-q, --files, --files-without-match, --passthru, --type-list) are made here from the
 * tool's and glob's data. Main thread.
 */
import { lstatSync } from 'node:fs';
import path from 'node:path';
import type { GrepData } from '../core/answers.ts';
import type { Runtime } from '../runtime/runtime.ts';
import { searchOnce } from '../search/dircache.ts';
import { compileFileFilter, typeGlobs, typeTable } from '../search/file_types.ts';
import { type ParsedArgs, UsageError } from './args.ts';
import { grepInput, patternsAndPath, walkFlags } from './grep_input.ts';
import { type GrepLayout, printGrepJson, printGrepText } from './grep_print.ts';
import { replaceMatches } from './grep_replace.ts';
import { colorEnabled, printError, processOut } from './output.ts';
import { CLI_WORDING } from './wording.ts';

type Input = Record<string, unknown>;
/** What the search says of where lines matched (ToolContext.spans). */
type Spans = boolean | 'groups';

export async function grepCommand(runtime: Runtime, args: ParsedArgs, signal: AbortSignal): Promise<number> {
  const f = args.values;
  if (f['type-list']) {
    processOut.stdout(
      typeTable()
        .map(([name, globs]) => `${name}: ${globs.join(', ')}\n`)
        .join(''),
    );
    return 0;
  }
  searchOnce(); // this process searches once and exits: no listing is kept for a later search
  const search = searcher(runtime, signal);
  if (f['list-files']) return listFiles(search, args);
  const { patterns, path: given } = patternsAndPath(args);
  const json = f.json ?? false;
  const input = grepInput(args, patterns, given);
  if (json && input.output_mode !== undefined && input.output_mode !== 'content')
    throw new UsageError(
      '--json prints matching lines as ripgrep does; it cannot be combined with -l, -c or --output-mode (as in rg).',
    );
  // rg -m 0, and -f naming no pattern: nothing can match, so nothing is searched or printed.
  if (input.max_count === 0 || patterns.length === 0) return 1;
  if (f.quiet) {
    const d = await search.grep({ ...input, output_mode: 'files_with_matches', head_limit: 1 }, false);
    return d === undefined ? 2 : d.totals.files > 0 ? 0 : 1;
  }
  const color = !json && colorEnabled(f.color ?? (f.pretty ? 'always' : undefined));
  // Where lines matched costs a scan of each: asked only when colour or JSON uses it; -r needs the
  // groups too. rg's JSON Lines show the lines as found, -r or not.
  const replace = json ? undefined : f.replace;
  const spans = replace !== undefined ? 'groups' : color || json;
  // As rg 13: -c beats --files-without-match, whichever comes first.
  const found =
    f['files-without-match'] && input.output_mode !== 'count'
      ? await withoutMatch(search, input)
      : f.passthru
        ? await passthru(search, input, spans)
        : await search.grep(input, spans);
  if (found === undefined) return 2;
  const d = replace === undefined ? found : replaceMatches(found, input, replace);
  // As rg: a binary file given by name that may match is said to match, on stdout (rg 'convert' mode).
  if (d.start === 'file' && d.mode === 'content' && d.firstBinary && d.totals.files === 0 && !json) {
    processOut.stdout(`binary file matches (found "\\0" byte around offset ${d.firstBinary.offset})\n`);
    return 0;
  }
  const shown = f['no-messages'] ? { ...d, skipped: {}, binary: 0, unreadable: [] } : d;
  if (json) printGrepJson(shown, processOut);
  else printGrepText(shown, layoutOf(args, d, color), processOut);
  if (d.totals.files > 0) return 0;
  // As rg: a search of the default path that searched no file at all says so, exit 2.
  if (d.searched === 0 && given === undefined) {
    processOut.stderr('No files were searched: every file was skipped (hidden, ignored, or left out by -g or -t).\n');
    return 2;
  }
  return 1;
}

/** How rg lays the lines out: its flags, else on a terminal a heading and line numbers; one file, no path. */
function layoutOf(args: ParsedArgs, d: GrepData, color: boolean): GrepLayout {
  const f = args.values;
  const tty = process.stdout.isTTY === true;
  return {
    color,
    lineNumbers: !f['no-line-number'] && (f['line-number'] || f.pretty || tty),
    withFilename: !f['no-filename'] && (f['with-filename'] || d.start === 'dir'),
    heading: !f['no-heading'] && (f.heading || f.pretty || tty),
    nul: f.null ?? false,
    trim: f.trim ?? false,
  };
}

interface Searcher {
  root: string;
  /** grep's data for `input`, or undefined once its error is printed. */
  grep(input: Input, spans: Spans): Promise<GrepData | undefined>;
  /** The files under `input.path` the walk lets through, as shown (glob's `**` + the -g/-t filter). */
  files(input: Input): Promise<string[] | undefined>;
}

function searcher(runtime: Runtime, signal: AbortSignal): Searcher {
  const call = async (tool: 'grep' | 'glob', input: Input, spans: Spans) => {
    const options = { signal, unbudgeted: true, form: 'data' as const, wording: CLI_WORDING, spans };
    const result = await runtime.call(tool, input, options);
    if (result.isError || result.data === undefined) {
      printError(result);
      return undefined;
    }
    return result.data;
  };
  return {
    root: runtime.root,
    async grep(input, spans) {
      const d = await call('grep', input, spans);
      if (d !== undefined && d.tool !== 'grep') throw new Error(`grep answered with ${d.tool}'s data`);
      return d;
    },
    async files(input) {
      const walk: Input = { pattern: '**/*', limit: 0 };
      for (const k of ['path', 'hidden', 'no_ignore', 'include_ignored'] as const)
        if (input[k] !== undefined) walk[k] = input[k];
      const d = await call('glob', walk, false);
      if (d === undefined) return undefined;
      if (d.tool !== 'glob') throw new Error(`glob answered with ${d.tool}'s data`);
      const types = input.type === undefined ? undefined : typeGlobs(input.type as string[]);
      const filter = compileFileFilter({
        ...(input.glob ? { globs: input.glob as string[] } : {}),
        ...(types && 'globs' in types ? { types: types.globs } : {}),
      });
      // glob shows paths from the root; the filter reads them from the directory searched, as grep's does.
      const prefix = d.shown === '.' ? '' : `${d.shown}/`;
      const kept = filter ? d.paths.filter((p) => filter(p.startsWith(prefix) ? p.slice(prefix.length) : p)) : d.paths;
      // glob lists symlinks; grep never searches one it walks to (rg without -L), so neither lists them.
      return kept.filter((p) => !isSymlink(path.resolve(runtime.root, p)));
    },
  };
}

/** The arguments that say which files a search reads and how, without those that say what matches or prints. */
function walkAndFilter(input: Input): Input {
  const kept: Input = { head_limit: 0 };
  // -a too: with it a binary file is searched, so it has lines and is a file searched.
  for (const k of ['path', 'glob', 'type', 'hidden', 'no_ignore', 'include_ignored', 'binary'] as const)
    if (input[k] !== undefined) kept[k] = input[k];
  return kept;
}

function isSymlink(abs: string): boolean {
  try {
    return lstatSync(abs).isSymbolicLink();
  } catch {
    return false;
  }
}

function sizeOf(abs: string): number | undefined {
  try {
    return lstatSync(abs).size;
  } catch {
    return undefined;
  }
}

/** rg --files: the files a search would read, one a line; it searches nothing, so it takes no pattern. */
async function listFiles(search: Searcher, args: ParsedArgs): Promise<number> {
  const [dir, ...extra] = args.positionals;
  if (extra.length) throw new UsageError(`--files takes one path; unexpected "${extra[0]}".`);
  const input: Input = {};
  if (dir !== undefined) input.path = dir;
  if (args.values.glob?.length) input.glob = args.values.glob;
  if (args.values.type?.length) input.type = args.values.type;
  walkFlags(args, input);
  const paths = await search.files(input);
  if (paths === undefined) return 2;
  if (paths.length) processOut.stdout(`${paths.join(args.values.null ? '\0' : '\n')}${args.values.null ? '\0' : '\n'}`);
  return paths.length ? 0 : 1;
}

/**
 * rg --files-without-match: the text files searched less those with a match. rg lists no binary
 * file, and an empty one too: the files with a line ("" matches each), and the empty ones glob lists.
 */
async function withoutMatch(search: Searcher, input: Input): Promise<GrepData | undefined> {
  if (input.output_mode !== undefined)
    throw new UsageError('--files-without-match prints paths; it does not combine with -l, -c or --output-mode.');
  const matched = await search.grep({ ...input, output_mode: 'files_with_matches' }, false);
  const text =
    matched && (await search.grep({ ...walkAndFilter(input), pattern: '', output_mode: 'files_with_matches' }, false));
  const all = text && (await search.files(input));
  if (!matched || !text || !all) return undefined;
  const hit = new Set(matched.files.map((f) => f.path));
  const lined = new Set(text.files.map((f) => f.path));
  const searched = (p: string) => lined.has(p) || sizeOf(path.resolve(search.root, p)) === 0;
  const files = all.filter((p) => !hit.has(p) && searched(p)).map((p) => ({ path: p, count: 1 }));
  const results = files.length;
  return { ...matched, files, totals: { files: results, matches: results, results }, more: false };
}

/**
 * rg --passthru: every line of every file searched, those that match as matches and the rest as
 * context: the search's matching lines laid over a search of every line ("" matches each).
 */
async function passthru(search: Searcher, input: Input, spans: Spans): Promise<GrepData | undefined> {
  if (input.output_mode !== undefined)
    throw new UsageError('--passthru prints lines; it does not combine with -l, -c or --output-mode.');
  const matched = await search.grep(input, spans);
  const every = matched && (await search.grep({ ...walkAndFilter(input), pattern: '' }, false));
  if (!matched || !every) return undefined;
  const hits = new Map(matched.lines.filter((l) => l.match).map((l) => [`${l.path}\0${l.n}`, l]));
  const lines = every.lines.map((l) => {
    const { gap: _g, ...line } = hits.get(`${l.path}\0${l.n}`) ?? { ...l, match: false };
    return line;
  });
  return { ...matched, lines };
}
