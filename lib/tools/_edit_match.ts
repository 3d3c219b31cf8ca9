/**
 * Exact, line-ending-aware string replacement for edit_file and multi_edit. Matching happens on an
 * LF view of the file, so an LF `old_string` matches in a CRLF file; the splice happens on the original
 * text, so every byte outside the replaced region stays as it was, and the replacement takes the line
 * endings of the region it replaces. No fuzzy matching: when nothing matches, the answer explains the
 * closest candidates instead (whitespace, indentation, or simply the nearest lines).
 */

import type { LineEnding } from '../core/encoding.ts';
import { errValue, okValue, type Result } from '../core/result.ts';
import { quote } from '../core/text.ts';
import { fail, type ToolResult } from '../core/tool.ts';
import { levenshtein } from './_files.ts';

export interface Replacement {
  old_string: string;
  new_string: string;
  replace_all?: boolean | undefined;
}

/** The new text and the lines the change starts at, or the answer that refuses it. */
export type Replaced = Result<{ text: string; lines: number[] }, ToolResult>;

export function replaceExact(
  text: string,
  eol: LineEnding,
  r: Replacement,
  shown: string,
  label = 'old_string',
): Replaced {
  if (r.old_string === r.new_string) {
    return errValue(
      fail(
        'no_change',
        `${label} and new_string are identical, so the edit would change nothing. Give the new text in new_string.`,
      ),
    );
  }
  const view = lfView(text);
  const oldLf = r.old_string.replace(/\r\n/g, '\n');
  const newLf = r.new_string.replace(/\r\n/g, '\n');
  const starts: number[] = [];
  for (let i = view.text.indexOf(oldLf); i !== -1; i = view.text.indexOf(oldLf, i + oldLf.length)) starts.push(i);
  if (starts.length === 0) return errValue(fail('no_match', explainNoMatch(view.text, oldLf, shown, label)));
  const lines = starts.map((s) => lineOf(view.text, s));
  if (starts.length > 1 && !r.replace_all) {
    return errValue(
      fail(
        'not_unique',
        `${label} occurs ${starts.length} times in ${quote(shown)} (lines ${lines.join(', ')}). Include more surrounding lines so it matches once, or set replace_all: true to change every occurrence.`,
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
  return okValue({ text: out, lines });
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

const squash = (s: string) => s.replace(/\s+/g, ' ').trim();
const lead = (s: string) => /^\s*/.exec(s)?.[0] ?? '';

/** Why `old` is not in `text`, in terms the model can act on. */
export function explainNoMatch(text: string, old: string, shown: string, label = 'old_string'): string {
  const head = `${label} ${label.startsWith('the lines') ? 'were' : 'was'} not found in ${quote(shown)}.`;
  const tail =
    ' Copy the text exactly as read_file shows it (after the line number and tab), or read the file again if it may have changed since.';
  const fileLines = text.split('\n');
  const oldLines = old.split('\n');
  while (oldLines.length > 1 && oldLines.at(-1) === '') oldLines.pop();
  const first = oldLines.findIndex((l) => l.trim() !== '');
  if (first === -1) return `${head} It contains only whitespace; give the text to replace.`;
  // The same lines up to whitespace?
  for (let i = 0; i + oldLines.length <= fileLines.length; i++) {
    let all = true;
    for (let k = 0; k < oldLines.length && all; k++) all = squash(fileLines[i + k] ?? '') === squash(oldLines[k] ?? '');
    if (!all) continue;
    const range = oldLines.length === 1 ? `line ${i + 1}` : `lines ${i + 1}-${i + oldLines.length}`;
    const a = fileLines[i + first] ?? '';
    const b = oldLines[first] ?? '';
    let what = 'whitespace inside the lines';
    if (lead(a) !== lead(b)) {
      const kind = (s: string) =>
        s.includes('\t') ? (s.includes(' ') ? 'tabs and spaces' : 'tabs') : `${s.length} spaces`;
      what = `indentation: the file has ${kind(lead(a)) || 'none'} where ${label} has ${kind(lead(b)) || 'none'}`;
    } else if ((a.trimEnd() === a) !== (b.trimEnd() === b)) {
      what = 'trailing whitespace';
    }
    return `${head} ${range[0]?.toUpperCase()}${range.slice(1)} match it except for ${what}.${tail}`;
  }
  // Otherwise the lines nearest to its first line.
  const target = (oldLines[first] ?? '').trim();
  const cap = Math.max(2, Math.floor(target.length / 2));
  const scored = fileLines
    .slice(0, 50_000)
    .map((l, i) => ({
      i,
      l,
      d: Math.abs(l.trim().length - target.length) > cap ? cap + 1 : levenshtein(l.trim(), target, cap),
    }))
    .filter((c) => c.l.trim() !== '' && c.d <= cap)
    .sort((x, y) => x.d - y.d || x.i - y.i)
    .slice(0, 3);
  if (scored.length === 0) return `${head} No line resembles its first line (${quote(target.slice(0, 80))}).${tail}`;
  const list = scored.map((c) => `line ${c.i + 1}: ${quote(c.l.trim().slice(0, 120))}`).join('; ');
  return `${head} The closest lines to its first line are ${list}.${tail}`;
}
