/** Output formatting shared by glob and grep: paths for the model, cut lines, and the notes line. */
import path from 'node:path';
import { charPrefix, fmtInt } from '../core/budget.ts';
import { escapeControl } from '../core/text.ts';
import { displayPath } from '../policy/sandbox.ts';

/** Matched lines longer than this many characters are cut. */
export const MAX_MATCH_LINE_CHARS = 500;

/** A result path as the model sees it: relative to the runtime root, control characters escaped. */
export const showPath = (root: string, dir: string, rel: string) =>
  escapeControl(displayPath(root, path.join(dir, rel)));

export function cutLine(text: string, partial = false): string {
  if (partial)
    return `${charPrefix(text, MAX_MATCH_LINE_CHARS)} … [truncated: the line is longer than the search buffer]`;
  if (text.length <= MAX_MATCH_LINE_CHARS) return text;
  return `${charPrefix(text, MAX_MATCH_LINE_CHARS)} … [truncated: line has ${fmtInt(text.length)} characters]`;
}

export const noteLine = (text: string) => `[note: ${text}]`;
