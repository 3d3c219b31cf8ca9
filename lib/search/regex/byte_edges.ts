/**
 * The bytes a class can begin and end with, and the byte triples that span the edge between a class
 * and the literal text beside it. A class too large to spell out (`\d`, `\w`, `\p{L}`) still says
 * something to an n-gram index: in `ERROR 77\d'\)` every match holds `77` followed by the first byte
 * of a digit, and the last byte of a digit followed by `')`. Exact by construction: each clause lists
 * every triple a match can hold there, so a file that holds none of them holds no match.
 *
 * Bytes, not characters: the searcher decodes a file as UTF-8 and an invalid byte becomes U+FFFD, so
 * a class that holds U+FFFD may match any byte from 0x80 up; any other non-ASCII character begins
 * with a lead byte (0xC2–0xF4) and ends with a continuation byte (0x80–0xBF). Only ASCII members are
 * told apart: non-ASCII ones are assumed present unless the class is ASCII ranges alone, which keeps
 * the test cheap and leaves no Unicode table to get wrong.
 */
import type { Node } from './ast.ts';
import { caseVariants, translate } from './translate.ts';

/** Every match of the node is non-empty, begins with a byte of `first` and ends with a byte of `last`. */
export interface Edges {
  first: number[];
  last: number[];
}

/** Most triples in one clause: each is a posting-list lookup; a bigger clause is dropped (it says little). */
export const MAX_TRIPLES = 160;

const range = (lo: number, hi: number) => Array.from({ length: hi - lo + 1 }, (_, i) => lo + i);
const LEAD = range(0xc2, 0xf4);
const CONTINUATION = range(0x80, 0xbf);
const HIGH = range(0x80, 0xff);
/** The ASCII letters whose case variants leave ASCII: K (U+212A Kelvin sign) and S (U+017F long s). */
export const FOLDS_OUT = [0x4b, 0x53, 0x6b, 0x73];

/** Edges by the class's regex source: a pattern often repeats a class, and each costs 129 tests. */
const known = new Map<string, Edges>();

/** The edges of a class node, or undefined when its regex cannot be built. */
export function classEdges(n: Extract<Node, { t: 'class' }>): Edges | undefined {
  let source: string;
  let re: RegExp;
  try {
    const t = translate(n, true);
    source = `${t.flags}/${t.source}`;
    const seen = known.get(source);
    if (seen) return seen;
    re = new RegExp(`^(?:${t.source})$`, t.flags);
  } catch {
    return undefined;
  }
  const ascii = range(0, 127).filter((c) => re.test(String.fromCharCode(c)));
  const edges = asciiOnly(n)
    ? { first: ascii, last: ascii }
    : re.test('\ufffd')
      ? { first: [...ascii, ...HIGH], last: [...ascii, ...HIGH] }
      : { first: [...ascii, ...LEAD], last: [...ascii, ...CONTINUATION] };
  if (known.size >= 256) known.clear();
  known.set(source, edges);
  return edges;
}

/** The class is ASCII ranges only, and under case folding none of them reaches a non-ASCII letter. */
function asciiOnly(n: Extract<Node, { t: 'class' }>): boolean {
  const cps: number[] = [];
  const add = (s: typeof n.set): boolean => {
    if (s.k === 'range') {
      if (s.hi > 127) return false;
      for (let c = s.lo; c <= s.hi; c++) cps.push(c);
      return true;
    }
    return s.k === 'union' && !s.neg && s.items.every(add);
  };
  if (!add(n.set)) return false;
  return !n.ci || cps.every((c) => caseVariants(c).every((v) => v < 128));
}

/**
 * The last two bytes of each string (the text just before an edge), or undefined when one cannot say
 * which bytes the file holds there: a string shorter than two bytes, a U+FFFD (decoded from any
 * invalid byte), or, when the pattern ignores case, a non-ASCII byte or a k or s (their variants are
 * other bytes).
 */
export function tails(strings: readonly string[], caseInsensitive: boolean): number[][] | undefined {
  return ends(
    strings,
    caseInsensitive,
    (b) => [b[b.length - 2] as number, b[b.length - 1] as number],
    (s) => [...s].slice(-2),
  );
}

/** The first two bytes of each string (the text just after an edge), on the same terms as `tails`. */
export function heads(strings: readonly string[], caseInsensitive: boolean): number[][] | undefined {
  return ends(
    strings,
    caseInsensitive,
    (b) => [b[0] as number, b[1] as number],
    (s) => [...s].slice(0, 2),
  );
}

function ends(
  strings: readonly string[],
  caseInsensitive: boolean,
  pick: (b: Buffer) => number[],
  chars: (s: string) => string[],
): number[][] | undefined {
  const out: number[][] = [];
  for (const s of strings) {
    const b = Buffer.from(s, 'utf8');
    if (b.length < 2 || chars(s).includes('\ufffd')) return undefined;
    const pair = pick(b);
    if (caseInsensitive && pair.some((x) => x > 127 || FOLDS_OUT.includes(x))) return undefined;
    out.push(pair);
  }
  return out;
}

/** The triples of two bytes then one (`pairs` × `bytes`), or of one byte then two; undefined when too many. */
export function triples(left: number[][] | number[], right: number[] | number[][]): number[] | undefined {
  const out = new Set<number>();
  for (const a of left)
    for (const b of right) {
      const t = [...(Array.isArray(a) ? a : [a]), ...(Array.isArray(b) ? b : [b])];
      // A line break in a triple: a multiline pattern's pieces are cut at line breaks (plan.ts), so
      // such an edge is not relied on at all.
      if (t.includes(10) || t.includes(13)) return undefined;
      out.add(((t[0] as number) << 16) | ((t[1] as number) << 8) | (t[2] as number));
      if (out.size > MAX_TRIPLES) return undefined;
    }
  return out.size > 0 ? [...out] : undefined;
}
