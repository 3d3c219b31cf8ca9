/**
 * The model's printer: how glob and grep results read to a model — paths, cut lines, notes about what
 * was skipped. The walker, matcher and searcher produce data (grep_results.ts gathers grep's); this
 * file words it. The notes take the reader's `Wording`, so the command line's printer (lib/cli) words
 * the same notes with its flags.
 */
import type { GlobData, SkipTally } from '../core/answers.ts';
import { charPrefix, fmtInt, truncationMarker } from '../core/budget.ts';
import type { TextOutput } from '../core/budgeted_text.ts';
import { clipQuoted } from '../core/clip_inputs.ts';
import { displayPath } from '../core/paths.ts';
import { escapeControl, hasUnsafe, quote } from '../core/text.ts';
import type { Wording } from '../core/wording.ts';
import { eachGrepResult, type GrepFound, type GrepPrinted, type GrepPrintOptions } from './grep_results.ts';
import { mergeSkipped } from './skip_tally.ts';

/** Matched lines longer than this many characters are cut. */
export const MAX_MATCH_LINE_CHARS = 500;

/**
 * A function that shows result paths (relative to `dir`) as the model sees them: relative to the
 * runtime root, control characters escaped. The prefix is computed once, not per path.
 */
export function pathShower(root: string, dir: string): (rel: string) => string {
  const shown = displayPath(root, dir);
  const prefix = shown === '.' ? '' : shown.endsWith('/') ? shown : `${shown}/`;
  return (rel) => (hasUnsafe(rel) ? escapeControl(prefix + rel) : prefix + rel);
}

export function cutLine(text: string, partial = false): string {
  if (partial)
    return `${charPrefix(text, MAX_MATCH_LINE_CHARS)} … [truncated: the line is longer than the search buffer]`;
  if (text.length <= MAX_MATCH_LINE_CHARS) return text;
  return `${charPrefix(text, MAX_MATCH_LINE_CHARS)} … [truncated: line has ${fmtInt(text.length)} characters]`;
}

const noteLine = (text: string) => `[note: ${text}]`;

/** A one-line account of what was skipped, or '' when nothing was. */
function describeSkipped(s: SkipTally, verb: string): string {
  const parts: string[] = [];
  for (const [reason, c] of Object.entries(s) as [string, { dirs: number; files: number }][]) {
    const what = [
      c.dirs ? `${c.dirs} director${c.dirs === 1 ? 'y' : 'ies'}` : '',
      c.files ? `${c.files} file${c.files === 1 ? '' : 's'}` : '',
    ]
      .filter(Boolean)
      .join(' and ');
    if (what)
      parts.push(
        `${what} ${reason === 'hidden' ? 'hidden' : reason === 'denied' ? 'denied by the permissions' : `by ${reason}`}`,
      );
  }
  return parts.length ? `${verb} ${parts.join('; ')}` : '';
}

/** The notes about skipped entries: ignored and hidden ones say how to include them; denied ones cannot be. */
function skipNotes(tally: SkipTally, include: string, w: Wording): string[] {
  const { denied, ...rest } = tally;
  const notes: string[] = [];
  const skipped = describeSkipped(rest, 'skipped');
  if (skipped) notes.push(noteLine(`${skipped}; pass ${w.includeIgnored} to ${include} them`));
  const refused = denied ? describeSkipped({ denied }, 'skipped') : '';
  if (refused) notes.push(noteLine(refused));
  return notes;
}

/**
 * Prints grep results as ripgrep does, so scripts can switch between the two: `path:line:text` for
 * matches, `path-line-text` for context, `path` or `path:N` in the other modes, cut at `headLimit`,
 * then the notes. The lines go to `out` one by one, joined by newlines: a whole-tree answer is never
 * held here as one text or as an array.
 */
export function printGrep(found: GrepFound, o: GrepPrintOptions, out: TextOutput, w: Wording): GrepPrinted {
  let lines = 0;
  const line = (text: string) => out.write(lines++ === 0 ? text : `\n${text}`);
  const printed = eachGrepResult(found, o, (r) => {
    if ('count' in r) line(o.mode === 'count' ? `${r.path}:${r.count}` : r.path);
    else {
      if (r.gap) line('--');
      line(grepLine(r.path, r.n, r.match, cutLine(r.text, r.partial)));
    }
  });
  const notes = grepNotes(
    {
      pattern: o.pattern,
      shown: o.shown,
      more: printed.more,
      headLimit: o.headLimit,
      skipped: mergeSkipped(found.skipped),
      binary: found.binary,
      unreadable: found.unreadable.map((u) => ({ path: o.show(u.rel), error: u.error })),
      totals: printed,
    },
    w,
  );
  // The CLI once sent a text's first `results` lines to stdout: they count the `--` separators too.
  const resultLines = lines;
  for (const note of notes) line(note);
  return { files: printed.files, matches: printed.matches, results: resultLines };
}

/** One result line of content mode, as ripgrep prints it: `:` around a match's number, `-` around context's. */
export const grepLine = (path: string, n: number | string, match: boolean, shownText: string) =>
  `${path}${match ? ':' : '-'}${n}${match ? ':' : '-'}${shownText}`;

/** What grep's notes are made from: the data's own fields (core/answers.ts). */
interface GrepNoteFacts {
  pattern: string;
  shown: string;
  more: boolean;
  headLimit: number;
  skipped: SkipTally;
  binary: number;
  unreadable: readonly { path: string; error: string }[];
  totals: { results: number };
}

/** The lines after grep's results: nothing found, more exist, what was skipped or could not be read. */
export function grepNotes(f: GrepNoteFacts, w: Wording): string[] {
  const notes: string[] = [];
  if (f.totals.results === 0) notes.push(`No matches for ${quote(clipQuoted(f.pattern))} in ${quote(f.shown)}.`);
  if (f.more)
    notes.push(
      truncationMarker(
        `showing the first ${fmtInt(f.headLimit)} results; more exist`,
        `raise ${w.headLimit} (0 for all) or narrow ${w.narrowSearch}`,
      ),
    );
  // Skip and binary counts are only complete when the search ran to the end; a head-limited search
  // stops early (differently for each worker count), so its counts would be partial and unstable.
  if (!f.more) {
    notes.push(...skipNotes(f.skipped, 'search', w));
    const { binary } = f;
    const them = binary === 1 ? 'it' : 'them';
    if (binary)
      notes.push(
        noteLine(
          `skipped ${binary} binary file${binary === 1 ? '' : 's'} that may match; pass ${w.binaryText} to search ${them} as text`,
        ),
      );
  }
  const { unreadable } = f;
  if (unreadable.length)
    notes.push(
      noteLine(
        `could not read ${unreadable
          .slice(0, 5)
          .map((u) => `${u.path} (${u.error})`)
          .join(', ')}${unreadable.length > 5 ? `, and ${unreadable.length - 5} more` : ''}`,
      ),
    );
  return notes;
}

/** What glob's notes are made from: its data's own fields (core/answers.ts). */
type GlobNoteFacts = Pick<GlobData, 'pattern' | 'shown' | 'paths' | 'total' | 'limit' | 'skipped'>;

/**
 * The lines after glob's paths: more exist, what was skipped; or, when nothing matched, the one line
 * saying so (with a hint when the pattern could only match the top level) and what was skipped.
 */
export function globNotes(d: GlobNoteFacts, w: Wording): string[] {
  const skipped = skipNotes(d.skipped, 'include', w).join('\n');
  if (d.total === 0) {
    const hint =
      !d.pattern.includes('/') && !d.pattern.startsWith('**')
        ? ` A pattern without "/" matches only the top level; try "**/${d.pattern}".`
        : '';
    return [`No files match ${quote(d.pattern)} in ${quote(d.shown)}.${hint}${skipped ? `\n${skipped}` : ''}`];
  }
  const notes: string[] = [];
  if (d.total > d.limit)
    notes.push(
      truncationMarker(
        `showing ${fmtInt(d.limit)} of ${fmtInt(d.total)} paths`,
        `raise ${w.limit} or narrow the pattern`,
      ),
    );
  if (skipped) notes.push(skipped);
  return notes;
}
