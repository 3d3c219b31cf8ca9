/**
 * How the approval prompt draws what it asks about, so that what the user approves is exactly what
 * will run: the whole text, wrapped to the terminal's width (every row fits, none is cut), every
 * character that could hide or reorder text escaped visibly, and long runs of spaces counted. Pure
 * functions: prompt.ts writes their output. Main thread.
 */
import { escapeControl } from '../core/text.ts';

/** A run of this many spaces or more is drawn as `␠×N`: it cannot push the rest of a line out of sight. */
export const SPACE_RUN = 16;
/** Combining marks kept on one character; more are escaped (a stack of them can draw over other rows). */
const MAX_MARKS = 2;

// What escapeControl leaves alone but still hides or spoofs text on a terminal: other format
// characters (soft hyphen, U+2065, interlinear annotations, musical formatting, U+E0001), other
// controls, surrogates, private-use and unassigned code points, line and paragraph separators,
// spaces that are not U+0020 (no-break, en/em, ideographic, U+2800 braille blank), the combining
// grapheme joiner, Khmer inherent vowels, Mongolian variation selectors and all variation selectors.
const MORE_UNSAFE =
  // biome-ignore lint/suspicious/noMisleadingCharacterClass: tested one code point at a time, U+034F alone
  /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\u00a0\u034f\u1680\u17b4\u17b5\u180b-\u180f\u2000-\u200a\u202f\u205f\u2800\u3000\ufe00-\ufe0f\u{e0100}-\u{e01ef}]/u;
const MARK = /\p{M}/u;
// Characters a terminal draws two columns wide (CJK, Hangul syllables, fullwidth forms, most emoji).
const WIDE =
  /[\u1100-\u115f\u2e80-\u303e\u3041-\u33ff\u3400-\u4dbf\u4e00-\u9fff\ua000-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6\u{1f300}-\u{1f64f}\u{1f900}-\u{1f9ff}\u{20000}-\u{3fffd}]/u;

/** One drawn piece of a line: a character (with its combining marks), an escape, or a counted run of spaces. */
interface Cell {
  text: string;
  width: number;
  plain: boolean;
}

const hex = (c: string) => {
  const code = c.codePointAt(0) as number;
  return code > 0xffff ? `\\u{${code.toString(16)}}` : `\\u${code.toString(16).padStart(4, '0')}`;
};

/** The cells of one line (no `\n` in it: callers split lines first, or let it be escaped). */
function cells(line: string): Cell[] {
  const out: Cell[] = [];
  let spaces = 0;
  let marks = 0;
  const flush = () => {
    if (spaces >= SPACE_RUN) out.push({ text: `␠×${spaces}`, width: 2 + String(spaces).length, plain: false });
    else for (let i = 0; i < spaces; i++) out.push({ text: ' ', width: 1, plain: false });
    spaces = 0;
  };
  for (const ch of line) {
    if (ch === ' ') {
      spaces++;
      continue;
    }
    flush();
    const escaped = escapeControl(ch);
    if (escaped !== ch || MORE_UNSAFE.test(ch)) {
      const text = escaped !== ch ? escaped : hex(ch);
      out.push({ text, width: text.length, plain: false });
      continue;
    }
    const last = out[out.length - 1];
    if (MARK.test(ch)) {
      if (last?.plain && marks < MAX_MARKS) {
        last.text += ch;
        marks++;
      } else out.push({ text: hex(ch), width: 6, plain: false });
      continue;
    }
    marks = 0;
    out.push({ text: ch, width: WIDE.test(ch) ? 2 : 1, plain: true });
  }
  flush();
  return out;
}

/** The whole line made safe to draw, unwrapped. */
export function visible(line: string): string {
  return cells(line)
    .map((c) => c.text)
    .join('');
}

/**
 * `line` made safe and wrapped into rows of at most `width` columns: the first row starts with
 * `first`, the others with `rest` (both count towards the width). Never drops a character. With
 * `words`, prose breaks after a space where it can; commands and diffs break exactly at the width, so
 * a row ends where the text does.
 */
export function wrap(line: string, width: number, first = '', rest = first, words = false): string[] {
  const rows: Cell[][] = [[]];
  let used = columns(first);
  for (const c of cells(line)) {
    const row = rows[rows.length - 1] as Cell[];
    if (row.length > 0 && used + c.width > width) {
      // Prose: carry the word being cut over to the next row, when a space before it allows.
      const space = words && c.text !== ' ' ? row.map((x) => x.text).lastIndexOf(' ') : -1;
      const carried = space > 0 ? row.splice(space + 1) : [];
      rows.push(carried);
      used = columns(rest) + carried.reduce((n, x) => n + x.width, 0);
      if (c.text === ' ' && words && carried.length === 0) continue; // a break needs no space at its start
    }
    (rows[rows.length - 1] as Cell[]).push(c);
    used += c.width;
  }
  return rows.map((r, i) => (i === 0 ? first : rest) + r.map((c) => c.text).join(''));
}

/** Columns a string of plain (already safe) text takes. */
export function columns(s: string): number {
  let n = 0;
  for (const ch of s) n += MARK.test(ch) ? 0 : WIDE.test(ch) ? 2 : 1;
  return n;
}

/** A block of lines in a gutter: `  │ ` opens each line, `  ┆ ` continues one that wrapped. */
export function gutter(lines: readonly string[], width: number): string[] {
  return lines.flatMap((l) => wrap(l, width, '  │ ', '  ┆ '));
}

/** Rows of a diff shown before it is cut (its lines wrapped in the gutter). */
export const DIFF_ROWS = 60;

/**
 * The head of a diff that fits in DIFF_ROWS rows, and how many of its lines were left out (a line cut
 * part-way counts as left out).
 */
export function diffHead(diff: string, width: number): { rows: string[]; omitted: number } {
  const lines = diff.split('\n');
  const rows: string[] = [];
  for (const [i, line] of lines.entries()) {
    const drawn = gutter([line], width);
    if (rows.length + drawn.length <= DIFF_ROWS) {
      rows.push(...drawn);
      continue;
    }
    // A line longer than the whole budget still shows its start, so the diff never shows nothing.
    if (rows.length === 0) rows.push(...drawn.slice(0, DIFF_ROWS));
    return { rows, omitted: lines.length - i };
  }
  return { rows, omitted: 0 };
}
