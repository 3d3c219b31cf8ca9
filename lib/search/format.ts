/**
 * The printer: how glob and grep results read to the model — paths, cut lines, notes about what was
 * skipped. The walker, matcher and searcher produce data; only this file words it.
 */
import { charPrefix, fmtInt, truncationMarker } from '../core/budget.ts';
import type { TextOutput } from '../core/budgeted_text.ts';
import { clipQuoted } from '../core/clip_inputs.ts';
import { displayPath } from '../core/paths.ts';
import { escapeControl, hasUnsafe, quote } from '../core/text.ts';
import { eachListed, type ShardListing } from './listing.ts';
import type { GrepFileResult, GrepMode, SkipCounts } from './shards.ts';
import type { SkipReason } from './walk.ts';

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

export const noteLine = (text: string) => `[note: ${text}]`;

/** Adds skip counts together. */
function mergeSkipped(all: readonly SkipCounts[]): SkipCounts {
  const out: SkipCounts = {};
  for (const s of all) {
    for (const [k, c] of Object.entries(s) as [SkipReason, { dirs: number; files: number }][]) {
      const t = out[k] ?? { dirs: 0, files: 0 };
      t.dirs += c.dirs;
      t.files += c.files;
      out[k] = t;
    }
  }
  return out;
}

/** A one-line account of what was skipped, or '' when nothing was. */
function describeSkipped(s: SkipCounts, verb: string): string {
  const parts: string[] = [];
  for (const [reason, c] of Object.entries(s) as [SkipReason, { dirs: number; files: number }][]) {
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
export function skipNotes(all: readonly SkipCounts[], include: string): string[] {
  const { denied, ...rest } = mergeSkipped(all);
  const notes: string[] = [];
  const skipped = describeSkipped(rest, 'skipped');
  if (skipped) notes.push(noteLine(`${skipped}; pass include_ignored: true to ${include} them`));
  const refused = denied ? describeSkipped({ denied }, 'skipped') : '';
  if (refused) notes.push(noteLine(refused));
  return notes;
}

/** What a grep found, merged from its shards. */
export interface GrepFound {
  /** Content mode: files with matches and their lines, in path order. */
  files: readonly GrepFileResult[];
  /** The other modes: each shard's listing of files with matches and their counts (listing.ts merges them). */
  listings: readonly (ShardListing | undefined)[];
  binary: number;
  unreadable: readonly { rel: string; error: string }[];
  skipped: readonly SkipCounts[];
}

export interface GrepPrintOptions {
  mode: GrepMode;
  /** Most results to print: lines in content mode, files otherwise (Infinity for all). */
  headLimit: number;
  /** Context lines were asked for, so non-adjacent groups are separated by `--` as in ripgrep. */
  withContext: boolean;
  show: (rel: string) => string;
  pattern: string;
  /** The searched path as the model sees it, for the no-match answer. */
  shown: string;
}

/** What the answer shows: files and matching lines (the shards may have found more). */
export interface GrepPrinted {
  files: number;
  matches: number;
  /** How many of the text's first lines are results; the rest are notes (the CLI sends them to stderr). */
  results: number;
}

/**
 * Prints grep results as ripgrep does, so scripts can switch between the two: `path:line:text` for
 * matches, `path-line-text` for context,
 * `path` or `path:N` in the other modes, cut at `headLimit`, then the notes. The lines go to `out`
 * one by one, joined by newlines: a whole-tree answer is never held here as one text or as an array.
 */
export function printGrep(found: GrepFound, o: GrepPrintOptions, out: TextOutput): GrepPrinted {
  const { show, headLimit } = o;
  let lines = 0;
  const line = (text: string) => out.write(lines++ === 0 ? text : `\n${text}`);
  let results = 0;
  let more = false;
  let files = 0;
  let matches = 0;
  if (o.mode !== 'content')
    eachListed(found.listings, (rel, n) => {
      if (results >= headLimit) {
        more = true;
        return false;
      }
      line(o.mode === 'count' ? `${show(rel)}:${n}` : show(rel));
      results++;
      files++;
      matches += o.mode === 'count' ? n : 1;
      return true;
    });
  outer: for (const f of o.mode === 'content' ? found.files : []) {
    let prev = -1;
    for (const l of f.lines) {
      if (results >= headLimit) {
        more = true;
        break outer;
      }
      if (o.withContext && lines > 0 && (prev === -1 || l.n !== prev + 1)) line('--');
      line(`${show(f.rel)}${l.match ? ':' : '-'}${l.n}${l.match ? ':' : '-'}${cutLine(l.text, l.partial)}`);
      if (prev === -1) files++;
      if (l.match) matches++;
      prev = l.n;
      results++;
    }
  }
  const shown = lines;
  if (shown === 0) line(`No matches for ${quote(clipQuoted(o.pattern))} in ${quote(o.shown)}.`);
  for (const note of grepNotes(found, o, more)) line(note);
  return { files, matches, results: shown };
}

function grepNotes(found: GrepFound, o: GrepPrintOptions, more: boolean): string[] {
  const notes: string[] = [];
  if (more)
    notes.push(
      truncationMarker(
        `showing the first ${fmtInt(o.headLimit)} results; more exist`,
        'raise head_limit (0 for all) or narrow pattern, path or glob',
      ),
    );
  // Skip and binary counts are only complete when the search ran to the end; a head-limited search
  // stops early (differently for each worker count), so its counts would be partial and unstable.
  if (!more) {
    notes.push(...skipNotes(found.skipped, 'search'));
    const { binary } = found;
    if (binary) notes.push(noteLine(`skipped ${binary} binary file${binary === 1 ? '' : 's'} that may match`));
  }
  const { unreadable } = found;
  if (unreadable.length)
    notes.push(
      noteLine(
        `could not read ${unreadable
          .slice(0, 5)
          .map((u) => `${o.show(u.rel)} (${u.error})`)
          .join(', ')}${unreadable.length > 5 ? `, and ${unreadable.length - 5} more` : ''}`,
      ),
    );
  return notes;
}
