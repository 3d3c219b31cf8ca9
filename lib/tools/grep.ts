/**
 * grep: lines matching a JavaScript regex in the files under a path, ripgrep-style: ignore files
 * honoured, binary files skipped and counted (or searched as text when asked), results sorted by path then line whatever the number of
 * workers. Runs on the main thread and fans the search out to the read lane's pool, where a pattern
 * that runs past its deadline is stopped with its worker.
 */
import path from 'node:path';
import * as v from 'valibot';
import { WholeText } from '../core/budgeted_text.ts';
import { displayPath } from '../core/paths.ts';
import { errValue, okValue, type Result } from '../core/result.ts';
import type { TaskOutcome } from '../core/task_outcome.ts';
import { quote } from '../core/text.ts';
import { defineTool, fail, okData, type ToolResult } from '../core/tool.ts';
import { MODEL_WORDING, type Wording } from '../core/wording.ts';
import type { SearchContext } from '../lanes/search_context.ts';
import { badGlob, typeGlobs, typeNames } from '../search/file_types.ts';
import { MAX_MATCH_LINE_CHARS, pathShower, printGrep } from '../search/format.ts';
import { type GrepFound, grepData } from '../search/grep_results.ts';
import { runDirect } from '../search/index/direct.ts';
import type { PrefilterAnswer } from '../search/index/summary.ts';
import { boundedGlob, NEVER_INLINE } from '../search/linear_pattern.ts';
import { releaseListings } from '../search/listing.ts';
import { INLINE_MAX_FILES, inlineRunner, runSharded, type SearchRun, type ShardRunner } from '../search/parallel.ts';
import { compilePattern, type SearchPattern } from '../search/pattern.ts';
import type { GrepMode, GrepShard, GrepShardResult } from '../search/shards.ts';
import { comparePaths, type WalkOptions } from '../search/walk.ts';
import { outcomeError, searchStartKind } from './_search_common.ts';

const DEFAULT_HEAD_LIMIT = 100;
const MAX_CONTEXT = 50;

const count = (what: string) =>
  v.optional(v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(MAX_CONTEXT), v.description(what)));

const params = v.strictObject({
  pattern: v.pipe(
    v.string(),
    v.description(
      'Regular expression in ripgrep (Rust regex) syntax, or a literal with `fixed_strings`; "" matches every line',
    ),
  ),
  path: v.optional(
    v.pipe(
      v.string(),
      v.minLength(1),
      v.description('File or directory to search, relative to the root (default: the root)'),
    ),
  ),
  glob: v.optional(
    v.pipe(
      v.union([
        v.pipe(v.string(), v.minLength(1)),
        v.pipe(v.array(v.pipe(v.string(), v.minLength(1))), v.minLength(1)),
      ]),
      v.description(
        'Only files matching this glob, e.g. "*.ts" (any depth) or "src/**/*.{js,ts}"; a list: any of them, "!glob" excludes (later wins)',
      ),
    ),
  ),
  type: v.optional(
    v.pipe(
      v.union([v.string(), v.pipe(v.array(v.string()), v.minLength(1))]),
      v.description('Only files of these ripgrep types, e.g. "ts", "py", "md"'),
    ),
  ),
  output_mode: v.optional(
    v.pipe(
      v.picklist(['content', 'files_with_matches', 'count']),
      v.description('content (default): matching lines; files_with_matches: paths; count: matches per file'),
    ),
  ),
  case_insensitive: v.optional(v.pipe(v.boolean(), v.description('Ignore case (default false)'))),
  fixed_strings: v.optional(
    v.pipe(v.boolean(), v.description('Treat pattern as a literal string, not a regex (default false)')),
  ),
  context: count('Lines of context before and after each match (content mode)'),
  before: count('Lines of context before each match; overrides context'),
  after: count('Lines of context after each match; overrides context'),
  multiline: v.optional(
    v.pipe(v.boolean(), v.description('Let matches span lines; `.` still stops at a newline (default false)')),
  ),
  head_limit: v.optional(
    v.pipe(
      v.number(),
      v.integer(),
      v.minValue(0),
      v.description(`Most results (lines, or files) to return; 0 means no limit (default ${DEFAULT_HEAD_LIMIT})`),
    ),
  ),
  include_ignored: v.optional(
    v.pipe(v.boolean(), v.description('Also search files excluded by ignore files, and hidden ones (default false)')),
  ),
  hidden: v.optional(v.pipe(v.boolean(), v.description('Also search hidden files (default false)'))),
  no_ignore: v.optional(v.pipe(v.boolean(), v.description('Do not honour ignore files (default false)'))),
  invert_match: v.optional(v.pipe(v.boolean(), v.description('Return the lines that do NOT match (default false)'))),
  only_matching: v.optional(
    v.pipe(v.boolean(), v.description('Return only the matched text, one match per line (default false)')),
  ),
  max_count: v.optional(
    v.pipe(v.number(), v.integer(), v.minValue(1), v.description('At most this many matching lines per file')),
  ),
  binary: v.optional(
    v.pipe(
      v.picklist(['skip', 'text']),
      v.description(
        'Files with a NUL byte: skip (default) leaves them out and counts them; text searches them as text, printing matching lines as they are (control bytes included)',
      ),
    ),
  ),
});

export const grep = defineTool({
  name: 'grep',
  lane: 'search',
  readsFiles: true,
  params,
  description:
    `Searches file contents for a regular expression \`pattern\` in ripgrep's syntax (Rust regex) under \`path\` (a file or directory; default: the root). ` +
    `\`output_mode\` content (default) prints "path:line:text" for matches and "path-line-text" for context lines, as ripgrep does; ` +
    `files_with_matches prints paths; count prints "path:N". Results are sorted by path then line; at most \`head_limit\` ` +
    `(default ${DEFAULT_HEAD_LIMIT}, 0 for all), with a note only when more exist. Lines over ${MAX_MATCH_LINE_CHARS} characters are cut. ` +
    `Files excluded by .gitignore, .ignore or .mewcodeignore and hidden files are skipped and counted (\`include_ignored\` searches them too), ` +
    `and so are binary files (\`binary: "text"\` searches them as text). \`glob\` filters files ("*.ts" matches at any depth). ` +
    `A pattern that backtracks catastrophically is stopped at a deadline and reported as a timeout.`,
  access: (a) => [{ kind: 'read', path: a.path ?? '.' }],
  async run(a, ctx: SearchContext): Promise<ToolResult> {
    const w = ctx.wording ?? MODEL_WORDING;
    const planned = planGrep(a, ctx, w);
    if (!planned.ok) return planned.error;
    const plan = planned.value;
    const run = await runGrep(plan, ctx);
    if (!run.ok) {
      return outcomeError(
        run.error,
        'grep',
        `the pattern may backtrack catastrophically (nested quantifiers such as (a+)+, or overlapping alternatives); simplify it, use ${w.fixedStrings}, or narrow ${w.narrowFiles}.`,
      );
    }
    // A run with tasks left out (past its head limit) saw part of the tree: nothing to learn.
    if (!run.value.cut) plan.pre?.learn?.(run.value.results, run.value.skipped);
    ctx.index?.noteSearch(
      plan.dir,
      run.value.results.reduce((n, r) => n + r.visited, 0),
    );
    return answerGrep(plan, run.value, ctx, w);
  },
});

type GrepArgs = v.InferOutput<typeof params>;

/** A grep call worked out before anything is read: what to search, with which pattern, how. */
interface GrepPlan {
  args: GrepArgs;
  pattern: SearchPattern;
  /** The searched path as the reader sees it: as given, a symlink in it not resolved (as rg shows it). */
  shown: string;
  /** A result's path as the reader sees it: under the path as given (`dir` is its real path). */
  show: (rel: string) => string;
  isFile: boolean;
  /** The file's or the directory's real path. */
  target: string;
  dir: string;
  mode: GrepMode;
  headLimit: number;
  withContext: boolean;
  template: Omit<GrepShard, 'root' | 'walk' | 'dirs' | 'files'>;
  walk: WalkOptions;
  runner: ShardRunner | undefined;
  maxInline: number;
  pre?: PrefilterAnswer;
}

/** Checks the arguments and works out the search; an answer when they cannot be searched. */
function planGrep(a: GrepArgs, ctx: SearchContext, w: Wording): Result<GrepPlan, ToolResult> {
  const target = ctx.paths[0];
  if (target === undefined) return errValue(fail('internal', 'grep received no checked path'));
  // Shown as given: a directory symlink's results under its own name, not its target's (as in rg).
  const given = path.resolve(ctx.root, a.path ?? '.');
  const shown = displayPath(ctx.root, given);
  const start = searchStartKind(target, shown, w);
  if (!start.ok) return start;
  const options = {
    ignoreCase: a.case_insensitive ?? false,
    fixedStrings: a.fixed_strings ?? false,
    multiline: a.multiline ?? false,
  };
  const pattern = compilePattern(a.pattern, options);
  if (!pattern.ok)
    return errValue(
      fail(
        'invalid_args',
        `Invalid pattern ${quote(a.pattern)}: ${pattern.error}. Escape special characters, or pass ${w.setFixedStrings}.`,
      ),
    );
  const filter = fileFilter(a);
  if (!filter.ok) return filter;
  const { globs, types } = filter.value;
  const isFile = start.value === 'file';
  const dir = isFile ? path.dirname(target) : target;
  const { template, headLimit, withContext } = shardTemplate(
    a,
    ctx,
    isFile,
    { globs, ...(types ? { types } : {}) },
    pattern.value.inlineSafe,
  );
  const walk = walkOf(a, ctx, dir, globs);
  // Only a pattern (and a file glob, a regex too) that provably cannot backtrack runs on this thread,
  // where nothing could stop it; any other runs in a worker under the deadline: the pool's, or,
  // without a pool, the standby one.
  const inlineAllowed =
    pattern.value.inlineSafe && [...globs, ...(types ?? [])].every((g) => boundedGlob(g.replace(/^!/, '')));
  const runner = inlineAllowed ? ctx.shards : (ctx.shards ?? ctx.isolated);
  if (!runner && !inlineAllowed)
    return errValue(
      fail(
        'invalid_args',
        `grep cannot run ${quote(a.pattern)} here: it could backtrack without end and there is no worker to stop it at a deadline. Use ${w.fixedStrings}, or a pattern without quantifiers (* + ? {}) or |.`,
      ),
    );
  const maxInline = inlineAllowed ? INLINE_MAX_FILES.grep : NEVER_INLINE;
  const mode = template.mode;
  return okValue({
    args: a,
    pattern: pattern.value,
    shown,
    show: showUnder(ctx.root, given, isFile),
    isFile,
    target,
    dir,
    mode,
    headLimit,
    withContext,
    template,
    walk,
    runner,
    maxInline,
  });
}

/** The first binary file of the shards', which hold them in path order (one file given: that one). */
function firstOf(found: readonly ({ rel: string; offset: number } | undefined)[]) {
  const all = found.filter((b) => b !== undefined).sort((x, y) => comparePaths(x.rel, y.rel));
  return all[0] ? { firstBinary: all[0] } : {};
}

/** Results' paths under the path given; one file given is shown by the name given (a symlink's own). */
function showUnder(root: string, given: string, isFile: boolean): (rel: string) => string {
  if (!isFile) return pathShower(root, given);
  const one = pathShower(root, path.dirname(given))(path.basename(given));
  return () => one;
}

/** What every shard of the search is handed: the pattern, the line options, the file filter. */
function shardTemplate(
  a: GrepArgs,
  ctx: SearchContext,
  isFile: boolean,
  byName: { globs: string[]; types?: string[] },
  inlineSafe: boolean,
) {
  const mode = a.output_mode ?? 'content';
  const before = mode === 'content' ? (a.before ?? a.context ?? 0) : 0;
  const after = mode === 'content' ? (a.after ?? a.context ?? 0) : 0;
  const headLimit = a.head_limit === 0 ? Number.POSITIVE_INFINITY : (a.head_limit ?? DEFAULT_HEAD_LIMIT);
  const filter = {
    ...(byName.globs.length ? { globs: byName.globs } : {}),
    ...(byName.types ? { types: byName.types } : {}),
  };
  const template = {
    kind: 'grep' as const,
    pattern: a.pattern,
    ignoreCase: a.case_insensitive ?? false,
    fixedStrings: a.fixed_strings ?? false,
    multiline: a.multiline ?? false,
    before,
    after,
    mode,
    ...(Object.keys(filter).length && !isFile ? { filter } : {}),
    ...(a.invert_match ? { invert: true } : {}),
    ...(a.only_matching ? { onlyMatching: true } : {}),
    ...(a.max_count !== undefined ? { maxCount: a.max_count } : {}),
    ...(a.binary === 'text' ? { binaryAsText: true } : {}),
    ...spansAsked(a, ctx, inlineSafe),
    maxResults: headLimit + 1,
    stopAt: ctx.deadlineAt,
  };
  return { template, headLimit, withContext: before > 0 || after > 0 };
}

/**
 * Where lines matched, only when the caller prints them (an inverted search's lines hold no match).
 * For colour and JSON only with a pattern that cannot backtrack: finding every match of one that can
 * may take far longer than finding the line, and the line is worth printing without them. -r's
 * groups are asked for any pattern: a replacement needs every match, so a pattern that could
 * backtrack finds them in its worker, under the deadline. -o's lines are their matches, so there
 * only -r's groups are looked for.
 */
function spansAsked(a: GrepArgs, ctx: SearchContext, inlineSafe: boolean): { spans?: true | 'groups' } {
  if (ctx.form !== 'data' || !ctx.spans || a.invert_match) return {};
  if (ctx.spans === 'groups') return { spans: 'groups' };
  return a.only_matching || !inlineSafe ? {} : { spans: true };
}

/** Which files the walk sees: ignore files and hidden ones as asked, the read rules' denials. */
function walkOf(a: GrepArgs, ctx: SearchContext, dir: string, globs: readonly string[]): WalkOptions {
  const includeAll = a.include_ignored ?? false;
  return {
    root: dir,
    useIgnore: !(includeAll || a.no_ignore),
    hidden: includeAll || (a.hidden ?? false),
    maxDepth: Number.POSITIVE_INFINITY,
    ignoreBase: ctx.root,
    // The override is tested while planning, on this thread: only a glob that cannot run away.
    ...(globs.length && globs.every((g) => boundedGlob(g.replace(/^!/, ''))) ? { fileGlobs: [...globs] } : {}),
    ...(ctx.readDeny ? { deny: ctx.readDeny } : {}),
    ...(ctx.gitUser ? { gitUser: ctx.gitUser } : {}),
  };
}

/** The glob and type filters, checked: globs as given, types as their globs. */
function fileFilter(a: GrepArgs): Result<{ globs: string[]; types?: string[] }, ToolResult> {
  const globs = a.glob === undefined ? [] : typeof a.glob === 'string' ? [a.glob] : a.glob;
  const invalid = badGlob(globs);
  if (invalid) return errValue(fail('invalid_args', invalid));
  const types = a.type === undefined ? undefined : typeGlobs(typeof a.type === 'string' ? [a.type] : a.type);
  if (types && 'unknown' in types)
    return errValue(fail('invalid_args', `Unknown file type ${quote(types.unknown)}; the types are ${typeNames()}.`));
  return okValue(types ? { globs, types: types.globs } : { globs });
}

/** Runs the search: the files the index names, the one file asked for, or the whole tree in shards. */
async function runGrep(plan: GrepPlan, ctx: SearchContext): Promise<TaskOutcome<SearchRun<GrepShardResult>>> {
  const { dir, walk, template, runner, maxInline } = plan;
  // The n-gram index only rules files out; whatever it lets through is searched as without it.
  const pre = ctx.index && !plan.isFile ? await ctx.index.prefilter({ dir, ...template, walk }) : undefined;
  if (pre) plan.pre = pre;
  if (pre?.direct) return runDirect(dir, walk, template, pre.direct, runner, maxInline);
  if (plan.isFile)
    return searchOneFile(
      { ...template, root: dir, walk, dirs: [], files: [{ rel: path.basename(plan.target), kind: 'file' }] },
      runner ?? inlineRunner,
    );
  // A walk the index will learn from walks the whole tree even when its results stop early, within
  // half the time the call has left.
  const learnUntil = ctx.deadlineAt === undefined ? Number.POSITIVE_INFINITY : (Date.now() + ctx.deadlineAt) / 2;
  const task = pre?.prefilter
    ? { ...template, prefilter: pre.prefilter, ...(pre.walkOn ? { learnUntil } : {}) }
    : template;
  return runSharded<GrepShardResult>(dir, '', walk, task, runner, maxInline);
}

/**
 * The answer: written through the output budget as it is printed (ctx.output) when the text is for a
 * model, so the main thread never holds a whole-tree answer's text; kept whole without a budget (the
 * CLI); or the data, for a caller that prints it itself.
 */
function answerGrep(plan: GrepPlan, run: SearchRun<GrepShardResult>, ctx: SearchContext, w: Wording): ToolResult {
  const { mode } = plan;
  const found: GrepFound = {
    files: mode === 'content' ? run.results.flatMap((r) => r.files).sort((x, y) => comparePaths(x.rel, y.rel)) : [],
    listings: mode === 'content' ? [] : run.results.map((r) => r.listed),
    binary: run.results.reduce((n, r) => n + r.binary, 0),
    unreadable: run.results.flatMap((r) => r.unreadable),
    skipped: [run.skipped, ...run.results.map((r) => r.skipped)],
    ...firstOf(run.results.map((r) => r.firstBinary)),
    ...(run.results.every((r) => r.searched !== undefined)
      ? { searched: run.results.reduce((n, r) => n + (r.searched ?? 0), 0) }
      : {}),
  };
  const o = {
    mode,
    headLimit: plan.headLimit,
    withContext: plan.withContext,
    show: plan.show,
    pattern: plan.args.pattern,
    shown: plan.shown,
  };
  const index = plan.pre ? { index: plan.pre.index } : {};
  try {
    if (ctx.form === 'data') {
      const data = grepData(found, o, plan.args.only_matching ?? false, plan.isFile ? 'file' : 'dir');
      return okData(data, { ...data.totals, inline: run.inline, ...index });
    }
    const out = ctx.output ?? new WholeText();
    const printed = printGrep(found, o, out, w);
    return out.result({ ...printed, inline: run.inline, ...index });
  } finally {
    if (mode !== 'content') releaseListings(run.results.map((r) => r.listed));
  }
}

async function searchOneFile(task: GrepShard, runner: ShardRunner): Promise<TaskOutcome<SearchRun<GrepShardResult>>> {
  const r = await runner.run<GrepShardResult>(task);
  return r.ok ? { ok: true, value: { results: [r.value], skipped: {}, inline: runner === inlineRunner, tasks: 1 } } : r;
}
