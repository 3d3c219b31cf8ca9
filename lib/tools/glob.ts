/**
 * glob: file paths matching a glob pattern under a directory, honouring ignore files, sorted by path
 * (or newest first) over all matches before the limit cuts. Runs on the main thread and fans the walk
 * out to the read lane's pool on big trees.
 */
import { realpathSync } from 'node:fs';
import path from 'node:path';
import * as v from 'valibot';
import type { GlobData, SkipTally } from '../core/answers.ts';
import { displayPath, inside } from '../core/paths.ts';
import { errValue, okValue, type Result } from '../core/result.ts';
import { quote } from '../core/text.ts';
import { defineTool, fail, ok, okData, type ToolResult } from '../core/tool.ts';
import { MODEL_WORDING, type Wording } from '../core/wording.ts';
import type { SearchContext } from '../lanes/search_context.ts';
import { globNotes, pathShower } from '../search/format.ts';
import { boundedGlob, NEVER_INLINE } from '../search/linear_pattern.ts';
import { compileGlob } from '../search/matcher.ts';
import { INLINE_MAX_FILES, runSharded, type ShardRunner } from '../search/parallel.ts';
import type { GlobShardResult } from '../search/shards.ts';
import { mergeSkipped } from '../search/skip_tally.ts';
import { comparePaths, type WalkOptions } from '../search/walk.ts';
import { outcomeError, searchStartKind } from './_search_common.ts';

const DEFAULT_LIMIT = 100;
const MAX_LIMIT = 100_000;

const params = v.strictObject({
  pattern: v.pipe(
    v.string(),
    v.minLength(1, 'pattern is empty'),
    v.description(
      'Glob relative to `path`: `**` for any depth, `{a,b}`, `[abc]`, extglob. `*.ts` matches only the top level; use `**/*.ts` for all',
    ),
  ),
  path: v.optional(
    v.pipe(v.string(), v.minLength(1), v.description('Directory to search, relative to the root (default: the root)')),
  ),
  sort: v.optional(
    v.pipe(
      v.picklist(['path', 'mtime']),
      v.description('Order: by path (default), or by modification time, newest first'),
    ),
  ),
  limit: v.optional(
    v.pipe(
      v.number(),
      v.integer(),
      v.minValue(0),
      v.maxValue(MAX_LIMIT),
      v.description(`Most paths to return; 0 means no limit (default ${DEFAULT_LIMIT})`),
    ),
  ),
  include_ignored: v.optional(
    v.pipe(
      v.boolean(),
      v.description(
        'Also list files excluded by .gitignore, .ignore and .mewcodeignore, and hidden ones (default false)',
      ),
    ),
  ),
  hidden: v.optional(v.pipe(v.boolean(), v.description('Also list hidden files (default false)'))),
  no_ignore: v.optional(v.pipe(v.boolean(), v.description('Do not honour ignore files (default false)'))),
  extension: v.optional(
    v.pipe(
      v.array(v.pipe(v.string(), v.regex(/^[^/]+$/, 'an extension has no "/"'))),
      v.minLength(1),
      v.description('Only files with one of these extensions, e.g. ["ts", "tsx"]'),
    ),
  ),
});

export const glob = defineTool({
  name: 'glob',
  lane: 'search',
  readsFiles: true,
  params,
  description:
    `Finds files whose path matches a glob \`pattern\`, relative to \`path\` (default: the root), and lists them ` +
    `relative to the root, one per line, sorted by path (or by mtime, newest first, with \`sort\`). ` +
    `Returns at most \`limit\` paths (default ${DEFAULT_LIMIT}, 0 for all); the note then gives the total. ` +
    `Files excluded by .gitignore, .ignore or .mewcodeignore, hidden files and .git are skipped and counted; ` +
    `\`include_ignored\` lists them too, and a pattern naming a dot directory (\`.github/**\`) searches it. ` +
    `Directory symlinks are never followed. No match is not an error.`,
  access: (a) => [{ kind: 'read', path: a.path ?? '.' }],
  async run(a, ctx: SearchContext): Promise<ToolResult> {
    const w = ctx.wording ?? MODEL_WORDING;
    const planned = planGlob(a, ctx, w);
    if (!planned.ok) return planned.error;
    const plan = planned.value;
    if (plan === 'none') return answerGlob(a, ctx, w, [], {});
    const run = await runSharded<GlobShardResult>(
      plan.dir,
      plan.base,
      plan.walk,
      {
        kind: 'glob',
        pattern: a.pattern,
        dot: (a.include_ignored ?? false) || (a.hidden ?? false),
        withMtime: a.sort === 'mtime',
        maxResults: Number.POSITIVE_INFINITY,
        stopAt: ctx.deadlineAt,
      },
      plan.runner,
      plan.inline ? INLINE_MAX_FILES.glob : NEVER_INLINE,
      plan.inline ? (rel, isDir) => isDir || plan.wouldMatch(rel) : undefined,
    );
    if (!run.ok)
      return outcomeError(
        run.error,
        'glob',
        'the tree is too large for the deadline, or the pattern backtracks (several * in one segment); narrow path or pattern.',
      );
    const paths = sortedPaths(a, run.value.results);
    const skipped = mergeSkipped([run.value.skipped, ...run.value.results.map((r) => r.skipped)]);
    return answerGlob(a, ctx, w, paths, skipped, run.value.inline);
  },
});

type GlobArgs = v.InferOutput<typeof params>;

interface GlobPlan {
  dir: string;
  base: string;
  walk: WalkOptions;
  runner: ShardRunner | undefined;
  inline: boolean;
  /** Whether a path would match with hidden files included: skipped hidden files are counted then. */
  wouldMatch: (rel: string) => boolean;
}

/** Checks the arguments and works out the walk; 'none' when the pattern's base cannot exist. */
function planGlob(a: GlobArgs, ctx: SearchContext, w: Wording): Result<GlobPlan | 'none', ToolResult> {
  const dir = ctx.paths[0];
  if (dir === undefined) return errValue(fail('internal', 'glob received no checked path'));
  const shown = displayPath(ctx.root, dir);
  const start = searchStartKind(dir, shown, w);
  if (!start.ok) return start;
  if (start.value === 'file')
    return errValue(
      fail(
        'invalid_args',
        `path ${quote(shown)} is a file; glob searches a directory. Read the file with ${w.readTool}.`,
      ),
    );
  const matcher = compileGlob(a.pattern);
  if (!matcher.ok) return errValue(fail('invalid_args', matcher.error));
  const { base, maxDepth, namesHidden } = matcher.value;
  const dotted = compileGlob(a.pattern, { dot: true });
  const wouldMatch = dotted.ok ? dotted.value.match : matcher.value.match;
  // Start at the pattern's literal base; it must be a real directory inside the search directory.
  if (base !== '') {
    try {
      if (!inside(realpathSync(path.join(dir, base)), dir)) return okValue('none');
    } catch {
      return okValue('none');
    }
  }
  const includeAll = a.include_ignored ?? false;
  const walk = {
    root: dir,
    useIgnore: !(includeAll || a.no_ignore),
    hidden: includeAll || (a.hidden ?? false) || namesHidden,
    maxDepth: (base === '' ? 0 : base.split('/').length) + maxDepth,
    ignoreBase: ctx.root,
    ...(ctx.readDeny ? { deny: ctx.readDeny } : {}),
    ...(ctx.gitUser ? { gitUser: ctx.gitUser } : {}),
  };
  // A glob is a regex too: one that could backtrack without bound runs only in a worker, under the
  // deadline, as one task — planning here would test it against the skipped files it counts.
  const inline = boundedGlob(a.pattern);
  const pool = ctx.shards;
  const runner = inline ? pool : pool ? { parallelism: 1, run: pool.run } : ctx.isolated;
  if (!runner && !inline)
    return errValue(
      fail(
        'invalid_args',
        `glob cannot run ${quote(a.pattern)} here: it could backtrack without end and there is no worker to stop it at a deadline. Use at most one * per path segment and one **.`,
      ),
    );
  return okValue({ dir, base, walk, runner, inline, wouldMatch });
}

/** The matched paths in the order asked for, those without one of `extension`'s endings left out. */
function sortedPaths(a: GlobArgs, results: readonly GlobShardResult[]): { rel: string; mtime: number }[] {
  const all: { rel: string; mtime: number }[] = [];
  // fd's -e: a suffix test on the name, after the pattern matched.
  const ext = a.extension?.map((e) => `.${e.replace(/^\./, '').toLowerCase()}`);
  for (const r of results) {
    for (const [i, rel] of r.paths.entries())
      if (!ext || ext.some((e) => rel.toLowerCase().endsWith(e))) all.push({ rel, mtime: r.mtimes[i] ?? 0 });
  }
  if (a.sort === 'mtime') all.sort((x, y) => y.mtime - x.mtime || comparePaths(x.rel, y.rel));
  else all.sort((x, y) => comparePaths(x.rel, y.rel));
  return all;
}

/** The answer: the paths up to the limit and the notes, as text for a model or as data. */
function answerGlob(
  a: GlobArgs,
  ctx: SearchContext,
  w: Wording,
  all: readonly { rel: string }[],
  skipped: SkipTally,
  inline?: boolean,
): ToolResult {
  const dir = ctx.paths[0] as string;
  const limit = a.limit === 0 ? Number.POSITIVE_INFINITY : (a.limit ?? DEFAULT_LIMIT);
  const show = pathShower(ctx.root, dir);
  const data: GlobData = {
    tool: 'glob',
    pattern: a.pattern,
    shown: displayPath(ctx.root, dir),
    paths: all.slice(0, limit).map((p) => show(p.rel)),
    total: all.length,
    limit,
    skipped,
  };
  const results = data.paths.length;
  // A search that found nothing says nothing of where it ran, as before there was data.
  const meta = { total: all.length, shown: results, results, ...(inline === undefined || !results ? {} : { inline }) };
  if (ctx.form === 'data') return okData(data, meta);
  return ok([...data.paths, ...globNotes(data, w)].join('\n'), meta);
}
