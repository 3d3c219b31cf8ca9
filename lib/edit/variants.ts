/**
 * Readings of old_string (and new_string) as lines: as written, and, when it plainly carries them,
 * without read_file's line-number prefixes (`    12\t`) or with literal `\n` sequences taken as the
 * line breaks they stand for. Each non-literal reading says what it undid.
 */

export interface Reading {
  old: string[];
  neu: string[];
  /** What was undone, for the answer; undefined for the literal reading. */
  undid?: string;
  /** The line number the stripped prefixes start at (line-number reading only). */
  numbered?: number;
}

/** A text's lines; a final newline ends the last line rather than starting an empty one. */
function linesOf(s: string): string[] {
  const lines = s.replace(/\r\n/g, '\n').split('\n');
  if (lines.length > 1 && lines.at(-1) === '') lines.pop();
  return lines;
}

const NUMBERED = /^ *\d+\t/;

/** Every non-blank line starts with a read_file line number. */
export const hasLineNumbers = (lines: readonly string[]): boolean =>
  lines.some((l) => l.trim() !== '') && lines.every((l) => l.trim() === '' || NUMBERED.test(l));

/**
 * The first line's number when the numbers run on one by one, as read_file shows them (a TSV's ids
 * in the first column need not); undefined otherwise.
 */
function firstNumber(lines: readonly string[]): number | undefined {
  const nums = lines.map((l) => (NUMBERED.test(l) ? Number.parseInt(l, 10) : undefined));
  const k = nums.findIndex((n) => n !== undefined);
  const base = (nums[k] as number) - k;
  return k !== -1 && nums.every((n, i) => n === undefined || n === base + i) ? base : undefined;
}

/** A file whose own lines start with digits and a tab (a TSV): its rows look like line numbers. */
export const looksNumbered = (bare: readonly string[]): boolean => bare.some((l) => NUMBERED.test(l));

/** One line holding `\n` escapes where line breaks were meant. */
export const hasLiteralNewlines = (s: string): boolean => !s.includes('\n') && /\\n/.test(s);

const breakLines = (s: string) => s.replace(/\\r\\n|\\n/g, '\n').replace(/\\t/g, '\t');

export function readings(old: string, neu: string): Reading[] {
  const o = linesOf(old);
  // An empty new_string deletes old_string's lines, and their line break too when old_string had one
  // (as an exact replacement would); without one, an empty line stays.
  const n = neu === '' ? (/\n$/.test(old) ? [] : ['']) : linesOf(neu);
  const out: Reading[] = [{ old: o, neu: n }];
  const numbered = hasLineNumbers(o) ? firstNumber(o) : undefined;
  if (numbered !== undefined) {
    const strip = (ls: string[]) => ls.map((l) => l.replace(NUMBERED, ''));
    out.push({
      old: strip(o),
      neu: hasLineNumbers(n) ? strip(n) : n,
      undid: "read_file's line-number prefixes",
      numbered,
    });
  }
  if (hasLiteralNewlines(old)) {
    out.push({
      old: linesOf(breakLines(old)),
      neu: hasLiteralNewlines(neu) ? linesOf(breakLines(neu)) : n,
      undid: 'literal \\n sequences',
    });
  }
  return out;
}
