/**
 * The whole-line matcher behind edit_file, multi_edit and apply_patch, used when old_string has no
 * exact, line-aligned match. It applies only when one block of the file fits old_string up to
 * differences that cannot change meaning (trailing whitespace, one uniform indentation shift, tabs
 * for spaces, typographic quotes and dashes, NBSP and zero-width characters, `\"`, literal `\n`,
 * read_file's line numbers), no other block fits, and none misses by a single line. Otherwise it
 * refuses, naming the closest place. Never across blank lines added or dropped, elisions or a
 * changed token: those are real differences.
 */
import { errValue, okValue, type Result } from '../core/result.ts';
import { type FileLines, type Fit, fileLines, searchBlocks } from './block.ts';
import { explainAmbiguous, explainMiss, formNotes, lineRange } from './explain.ts';
import { describeShift } from './indent.ts';
import { fixKinds } from './normalize.ts';
import { replaceBlock } from './rewrite.ts';
import { type Reading, readings } from './variants.ts';

/** What a fit tolerated, in words: "trailing whitespace, indentation (2 spaces less)". */
export function tolerated(fit: Fit, undid?: string): string {
  const parts: string[] = [];
  if (undid) parts.push(undid);
  const shift = describeShift(fit.shift);
  if (shift) parts.push(`indentation (${shift})`);
  if (fit.trailing) parts.push('trailing whitespace');
  parts.push(...fixKinds(fit.fixes));
  return parts.join(', ') || 'nothing';
}

/** The file split into raw lines (CR kept) and indexed bare lines. */
export interface SplitFile {
  raw: string[];
  file: FileLines;
}

export function splitFile(text: string): SplitFile {
  const raw = text.split('\n');
  return { raw, file: fileLines(raw.map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l))) };
}

/** A block replaced: the new text, the 1-based lines it now covers, and what was tolerated. */
export interface BlockEdit {
  text: string;
  start: number;
  end: number;
  note: string;
}

/**
 * Replaces the one block old_string fits. `exactLine` (0-based) is where an exact but misaligned
 * match started: then that block must be the one that fits.
 */
export function replaceLines(
  split: SplitFile,
  old: string,
  neu: string,
  label: string,
  shown: string,
  exactLine?: number,
): Result<BlockEdit, string> {
  const { raw, file } = split;
  let ambiguous: string | undefined;
  const all = readings(old, neu);
  for (const r of all) {
    const { fits, near } = searchBlocks(file, r.old);
    if (fits.length === 0) continue;
    const fit = fits[0] as Fit;
    const sure =
      exactLine !== undefined ? fits.length === 1 && fit.at === exactLine : fits.length === 1 && near.length === 0;
    if (!sure) {
      ambiguous ??= explainAmbiguous(fits, near, r.old.length, tolerated(fit, r.undid));
      continue;
    }
    return okValue(apply(raw, file, fit, r));
  }
  const head = `${label} was not found in ${JSON.stringify(shown)}.`;
  const notes = formNotes(old, label);
  const tail =
    'Copy the text exactly as read_file shows it (after the line number and tab), or read the file again if it may have changed since.';
  if (ambiguous) return errValue([head, ...notes, ambiguous].join(' '));
  const best = all.at(-1) as Reading;
  return errValue(`${[head, ...notes].join(' ')} ${explainMiss(file, best.old, label, shown)}${tail}`);
}

function apply(raw: readonly string[], file: FileLines, fit: Fit, r: Reading): BlockEdit {
  const lines = replaceBlock(raw, file.bare, fit, r.old, r.neu);
  const text = [...raw.slice(0, fit.at), ...lines, ...raw.slice(fit.at + r.old.length)].join('\n');
  const start = fit.at + 1;
  const end = fit.at + Math.max(1, lines.length);
  return { text, start, end, note: `matched ignoring ${tolerated(fit, r.undid)}; applied at ${lineRange(start, end)}` };
}

/** Other blocks that old_string's lines fit up to whitespace, for an exact match's answer. */
export function alsoFits(text: string, old: string, exactLine: number): string | undefined {
  const r = readings(old, '')[0] as Reading;
  if (r.old.length < 2) return undefined;
  // Cheap first: another fit needs old_string's longest line, trimmed, a second time in the text.
  const longest = r.old.reduce((a, b) => (b.trim().length > a.length ? b.trim() : a), '');
  const once = text.indexOf(longest);
  if (longest === '' || text.indexOf(longest, once + 1) === -1) return undefined;
  const { fits } = searchBlocks(splitFile(text).file, r.old);
  const others = fits.filter((f) => f.at !== exactLine);
  if (others.length === 0) return undefined;
  const list = others.slice(0, 3).map((f) => lineRange(f.at + 1, f.at + r.old.length));
  return `the text also matches ${list.join('; ')} up to whitespace; check that line ${exactLine + 1} is the place you meant`;
}
