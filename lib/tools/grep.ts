/**
 * grep: lines matching a JavaScript regex in the files under a path, ripgrep-style: ignore files
 * honoured, binary files skipped and counted, results sorted by path then line whatever the number of
 * workers. Runs on the main thread and fans the search out to the read lane's pool, where a pattern
 * that runs past its deadline is stopped with its worker.
 */
import path from 'node:path';
import * as v from 'valibot';
import { WholeText } from '../core/budgeted_text.ts';
import { displayPath } from '../core/paths.ts';
import type { TaskOutcome } from '../core/task_outcome.ts';
import { quote } from '../core/text.ts';
import { defineTool, fail, type ToolResult } from '../core/tool.ts';
import type { SearchContext } from '../lanes/search_context.ts';
import { badGlob, typeGlobs, typeNames } from '../search/file_types.ts';
import { MAX_MATCH_LINE_CHARS, pathShower, printGrep } from '../search/format.ts';
import { runDirect } from '../search/index/direct.ts';
import { releaseListings } from '../search/listing.ts';
import { compileRegex } from '../search/matcher.ts';
import { INLINE_MAX_FILES, inlineRunner, runSharded, type SearchRun, type ShardRunner } from '../search/parallel.ts';
import type { GrepShard, GrepShardResult } from '../search/shards.ts';
import { comparePaths } from '../search/walk.ts';
import { boundedGlob, linearPattern, NEVER_INLINE } from './_linear_pattern.ts';
import { outcomeError, searchStartKind } from './_search_common.ts';

export const DEFAULT_HEAD_LIMIT = 100;
export const MAX_CONTEXT = 50;

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
});

export const grep = defineTool({
  name: 'grep',
  lane: 'search',
  params,
  description:
    `Searches file contents for a regular expression \`pattern\` in ripgrep's syntax (Rust regex) under \`path\` (a file or directory; default: the root). ` +
    `\`output_mode\` content (default) prints "path:line:text" for matches and "path-line-text" for context lines, as ripgrep does; ` +
    `files_with_matches prints paths; count prints "path:N". Results are sorted by path then line; at most \`head_limit\` ` +
    `(default ${DEFAULT_HEAD_LIMIT}, 0 for all), with a note only when more exist. Lines over ${MAX_MATCH_LINE_CHARS} characters are cut. ` +
    `Files excluded by .gitignore, .ignore or .mewcodeignore, hidden files and binary files are skipped and counted; ` +
    `\`include_ignored\` searches them too. \`glob\` filters files ("*.ts" matches at any depth). ` +
    `A pattern that backtracks catastrophically is stopped at a deadline and reported as a timeout.`,
  access: (a) => [{ kind: 'read', path: a.path ?? '.' }],
  // biome-ignore lint/complexity/noExcessiveLinesPerFunction: being split with the structured-results rewrite
  async run(a, ctx: SearchContext): Promise<ToolResult> {
    const targetPath = ctx.paths[0];
    if (targetPath === undefined) return fail('internal', 'grep received no checked path');
    const shown = displayPath(ctx.root, targetPath);
    const start = searchStartKind(targetPath, shown);
    if (!start.ok) return start.error;
    const spec = compileRegex(a.pattern, {
      ignoreCase: a.case_insensitive ?? false,
      fixedStrings: a.fixed_strings ?? false,
      multiline: a.multiline ?? false,
    });
    if (!spec.ok)
      return fail(
        'invalid_args',
        `Invalid pattern ${quote(a.pattern)}: ${spec.error}. Escape special characters, or pass fixed_strings: true.`,
      );
    const globs = a.glob === undefined ? [] : typeof a.glob === 'string' ? [a.glob] : a.glob;
    const invalid = badGlob(globs);
    if (invalid) return fail('invalid_args', invalid);
    const types = a.type === undefined ? undefined : typeGlobs(typeof a.type === 'string' ? [a.type] : a.type);
    if (types && 'unknown' in types)
      return fail('invalid_args', `Unknown file type ${quote(types.unknown)}; the types are ${typeNames()}.`);
    const mode = a.output_mode ?? 'content';
    const headLimit = a.head_limit === 0 ? Number.POSITIVE_INFINITY : (a.head_limit ?? DEFAULT_HEAD_LIMIT);
    const includeAll = a.include_ignored ?? false;
    const filter = { ...(globs.length ? { globs } : {}), ...(types ? { types: types.globs } : {}) };
    const before = mode === 'content' ? (a.before ?? a.context ?? 0) : 0;
    const after = mode === 'content' ? (a.after ?? a.context ?? 0) : 0;
    const isFile = start.value === 'file';
    const dir = isFile ? path.dirname(targetPath) : targetPath;
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
      maxResults: headLimit + 1,
      stopAt: ctx.deadlineAt,
    };
    const walk = {
      root: dir,
      useIgnore: !(includeAll || a.no_ignore),
      hidden: includeAll || (a.hidden ?? false),
      maxDepth: Number.POSITIVE_INFINITY,
      ignoreBase: ctx.root,
      // The override is tested while planning, on this thread: only a glob that cannot run away.
      ...(globs.length && globs.every((g) => boundedGlob(g.replace(/^!/, ''))) ? { fileGlobs: globs } : {}),
      ...(ctx.readDeny ? { deny: ctx.readDeny } : {}),
    };
    // Only a pattern (and a file glob, a regex too) that provably cannot backtrack runs on this thread,
    // where nothing could stop it; any other runs in a worker under the deadline: the pool's, or,
    // without a pool, the standby one.
    const inlineAllowed =
      linearPattern(a.pattern, template.fixedStrings) &&
      [...globs, ...(filter.types ?? [])].every((g) => boundedGlob(g.replace(/^!/, '')));
    const runner = inlineAllowed ? ctx.shards : (ctx.shards ?? ctx.isolated);
    if (!runner && !inlineAllowed)
      return fail(
        'invalid_args',
        `grep cannot run ${quote(a.pattern)} here: it could backtrack without end and there is no worker to stop it at a deadline. Use fixed_strings, or a pattern without quantifiers (* + ? {}) or |.`,
      );
    // The n-gram index only rules files out; whatever it lets through is searched as without it.
    const pre = ctx.index && !isFile ? await ctx.index.prefilter({ dir, ...template, walk }) : undefined;
    const maxInline = inlineAllowed ? INLINE_MAX_FILES.grep : NEVER_INLINE;
    const run = pre?.direct
      ? await runDirect(dir, walk, template, pre.direct, runner, maxInline)
      : isFile
        ? await searchOneFile(
            { ...template, root: dir, walk, dirs: [], files: [{ rel: path.basename(targetPath), kind: 'file' }] },
            runner ?? inlineRunner,
          )
        : await runSharded<GrepShardResult>(
            dir,
            '',
            walk,
            pre?.prefilter ? { ...template, prefilter: pre.prefilter } : template,
            runner,
            maxInline,
          );
    if (!run.ok) {
      return outcomeError(
        run.error,
        'grep',
        'the pattern may backtrack catastrophically (nested quantifiers such as (a+)+, or overlapping alternatives); simplify it, use fixed_strings, or narrow path and glob.',
      );
    }
    pre?.learn?.(run.value.results, run.value.skipped);
    ctx.index?.noteSearch(
      dir,
      run.value.results.reduce((n, r) => n + r.visited, 0),
    );
    // A whole-tree answer is written through the output budget as it is printed (ctx.output), so
    // the main thread never holds its text; without a budget (the CLI) it is kept whole.
    const out = ctx.output ?? new WholeText();
    const printed = printGrep(
      {
        files:
          mode === 'content'
            ? run.value.results.flatMap((r) => r.files).sort((x, y) => comparePaths(x.rel, y.rel))
            : [],
        listings: mode === 'content' ? [] : run.value.results.map((r) => r.listed),
        binary: run.value.results.reduce((n, r) => n + r.binary, 0),
        unreadable: run.value.results.flatMap((r) => r.unreadable),
        skipped: [run.value.skipped, ...run.value.results.map((r) => r.skipped)],
      },
      {
        mode,
        headLimit,
        withContext: before > 0 || after > 0,
        show: pathShower(ctx.root, dir),
        pattern: a.pattern,
        shown,
      },
      out,
    );
    if (mode !== 'content') releaseListings(run.value.results.map((r) => r.listed));
    const index = pre ? { index: pre.index } : {};
    return out.result({
      files: printed.files,
      matches: printed.matches,
      results: printed.results,
      inline: run.value.inline,
      ...index,
    });
  },
});

async function searchOneFile(task: GrepShard, runner: ShardRunner): Promise<TaskOutcome<SearchRun<GrepShardResult>>> {
  const r = await runner.run<GrepShardResult>(task);
  return r.ok ? { ok: true, value: { results: [r.value], skipped: {}, inline: runner === inlineRunner, tasks: 1 } } : r;
}
