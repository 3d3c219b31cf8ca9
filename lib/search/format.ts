/** Output formatting shared by glob and grep: paths for the model, cut lines, and the notes line. */
import { charPrefix, fmtInt } from '../core/budget.ts';
import { displayPath } from '../core/paths.ts';
import { escapeControl, hasUnsafe } from '../core/text.ts';

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
