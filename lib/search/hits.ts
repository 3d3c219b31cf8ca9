/**
 * Finding matching lines in a region. With a required literal the search stays on raw bytes: the
 * literal's occurrences (memchr-speed `Buffer.indexOf`, or the case-folded byte search of folded_literal.ts) give
 * candidate lines, and only those are decoded and tested with the regex — or not even that when the
 * pattern is the literal itself. Without one, the region is decoded and scanned by the regex.
 */

import type { Captures } from '../core/answers.ts';
import { FoldedHaystack, LIT_CAP } from './fold_wasm.ts';
import { exactLiteral, type FoldedView, foldedLiteral, foldedView, MAX_HAYSTACK } from './folded_literal.ts';
import type { RegexSpec } from './matcher.ts';
import { afterEmptyMatch } from './regex/compile.ts';
import type { Source } from './source.ts';

export interface Hit {
  /** Offset of the first matched line's start, and of the last matched line's start. */
  start: number;
  lastStart: number;
}

/** Candidate lines from the literal, confirmed by the line regex unless the pattern is the literal. */
export function literalHits(
  bytes: Buffer,
  src: Source,
  spec: RegexSpec,
  firstOnly: boolean,
  folded?: FoldedView,
): Hit[] {
  const hits: Hit[] = [];
  const view = folded ?? regionView(bytes, spec);
  // A folded view that over-approximates (folded_literal.ts) has its lines confirmed.
  const pure = spec.pure && (view?.exact ?? true);
  const next = (i: number) => (view ? view.find(i) : bytes.indexOf(spec.literal as Buffer, i));
  let from = 0;
  while (from < bytes.length) {
    const at = next(from);
    if (at === -1) break;
    const start = src.lineStart(at);
    const end = src.lineEnd(at);
    const long = (spec.span !== undefined || spec.local) && end - start > WINDOWED_LINE;
    if (
      pure ||
      (lineHasAll(bytes, start, end, spec.alsoLiterals) &&
        (long ? longLineMatches(bytes, at, start, end, src, spec, next) : spec.line.test(src.line(start))))
    ) {
      hits.push({ start, lastStart: start });
      if (firstOnly) break;
    }
    from = end + 1;
  }
  return hits;
}

/**
 * Whether the line bytes[start, end) holds each of `literals`: a match lies within its line and holds
 * them all, so a line missing one is passed over before it is decoded. Searched in the line only.
 */
function lineHasAll(bytes: Buffer, start: number, end: number, literals: readonly Buffer[] | undefined): boolean {
  return !literals || holdsAll(bytes.subarray(start, end), literals);
}

/** Whether `bytes` holds each of `literals` (none given: it does). */
const holdsAll = (bytes: Buffer, literals: readonly Buffer[] | undefined): boolean =>
  !literals || literals.every((b) => bytes.includes(b));

/** Lines longer than this are confirmed from windows around the literal, when the pattern allows. */
const WINDOWED_LINE = 64 * 1024;

/**
 * Bytes on either side of an occurrence that a window holds for a pattern with no bound on its span:
 * a minified line's matches are most often short.
 */
const LOCAL_WINDOW = 1024;
/**
 * How much of a long line (a fraction of its bytes) windows may decode and test for a pattern with no
 * bound on its span before the whole line is tested instead. A pattern like `foo.*bar` costs a
 * window's length at each occurrence in it when the match reaches past the window, so windows over a
 * whole line of dense occurrences cost several times the one test of the line (a 300 KB line of
 * `foo `s ending in `bar`: 2.8 s against 0.2 s, with 4 KiB windows and no bound); a source map's
 * matches are often dozens of windows in.
 */
const LOCAL_WINDOWS_SHARE = 4;

/**
 * Whether a long line holds a match, from windows around the literal's occurrences first. With a
 * bound on the span they decide; without one, a match in a window is a match, and a line with none
 * in the windows tested (up to a share of the line) is decoded whole and tested. A line of megabytes
 * decoded is a string in V8's large-object space, which only a full collection frees: a whole-tree
 * regex count on a real-shaped tree (source maps, bundles) left up to 17 MiB of them dead in each
 * worker between collections.
 */
function longLineMatches(
  bytes: Buffer,
  at: number,
  start: number,
  end: number,
  src: Source,
  spec: RegexSpec,
  next: (i: number) => number,
): boolean {
  const also = spec.alsoLiterals;
  if (spec.span !== undefined) return windowsMatch(bytes, at, [start, end], spec.line, spec.span, next, also);
  return (
    windowsMatch(bytes, at, [start, end], spec.line, LOCAL_WINDOW, next, also, (end - start) / LOCAL_WINDOWS_SHARE) ||
    spec.line.test(src.line(start))
  );
}

/**
 * Whether a window of `span` bytes on either side of an occurrence of the literal (`next` finds them
 * from `at` on) in the line bytes[start, end) holds a match of `line`. With the span bounded by
 * `span`, every match holds an occurrence and lies in its window; the pattern looks at nothing outside
 * its match, so a match in a window is one in the line. A window's edges are moved off the middle of a
 * character, so its text decodes as that stretch of the line does; the line's end drops a CRLF's \r
 * as `Source.line` does. A window missing one of the other literals (`also`) holds no match and is
 * passed over undecoded; windows are tested until they have taken `budget` bytes.
 */
function windowsMatch(
  bytes: Buffer,
  at: number,
  [start, end]: [number, number],
  line: RegExp,
  span: number,
  next: (i: number) => number,
  also: readonly Buffer[] | undefined,
  budget = Number.POSITIVE_INFINITY,
): boolean {
  const lineEnd = end > start && bytes[end - 1] === 13 ? end - 1 : end;
  let tested = 0;
  const inside = (i: number) => (bytes[i] as number) >= 0x80 && (bytes[i] as number) < 0xc0;
  let done = start; // windows reach up to here already
  for (let occ = at; occ !== -1 && occ < end; occ = next(occ + 1)) {
    if (occ + span <= done) continue; // within the window already tested
    let a = Math.max(start, occ - span);
    let b = Math.min(lineEnd, occ + 2 * span);
    while (a > start && inside(a)) a--;
    while (b < lineEnd && inside(b)) b++;
    done = b;
    if (!holdsAll(bytes.subarray(a, b), also)) continue;
    if (line.test(bytes.toString('utf8', a, b))) return true;
    tested += b - a;
    if (tested >= budget) return false;
  }
  return false;
}

/** Lines the scanning regex finds in decoded text, each confirmed on its own line. */
export function textHits(text: string, src: Source, spec: RegexSpec, firstOnly: boolean): Hit[] {
  const hits: Hit[] = [];
  const scanner = spec.scan;
  let from = 0;
  while (from <= text.length) {
    scanner.lastIndex = from;
    const m = scanner.exec(text);
    if (!m) break;
    const start = src.lineStart(m.index);
    if (start === text.length) break; // after the final newline (or in an empty file) there is no line
    const end = src.lineEnd(m.index);
    // Line-oriented like ripgrep: the regex must match within the line, not across it.
    if (spec.line.test(src.line(start))) {
      hits.push({ start, lastStart: start });
      if (firstOnly) break;
    }
    if (end >= text.length) break;
    from = end + 1;
  }
  return hits;
}

/** Matches that may span lines; each hit covers every line a match touches. */
export function multilineHits(text: string, src: Source, spec: RegexSpec): Hit[] {
  const hits: Hit[] = [];
  const re = spec.scan;
  re.lastIndex = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    if (m.index === text.length && (text.length === 0 || text.endsWith('\n'))) break;
    const start = src.lineStart(m.index);
    const lastStart = src.lineStart(Math.max(m.index, m.index + m[0].length - 1));
    const prev = hits.at(-1);
    if (prev && start <= prev.lastStart) prev.lastStart = Math.max(prev.lastStart, lastStart);
    else hits.push({ start, lastStart: Math.max(start, lastStart) });
    if (m[0].length === 0) re.lastIndex = afterEmptyMatch(text, m.index);
  }
  return hits;
}

/**
 * Whether a region can hold a match at all, judged on raw bytes by the required literals. For a
 * case-insensitive literal, `folded` is the region's view (made once by regionView, shared with literalHits).
 * `partOfFile`: the bytes are the rest of a file whose earlier pieces were searched apart (a match
 * may have begun there), so only the literal candidate lines are found by is asked for.
 */
export function mayMatch(bytes: Buffer, spec: RegexSpec, folded?: FoldedView, partOfFile = false): boolean {
  if (spec.literal)
    return (
      (folded ? folded.find(0) !== -1 : bytes.indexOf(spec.literal) !== -1) &&
      (partOfFile || holdsAll(bytes, spec.alsoLiterals))
    );
  if (spec.literalFolded) return (folded ?? (regionView(bytes, spec) as FoldedView)).find(0) !== -1;
  if (spec.literalAny) return spec.literalAny.some((b) => bytes.includes(b));
  return true;
}

/** The case-insensitive literal's view of a region, when the pattern has one. */
export function regionView(bytes: Buffer, spec: RegexSpec): FoldedView | undefined {
  const lit = spec.literal;
  if (lit) return lit.length <= LIT_CAP && bytes.length <= MAX_HAYSTACK ? exactView(bytes, lit) : undefined;
  return spec.literalFolded ? foldedView(bytes, foldedLiteral(spec.literalFolded)) : undefined;
}

/** A case-sensitive literal's region view: the SIMD search, exact (no folds to check). */
const exactView = (bytes: Buffer, lit: Buffer): FoldedView => new FoldedHaystack(bytes, exactLiteral(lit));

/** The lines not covered by `hits`, as one-line hits of their own (ripgrep -v). */
export function otherLines(src: Source, hits: readonly Hit[], firstOnly: boolean): Hit[] {
  const out: Hit[] = [];
  let h = 0;
  for (let s = 0; s < src.length; s = Math.min(src.lineEnd(s) + 1, src.length)) {
    while (h < hits.length && (hits[h] as Hit).lastStart < s) h++;
    const hit = hits[h];
    if (hit && hit.start <= s && s <= hit.lastStart) continue;
    out.push({ start: s, lastStart: s });
    if (firstOnly) break;
  }
  return out;
}

/**
 * A global regex to iterate one line with: the spec's own scanner (global already), its position reset
 * — one line is iterated at a time, so nothing else uses it meanwhile, and compiling a copy per line
 * cost more than the line's matching. A regex that is not global is copied with `g`.
 */
function globalOf(scan: RegExp): RegExp {
  if (!scan.global) return new RegExp(scan.source, `${scan.flags}g`);
  scan.lastIndex = 0;
  return scan;
}

/** The text of each non-empty match in one line (ripgrep -o prints each on a line of its own). */
export function matchedTexts(text: string, scan: RegExp): string[] {
  const re = globalOf(scan);
  const out: string[] = [];
  for (let m = re.exec(text); m; m = re.exec(text)) {
    if (m[0] === '') re.lastIndex = afterEmptyMatch(text, m.index);
    else out.push(m[0]);
  }
  return out;
}

/** Where the non-empty matches in one line are, as [start, end) offsets: a printer's colour, JSON's submatches. */
export function matchSpans(text: string, scan: RegExp): [number, number][] {
  const re = globalOf(scan);
  const out: [number, number][] = [];
  for (let m = re.exec(text); m; m = re.exec(text)) {
    if (m[0] === '') re.lastIndex = afterEmptyMatch(text, m.index);
    else out.push([m.index, m.index + m[0].length]);
  }
  return out;
}

/** The scanner with match indices (`d`), made once per scanner: the groups' spans for rg -r. */
const withIndices = new WeakMap<RegExp, RegExp>();

/**
 * Every match in one line as rg iterates them for -r: empty ones too, except right where the match
 * before it ended (the regex crate's iteration skips it there); each as the span of the whole match
 * then of each group (null: the group took no part).
 */
export function matchCaptures(text: string, scan: RegExp): Captures {
  let re = withIndices.get(scan);
  if (!re) {
    re = new RegExp(scan.source, `${scan.flags.replace('g', '')}gd`);
    withIndices.set(scan, re);
  }
  re.lastIndex = 0;
  const out: Captures = [];
  let lastEnd = -1;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const groups = (m.indices ?? []).map((g) => (g ? ([g[0], g[1]] as [number, number]) : null));
    if (m[0] !== '') {
      out.push(groups);
      lastEnd = m.index + m[0].length;
      continue;
    }
    if (m.index !== lastEnd) out.push(groups);
    re.lastIndex = afterEmptyMatch(text, m.index);
  }
  return out;
}

/**
 * The matches in one line as rg counts them with -c -o: an empty one counts too (rg prints none),
 * except right where the match before it ended (the regex crate's iteration skips it there).
 */
export function countMatches(text: string, scan: RegExp): number {
  const re = globalOf(scan);
  let n = 0;
  let lastEnd = -1;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    if (m[0] !== '') {
      n++;
      lastEnd = m.index + m[0].length;
      continue;
    }
    if (m.index !== lastEnd) n++;
    re.lastIndex = afterEmptyMatch(text, m.index);
  }
  return n;
}
