/**
 * The whole-line block search: where in the file old_string's lines fit, each line equal up to the
 * tolerated differences (lineKey) and the indentation off by at most one uniform shift. Candidates
 * come from an index of the file's lines by key, anchored on old_string's rarest line, so the search
 * stays near linear in the file's size however large it is.
 */
import { findShift, type LeadPair, leadOf, type Shift } from './indent.ts';
import { charFixes, charKey, lineKey, significant } from './normalize.ts';

/** The file's lines (without CR) and their keys, indexed. */
export interface FileLines {
  bare: readonly string[];
  keys: readonly string[];
  index: ReadonlyMap<string, readonly number[]>;
}

export function fileLines(bare: readonly string[]): FileLines {
  const keys = bare.map(lineKey);
  const index = new Map<string, number[]>();
  for (const [i, k] of keys.entries()) {
    const at = index.get(k);
    if (at) at.push(i);
    else index.set(k, [i]);
  }
  return { bare, keys, index };
}

/** A block of the file that old_string fits, and what that took. */
export interface Fit {
  /** 0-based first line. */
  at: number;
  /** 0 exact, 1 trailing whitespace, 2 indentation, 3 characters: the loosest difference used. */
  level: number;
  trailing: boolean;
  shift: Shift;
  /** The characters (or `\"`) to undo in lines new_string wrote. */
  fixes: string[];
}

/** Whether old_string's lines fit the file at `at`, and how loosely. */
export function fitAt(file: FileLines, old: readonly string[], keys: readonly string[], at: number): Fit | undefined {
  if (at < 0 || at + old.length > file.bare.length) return undefined;
  for (let j = 0; j < old.length; j++) if (file.keys[at + j] !== keys[j]) return undefined;
  let trailing = false;
  const fixes: string[] = [];
  const pairs: LeadPair[] = [];
  for (let j = 0; j < old.length; j++) {
    const f = file.bare[at + j] as string;
    const o = old[j] as string;
    if (keys[j] !== '') pairs.push({ j, f: leadOf(f), o: leadOf(charKey(o)) });
    if (f === o) continue;
    const c = charKey(o);
    if (f.trim() !== o.trim()) for (const x of charFixes(f, o)) if (!fixes.includes(x)) fixes.push(x);
    if (f.slice(f.trimEnd().length) !== c.slice(c.trimEnd().length)) trailing = true;
  }
  const shift = findShift(pairs, old.length);
  if (!shift) return undefined;
  const indent = !shift.same || shift.firstLead !== undefined;
  const level = fixes.length > 0 ? 3 : indent ? 2 : trailing ? 1 : 0;
  return { at, level, trailing, shift, fixes };
}

/** Where to look: the first line a block may start at, the last, or only the end of the file. */
interface Span {
  from?: number;
  to?: number;
  eof?: boolean;
}

/** Candidate starts of blocks holding old_string's line `j` in place, for its rarest lines. */
function anchors(file: FileLines, keys: readonly string[], count: number): { j: number; at: readonly number[] }[] {
  const rank = (xs: { j: number; k: string }[]) =>
    xs.map(({ j, k }) => ({ j, at: file.index.get(k) ?? [] })).sort((a, b) => a.at.length - b.at.length);
  const all = keys.map((k, j) => ({ j, k }));
  const sig = rank(all.filter((x) => significant(x.k)));
  // With fewer significant lines than anchors, a `}` anchors too: a block that differs from old_string
  // in its one significant line still holds the `}` in place, and it is a place the model may have meant.
  const rest = rank(all.filter((x) => !significant(x.k) && x.k !== ''));
  return [...sig, ...rest].slice(0, count);
}

/** Every block that old_string fits, and the starts of blocks that miss by one line (or by an uneven indentation). */
export function searchBlocks(
  file: FileLines,
  old: readonly string[],
  span: Span = {},
): { fits: Fit[]; near: number[]; keys: string[] } {
  const keys = old.map(lineKey);
  const from = span.from ?? 0;
  const to = span.eof
    ? file.bare.length - old.length
    : Math.min(span.to ?? Number.MAX_SAFE_INTEGER, file.bare.length - old.length);
  const inSpan = (p: number) => p >= from && p <= to && (!span.eof || p === to);
  const fits: Fit[] = [];
  const near: number[] = [];
  if (old.length === 0 || to < from) return { fits, near, keys };
  // A block that misses by one line still holds one of old_string's two rarest lines in place.
  const seen = new Set<number>();
  for (const { j, at } of anchors(file, keys, 2)) {
    for (const q of at) {
      const p = q - j;
      if (seen.has(p) || !inSpan(p)) continue;
      seen.add(p);
      const fit = fitAt(file, old, keys, p);
      if (fit) fits.push(fit);
      else if (old.length >= 2 && missesByOne(file, keys, p)) near.push(p);
    }
    // A block one line longer or shorter inside (a line added or dropped since the read) is a place
    // the model may have meant as well; the anchor line sits at j, or one line off it.
    if (old.length >= 3)
      for (const q of at)
        for (const p of [q - j - 1, q - j, q - j + 1])
          if (
            p >= from &&
            p <= to + 1 &&
            !fits.some((f) => f.at === p) &&
            !near.includes(p) &&
            missesByAGap(file, keys, p)
          )
            near.push(p);
  }
  fits.sort((a, b) => a.at - b.at);
  return { fits, near: near.sort((a, b) => a - b), keys };
}

/**
 * Within one line of fitting: every line fits but one, and that one is a near copy (a token or two
 * apart), as when the file changed since the model read it — a place the model may have meant.
 */
function missesByOne(file: FileLines, keys: readonly string[], p: number): boolean {
  let missed: number | undefined;
  for (let j = 0; j < keys.length; j++) {
    if (file.keys[p + j] === keys[j]) continue;
    if (missed !== undefined || p + j >= file.keys.length) return false;
    missed = j;
  }
  if (missed === undefined) return true;
  const a = file.keys[p + missed] as string;
  const b = keys[missed] as string;
  return closeTo(a, b, Math.max(2, Math.floor(Math.max(a.length, b.length) * 0.3)));
}

/** The file from `p` holds old_string's lines with one line inserted or one dropped strictly inside. */
function missesByAGap(file: FileLines, keys: readonly string[], p: number): boolean {
  const m = keys.length;
  const eq = (i: number, j: number) => file.keys[i] === keys[j];
  for (let gap = 1; gap < m; gap++) {
    // One extra file line before old_string's line `gap`.
    let inserted = p + m < file.keys.length;
    for (let j = 0; j < m && inserted; j++) inserted = eq(p + j + (j >= gap ? 1 : 0), j);
    if (inserted) return true;
    // old_string's line `gap` missing from the file (not its last line: that is the block one line shorter).
    if (gap < m - 1) {
      let dropped = true;
      for (let j = 0; j < m && dropped; j++) if (j !== gap) dropped = eq(p + j - (j > gap ? 1 : 0), j);
      if (dropped) return true;
    }
  }
  return false;
}

/** Edit distance at most `cap` (banded, stops early). */
export function closeTo(a: string, b: string, cap: number): boolean {
  if (Math.abs(a.length - b.length) > cap) return false;
  let prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    let low = i;
    for (let k = 1; k <= b.length; k++) {
      const v = Math.min(
        (prev[k] as number) + 1,
        (cur[k - 1] as number) + 1,
        (prev[k - 1] as number) + (a[i - 1] === b[k - 1] ? 0 : 1),
      );
      cur.push(v);
      low = Math.min(low, v);
    }
    if (low > cap) return false;
    prev = cur;
  }
  return (prev[b.length] as number) <= cap;
}
