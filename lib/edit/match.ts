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
import { MODEL_WORDING, type Wording } from '../core/wording.ts';
import { closeTo, type FileLines, type Fit, fileLines, searchBlocks } from './block.ts';
import { explainAmbiguous, explainMiss, formNotes, lineRange } from './explain.ts';
import type { Frames, Names } from './frame.ts';
import { describeShift } from './indent.ts';
import { fixKinds, lineKey } from './normalize.ts';
import { replaceBlock } from './rewrite.ts';
import { hasLiteralNewlines, looksNumbered, type Reading, readings } from './variants.ts';

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
interface SplitFile {
  raw: string[];
  file: FileLines;
}

export function splitFile(text: string): SplitFile {
  const raw = text.split('\n');
  return { raw, file: fileLines(raw.map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l))) };
}

/** A block replaced: the new text, the 1-based lines it now covers, and what was tolerated. */
interface BlockEdit {
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
  w: Wording = MODEL_WORDING,
): Result<BlockEdit, string> {
  const { raw, file } = split;
  let ambiguous: string | undefined;
  let escapes: string | undefined;
  const all = readings(old, neu);
  let best = all.at(-1) as Reading;
  for (const r of all) {
    const { fits, near } = searchBlocks(file, r.old);
    if (fits.length === 0) {
      // Missing by one line, or a one-line old_string with `\n` close to a line of the file (a string
      // literal that changed): the literal reading names a real place, so a later reading (line numbers
      // stripped, `\n` split) must not pick another.
      const close = r.undid === undefined && hasLiteralNewlines(old) ? closeLine(file, r.old[0] as string) : undefined;
      if (close !== undefined)
        escapes = `Line ${close + 1} is close to it as one line, so its \\n is likely an escape in the code, not a line break.`;
      if (near.length > 0 || close !== undefined) {
        best = r;
        break;
      }
      continue;
    }
    const fit = fits[0] as Fit;
    // In a file whose own rows start with digits and a tab, "line numbers" may be its data: they must
    // then name the very line the block fits at.
    const elsewhere = r.numbered !== undefined && r.numbered !== fit.at + 1 && looksNumbered(file.bare);
    const sure =
      !elsewhere &&
      (exactLine !== undefined ? fits.length === 1 && fit.at === exactLine : fits.length === 1 && near.length === 0);
    if (!sure) {
      // Several places fit this reading: a later, looser one must not pick one of its own.
      ambiguous = elsewhere
        ? `Without what look like read_file's line numbers it fits ${lineRange(fit.at + 1, fit.at + r.old.length)}, but they say line ${r.numbered}, and this file's own lines start with digits and a tab, so it was not applied. Copy the lines exactly as they are in the file.`
        : explainAmbiguous(fits, near, r.old.length, tolerated(fit, r.undid));
      break;
    }
    const edit = apply(raw, file, fit, r, { old: label, neu: w.newString });
    if (edit.ok) return okValue(edit.value);
    const where = `${label} fits ${JSON.stringify(shown)} only at ${lineRange(fit.at + 1, fit.at + r.old.length)} ignoring ${tolerated(fit, r.undid)}`;
    if (edit.error !== undefined)
      return errValue(
        `${where}, but ${edit.error}, so it was not applied. Give ${w.newString}'s unchanged lines exactly as the file has them (as read_file shows them).`,
      );
    return errValue(
      `${where}, but ${w.newString} cannot be placed there for sure: a line it writes would land left of the block's indentation (or of column 0), or a rewritten line would lose characters the file has there (\\", non-breaking spaces, curly quotes) that ${label} lacks. Copy those lines exactly as read_file shows them, with their indentation.`,
    );
  }
  const head = `${label} was not found in ${JSON.stringify(shown)}.`;
  const notes = formNotes(old, label);
  const tail =
    'Copy the text exactly as read_file shows it (after the line number and tab), or read the file again if it may have changed since.';
  if (ambiguous) return errValue([head, ...notes, ambiguous].join(' '));
  const lead = [head, ...notes, ...(escapes ? [escapes] : [])].join(' ');
  return errValue(`${lead} ${explainMiss(file, best.old, label, shown)}${tail}`);
}

/** The first line of the file with a `\\n` escape within a few edits of `line` (trimmed), or undefined. */
function closeLine(file: FileLines, line: string): number | undefined {
  const key = lineKey(line);
  const cap = Math.max(2, Math.floor(key.length * 0.3));
  // Only a line that itself holds a `\n` escape: the string literal the model copied, since changed.
  const i = file.keys.findIndex(
    (k) => k.includes('\\n') && Math.abs(k.length - key.length) <= cap && closeTo(k, key, cap),
  );
  return i === -1 ? undefined : i;
}

function apply(
  raw: readonly string[],
  file: FileLines,
  fit: Fit,
  r: Reading,
  names: Names,
): Result<BlockEdit, string | undefined> {
  const done = replaceBlock(raw, file.bare, fit, r.old, r.neu, names);
  if (!done.ok) return done;
  const { lines, frames } = done.value;
  const text = [...raw.slice(0, fit.at), ...lines, ...raw.slice(fit.at + r.old.length)].join('\n');
  const start = fit.at + 1;
  const end = fit.at + Math.max(1, lines.length);
  return okValue({
    text,
    start,
    end,
    note: `matched ignoring ${tolerated(fit, r.undid)}; applied at ${lineRange(start, end)}${framing(fit, frames, names)}`,
  });
}

/**
 * Whether new_string was shifted like old_string, when old_string's indentation was off the file's by
 * some columns (tabs for spaces at the same depth re-render alike either way, so say nothing).
 */
function framing(fit: Fit, frames: Frames, names: Names): string {
  if ((fit.shift.same || fit.shift.delta === 0) && fit.shift.firstLead === undefined) return '';
  return frames.lead === 'old'
    ? `; ${names.neu} was written like ${names.old}, so its new lines were shifted likewise`
    : `; ${names.neu} was already at the file's indentation, so it was not shifted`;
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
