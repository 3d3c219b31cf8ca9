/**
 * Finding matching lines in a region. With a required literal the search stays on raw bytes: the
 * literal's occurrences (memchr-speed `Buffer.indexOf`, or a case-folded scan of a latin1 view) give
 * candidate lines, and only those are decoded and tested with the regex — or not even that when the
 * pattern is the literal itself. Without one, the region is decoded and scanned by the regex.
 */

import type { RegexSpec } from './matcher.ts';
import { afterEmptyMatch } from './regex/compile.ts';
import type { Source } from './source.ts';

export interface Hit {
  /** Offset of the first matched line's start, and of the last matched line's start. */
  start: number;
  lastStart: number;
}

/** Candidate lines from the literal, confirmed by the line regex unless the pattern is the literal. */
export function literalHits(bytes: Buffer, src: Source, spec: RegexSpec, firstOnly: boolean, latin1?: string): Hit[] {
  const hits: Hit[] = [];
  const folded = spec.literalFolded ? foldedRe(spec.literalFolded) : undefined;
  let from = 0;
  while (from < bytes.length) {
    let at: number;
    if (spec.literal) {
      at = bytes.indexOf(spec.literal, from);
    } else {
      (folded as RegExp).lastIndex = from;
      at = (folded as RegExp).exec(latin1 as string)?.index ?? -1;
    }
    if (at === -1) break;
    const start = src.lineStart(at);
    const end = src.lineEnd(at);
    if (spec.pure || spec.line.test(src.line(start))) {
      hits.push({ start, lastStart: start });
      if (firstOnly) break;
    }
    from = end + 1;
  }
  return hits;
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
 * Whether a region can hold a match at all, judged on raw bytes by the required literal. For a
 * case-insensitive literal, `latin1` is the region's one-byte view (made once, shared with literalHits).
 */
export function mayMatch(bytes: Buffer, spec: RegexSpec, latin1?: string): boolean {
  if (spec.literal) return bytes.indexOf(spec.literal) !== -1;
  if (spec.literalFolded) return foldedRe(spec.literalFolded).test(latin1 ?? bytes.toString('latin1'));
  return true;
}

// One compiled case-insensitive scanner per literal; reset before each use. It runs on a latin1 view
// (one character a byte), where ASCII folding is that of the `iv` regex and rg except for the two
// non-ASCII characters Unicode simple case folding joins to ASCII letters: K (U+212A, bytes E2 84 AA)
// to k and ſ (U+017F, bytes C5 BF) to s, whose bytes are added as alternatives. Under `i` those bytes
// also match a few other latin1 bytes (\xE5 for \xC5): a superset, so a literal with k or s is never
// `pure` (compile.ts) and its candidate lines are confirmed by the regex.
const FOLDS: Record<string, string> = { k: '(?:k|\\xE2\\x84\\xAA)', s: '(?:s|\\xC5\\xBF)' };
const foldedCache = new Map<string, RegExp>();
function foldedRe(lit: string): RegExp {
  let re = foldedCache.get(lit);
  if (!re) {
    const source = lit.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&').replace(/[ks]/g, (c) => FOLDS[c] as string);
    re = new RegExp(source, 'gi');
    if (foldedCache.size > 64) foldedCache.clear();
    foldedCache.set(lit, re);
  }
  re.lastIndex = 0;
  return re;
}
