/**
 * String replacement for edit_file and multi_edit. Exact first: matching happens on an LF view of the
 * file, so an LF `old_string` matches in a CRLF file; the splice happens on the original text, so every
 * byte outside the replaced region stays as it was, and the replacement takes the line endings of the
 * region it replaces. An exact match that starts inside a line's indentation (or stops before its
 * trailing whitespace) while new_string is indented differently there is not spliced literally — that
 * would misplace new_string — but goes to the whole-line matcher (lib/edit/match.ts), as does an
 * old_string with no exact match at all.
 */

import type { LineEnding } from '../core/encoding.ts';
import { errValue, okValue, type Result } from '../core/result.ts';
import { quote } from '../core/text.ts';
import { fail, type ToolResult } from '../core/tool.ts';
import { MODEL_WORDING, type Wording } from '../core/wording.ts';
import { columns } from './indent.ts';
import { alsoFits, replaceLines, splitFile } from './match.ts';

export interface Replacement {
  old_string: string;
  new_string: string;
  replace_all?: boolean | undefined;
}

/** The new text, the lines the change starts at and what was tolerated, or the answer that refuses it. */
export type Replaced = Result<{ text: string; lines: number[]; notes: string[] }, ToolResult>;

export function replaceText(
  text: string,
  eol: LineEnding,
  r: Replacement,
  shown: string,
  label = 'old_string',
  w: Wording = MODEL_WORDING,
): Replaced {
  if (r.old_string === r.new_string) {
    return errValue(
      fail(
        'no_change',
        `${label} and ${w.newString} are identical, so the edit would change nothing. Give the new text in ${w.newString}.`,
      ),
    );
  }
  const view = lfView(text);
  const oldLf = r.old_string.replace(/\r\n/g, '\n');
  const newLf = r.new_string.replace(/\r\n/g, '\n');
  const starts: number[] = [];
  for (let i = view.text.indexOf(oldLf); i !== -1; i = view.text.indexOf(oldLf, i + oldLf.length)) starts.push(i);
  // A second occurrence overlapping the first (`}\n}` in `}\n}\n}`) makes the match just as ambiguous.
  const overlap = starts.length === 1 ? view.text.indexOf(oldLf, (starts[0] as number) + 1) : -1;
  if (overlap !== -1 && !r.replace_all) {
    const at = [lineOf(view.text, starts[0] as number), lineOf(view.text, overlap)];
    return errValue(
      fail(
        'not_unique',
        `${label} occurs at least twice in ${quote(shown)}, overlapping (lines ${at.join(', ')}). Include more surrounding lines so it matches once.`,
      ),
    );
  }
  const lines = starts.map((s) => lineOf(view.text, s));
  if (starts.length > 1 && !r.replace_all) {
    return errValue(
      fail(
        'not_unique',
        `${label} occurs ${starts.length} times in ${quote(shown)} (lines ${lines.join(', ')}). Include more surrounding lines so it matches once, or ${w.setReplaceAll} to change every occurrence.`,
      ),
    );
  }
  // replace_all over matches that start inside indentation (or stop before trailing whitespace) where
  // new_string is framed otherwise would misplace it at every one: refuse rather than guess per place.
  const off = starts.length > 1 ? starts.findIndex((s) => misaligned(view.text, s, oldLf, newLf)) : -1;
  if (off !== -1) {
    return errValue(
      fail(
        'no_match',
        `${label} matches ${quote(shown)} at line ${lines[off]} (one of ${starts.length} places) only from inside a line's indentation or up to before its trailing whitespace, where ${w.newString} is indented or ended differently, so replacing every occurrence literally would misplace ${w.newString}. Give ${w.oldString} and ${w.newString} the same indentation, or include the whole lines exactly as read_file shows them.`,
      ),
    );
  }
  const exact = starts[0];
  if (exact === undefined || (starts.length === 1 && misaligned(view.text, exact, oldLf, newLf))) {
    const at = exact === undefined ? undefined : (lines[0] as number) - 1;
    const block = replaceLines(splitFile(text), oldLf, newLf, label, shown, at, w);
    if (block.ok) return okValue({ text: block.value.text, lines: [block.value.start], notes: [block.value.note] });
    if (at === undefined) return errValue(fail('no_match', block.error));
    return errValue(
      fail(
        'no_match',
        `${label} matches ${quote(shown)} at line ${at + 1} only from inside a line (its indentation or text) or up to before its end, where ${w.newString} is indented differently or inserts lines around that partial line, so a literal replacement would misplace ${w.newString}. Include the whole first and last lines, with their indentation, exactly as read_file shows them.`,
      ),
    );
  }
  // Splice on the original text, back to front so earlier offsets stay valid.
  let out = text;
  for (let k = starts.length - 1; k >= 0; k--) {
    const s = view.toOriginal(starts[k] as number);
    const e = view.toOriginal((starts[k] as number) + oldLf.length);
    const region = text.slice(s, e);
    // The replacement takes the line endings of what it replaces (the file's, if that had none).
    const crlf = region.includes('\n') ? region.includes('\r\n') : eol === 'crlf';
    out = out.slice(0, s) + (crlf ? newLf.replace(/\n/g, '\r\n') : newLf) + out.slice(e);
  }
  const also = starts.length === 1 ? alsoFits(view.text, oldLf, (lines[0] as number) - 1) : undefined;
  return okValue({ text: out, lines, notes: also ? [also] : [] });
}

/**
 * An exact match that starts inside a line's indentation (or ends before its trailing whitespace)
 * where splicing would misplace new_string: its first line is indented otherwise than old_string's,
 * or lines are inserted before the first (after the last) line, or a one-line old_string becomes
 * several lines — the file's indentation would end up in front of a line written for column 0, or its
 * trailing whitespace (a Markdown line break) behind an inserted line. A partial first or last line
 * that new_string merely changes splices fine and stays exact.
 */
function misaligned(view: string, s: number, old: string, neu: string): boolean {
  const o = old.split('\n');
  const n = neu.split('\n');
  const grows = o.length === 1 && n.length > 1;
  const inserts = n.length > o.length;
  const lead = (l: string) => l.slice(0, l.length - l.trimStart().length);
  const tail = (l: string) => l.slice(l.trimEnd().length);
  const prefix = view.slice(view.lastIndexOf('\n', s - 1) + 1, s);
  const first = [n[0] as string, o[0] as string];
  // A partial first line that new_string moves down (lines inserted before it): the rest of the file's
  // line would end up in front of the first inserted line (`export function ` before a new function).
  if (prefix !== '' && n.length > 1 && n[0] !== o[0] && n.indexOf(o[0] as string) > 0) return true;
  if (prefix !== '' && prefix.trim() === '') {
    if (grows || lead(first[0] as string) !== lead(first[1] as string) || (inserts && first[0] !== first[1]))
      return true;
    // A written line left of both the first line's indentation and the block's own: written beside
    // old_string's column-0 first line, or at the file's column? In Python the two are other blocks.
    const cols = (l: string) => columns(lead(l), 4);
    const floor = Math.min(
      cols(prefix),
      ...o
        .slice(1)
        .filter((l) => l.trim() !== '')
        .map(cols),
    );
    if (n.slice(1).some((l) => l.trim() !== '' && !o.includes(l) && cols(l) < floor)) return true;
  }
  if (old.endsWith('\n')) return false;
  const e = s + old.length;
  const le = view.indexOf('\n', e);
  const suffix = view.slice(e, le === -1 ? undefined : le).replace(/\r$/, '');
  const last = [n.at(-1) as string, o.at(-1) as string];
  if (suffix === '') return false;
  // Likewise a partial last line that new_string moves up (lines inserted after it).
  const oz = o.at(-1) as string;
  if (suffix.trim() !== '')
    return n.length > 1 && n.at(-1) !== oz && n.lastIndexOf(oz) !== -1 && n.lastIndexOf(oz) < n.length - 1;
  return grows || tail(last[0] as string) !== tail(last[1] as string) || (inserts && last[0] !== last[1]);
}

/** The text with CRLF as LF, and a map from offsets in it back to the original. */
function lfView(text: string): { text: string; toOriginal: (i: number) => number } {
  if (!text.includes('\r\n')) return { text, toOriginal: (i) => i };
  const removed: number[] = []; // LF-view offsets of the '\n's that lost their '\r'
  let lf = '';
  let last = 0;
  for (let i = text.indexOf('\r\n'); i !== -1; i = text.indexOf('\r\n', i + 2)) {
    lf += text.slice(last, i);
    removed.push(lf.length);
    last = i + 1;
  }
  lf += text.slice(last);
  return {
    text: lf,
    toOriginal(i) {
      // Count removed CRs strictly before i (binary search): a match starting at a '\n' includes its CR.
      let lo = 0;
      let hi = removed.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if ((removed[mid] as number) < i) lo = mid + 1;
        else hi = mid;
      }
      return i + lo;
    },
  };
}

const lineOf = (text: string, offset: number) => {
  let n = 1;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) n++;
  return n;
};
