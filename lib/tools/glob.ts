/**
 * glob: file paths matching a glob pattern under a directory, honouring ignore files, sorted by path
 * (or newest first) over all matches before the limit cuts. Runs on the main thread and fans the walk
 * out to the read lane's pool on big trees.
 */
import { realpathSync } from 'node:fs';
import path from 'node:path';
import * as v from 'valibot';
import { fmtInt, truncationMarker } from '../core/budget.ts';
import { displayPath, inside } from '../core/paths.ts';
import { quote } from '../core/text.ts';
import { defineTool, fail, ok, type ToolResult } from '../core/tool.ts';
import type { SearchContext } from '../lanes/search_context.ts';
import { pathShower, skipNotes } from '../search/format.ts';
import { compileGlob } from '../search/matcher.ts';
import { INLINE_MAX_FILES, runSharded } from '../search/parallel.ts';
import type { GlobShardResult } from '../search/shards.ts';
import { comparePaths } from '../search/walk.ts';
import { boundedGlob, NEVER_INLINE } from './_linear_pattern.ts';
import { outcomeError, searchStartKind } from './_search_common.ts';

export const DEFAULT_LIMIT = 100;
export const MAX_LIMIT = 100_000;

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
  params,
  description:
    `Finds files whose path matches a glob \`pattern\`, relative to \`path\` (default: the root), and lists them ` +
    `relative to the root, one per line, sorted by path (or by mtime, newest first, with \`sort\`). ` +
    `Returns at most \`limit\` paths (default ${DEFAULT_LIMIT}, 0 for all); the note then gives the total. ` +
    `Files excluded by .gitignore, .ignore or .mewcodeignore, hidden files and .git are skipped and counted; ` +
    `\`include_ignored\` lists them too, and a pattern naming a dot directory (\`.github/**\`) searches it. ` +
    `Directory symlinks are never followed. No match is not an error.`,
  access: (a) => [{ kind: 'read', path: a.path ?? '.' }],
  // biome-ignore lint/complexity/noExcessiveLinesPerFunction: being split with the structured-results rewrite
  async run(a, ctx: SearchContext): Promise<ToolResult> {
    const dir = ctx.paths[0];
    if (dir === undefined) return fail('internal', 'glob received no checked path');
    const shown = displayPath(ctx.root, dir);
    const start = searchStartKind(dir, shown);
    if (!start.ok) return start.error;
    if (start.value === 'file')
      return fail(
        'invalid_args',
        `path ${quote(shown)} is a file; glob searches a directory. Read the file with read_file.`,
      );
    const matcher = compileGlob(a.pattern);
    if (!matcher.ok) return fail('invalid_args', matcher.error);
    const { base, maxDepth, namesHidden } = matcher.value;
    // Skipped hidden files are counted when they would match with hidden files included.
    const dotted = compileGlob(a.pattern, { dot: true });
    const wouldMatch = dotted.ok ? dotted.value.match : matcher.value.match;
    const limit = a.limit === 0 ? Number.POSITIVE_INFINITY : (a.limit ?? DEFAULT_LIMIT);
    const none = () => noMatch(a.pattern, shown, '');
    // Start at the pattern's literal base; it must be a real directory inside the search directory.
    if (base !== '') {
      try {
        if (!inside(realpathSync(path.join(dir, base)), dir)) return none();
      } catch {
        return none();
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
    };
    // A glob is a regex too: one that could backtrack without bound runs only in a worker, under the
    // deadline, as one task — planning here would test it against the skipped files it counts.
    const inlineAllowed = boundedGlob(a.pattern);
    const pool = ctx.shards;
    const runner = inlineAllowed ? pool : pool ? { parallelism: 1, run: pool.run } : ctx.isolated;
    if (!runner && !inlineAllowed)
      return fail(
        'invalid_args',
        `glob cannot run ${quote(a.pattern)} here: it could backtrack without end and there is no worker to stop it at a deadline. Use at most one * per path segment and one **.`,
      );
    const run = await runSharded<GlobShardResult>(
      dir,
      base,
      walk,
      {
        kind: 'glob',
        pattern: a.pattern,
        dot: includeAll || (a.hidden ?? false),
        withMtime: a.sort === 'mtime',
        maxResults: Number.POSITIVE_INFINITY,
        stopAt: ctx.deadlineAt,
      },
      runner,
      inlineAllowed ? INLINE_MAX_FILES.glob : NEVER_INLINE,
      inlineAllowed ? (rel, isDir) => isDir || wouldMatch(rel) : undefined,
    );
    if (!run.ok)
      return outcomeError(
        run.error,
        'glob',
        'the tree is too large for the deadline, or the pattern backtracks (several * in one segment); narrow path or pattern.',
      );
    const all: { rel: string; mtime: number }[] = [];
    // fd's -e: a suffix test on the name, after the pattern matched.
    const ext = a.extension?.map((e) => `.${e.replace(/^\./, '').toLowerCase()}`);
    for (const r of run.value.results) {
      for (const [i, rel] of r.paths.entries())
        if (!ext || ext.some((e) => rel.toLowerCase().endsWith(e))) all.push({ rel, mtime: r.mtimes[i] ?? 0 });
    }
    if (a.sort === 'mtime') all.sort((x, y) => y.mtime - x.mtime || comparePaths(x.rel, y.rel));
    else all.sort((x, y) => comparePaths(x.rel, y.rel));
    const skippedNote = skipNotes([run.value.skipped, ...run.value.results.map((r) => r.skipped)], 'include').join(
      '\n',
    );
    if (all.length === 0) return noMatch(a.pattern, shown, skippedNote);
    const show = pathShower(ctx.root, dir);
    const lines = all.slice(0, limit).map((p) => show(p.rel));
    if (all.length > limit) {
      lines.push(
        truncationMarker(
          `showing ${fmtInt(limit)} of ${fmtInt(all.length)} paths`,
          'raise limit or narrow the pattern',
        ),
      );
    }
    if (skippedNote) lines.push(skippedNote);
    const results = Math.min(limit, all.length);
    return ok(lines.join('\n'), { total: all.length, shown: results, results, inline: run.value.inline });
  },
});

function noMatch(pattern: string, shown: string, note: string): ToolResult {
  const hint =
    !pattern.includes('/') && !pattern.startsWith('**')
      ? ` A pattern without "/" matches only the top level; try "**/${pattern}".`
      : '';
  return ok(`No files match ${quote(pattern)} in ${quote(shown)}.${hint}${note ? `\n${note}` : ''}`, {
    total: 0,
    shown: 0,
    results: 0,
  });
}
