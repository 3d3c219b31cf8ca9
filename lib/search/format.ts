/**
 * The printer: how glob and grep results read to the model — paths, cut lines, notes about what was
 * skipped. The walker, matcher and searcher produce data; only this file words it.
 */
import { charPrefix, fmtInt } from '../core/budget.ts';
import { displayPath } from '../core/paths.ts';
import { escapeControl, hasUnsafe } from '../core/text.ts';
import type { SkipCounts } from './shards.ts';
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
