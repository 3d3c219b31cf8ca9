/**
 * Query planning: which files may hold a match, from the literals every match must contain. The
 * input is an AND of ORs of literals (each inner list: at least one of them occurs), with the case
 * rule noted; each literal becomes the AND of its trigrams. A literal with no usable trigram (under 3
 * bytes, or only non-ASCII bytes under case-insensitivity) makes its OR group say nothing, and a plan
 * with no group left is no plan: the caller scans everything. Main thread.
 */
import { compilePattern } from '../pattern.ts';
import { literalTrigrams } from './ngrams.ts';
import type { ReadAhead, Segment } from './segment.ts';

export interface RequiredLiterals {
  /** AND of ORs: every match contains at least one literal of each inner list. */
  literals: string[][];
  /** Literals match ignoring ASCII case. */
  caseInsensitive: boolean;
  /**
   * Case folding is Unicode's: ASCII k and s also match K (U+212A) and ſ (U+017F), so trigrams
   * holding them are dropped.
   */
  unicodeCase?: boolean;
  /**
   * OR clauses of byte triples (regex/byte_edges.ts: where a large class meets literal text), exact
   * as they stand: each triple is one alternative, so none may be dropped.
   */
  triples?: number[][];
}

/**
 * The one adapter from the compiled pattern to the planner's input: its required literals, an AND of
 * ORs taken from the parsed tree (regex/literals.ts), so a file the plan rules out holds no match. A
 * literal spanning lines (multiline) is reduced to its longest piece without a line break, which the
 * file must still contain; so is one holding U+FFFD. Case-insensitivity is rg's, Unicode simple case folding (k and s fold with
 * the Kelvin sign and long s), so trigrams holding those letters are dropped.
 */
export function requiredLiteralsOf(
  pattern: string,
  o: { ignoreCase: boolean; fixedStrings: boolean; multiline?: boolean },
): RequiredLiterals | undefined {
  const compiled = compilePattern(pattern, { ...o, multiline: o.multiline ?? false });
  if (!compiled.ok) return undefined;
  const r = compiled.value.spec.requiredLiterals();
  if (!r) return undefined;
  // A U+FFFD in the pattern matches any invalid byte in a decoded file (where the searcher runs the
  // regex on the decoded line), so its own bytes need not be there: the literal is cut there too.
  const longestPiece = (s: string) => s.split(/[\r\n\ufffd]/).reduce((a, b) => (b.length > a.length ? b : a), '');
  const literals = r.clauses.map((any) => any.map(longestPiece));
  return { literals, caseInsensitive: r.caseInsensitive, unicodeCase: r.caseInsensitive, triples: r.triples };
}

/** AND of groups; a group is an OR of alternatives; an alternative is an AND of trigram keys. */
type QueryPlan = number[][][];

export function planQuery(r: RequiredLiterals | undefined): QueryPlan | undefined {
  if (!r) return undefined;
  const groups: QueryPlan = [];
  for (const any of r.literals) {
    if (any.length === 0) continue;
    const alts = any.map((lit) => literalTrigrams(lit, r.caseInsensitive).filter((k) => !r.unicodeCase || !holdsKs(k)));
    if (alts.some((a) => a.length === 0)) continue; // that alternative could match anywhere
    groups.push(alts);
  }
  const triples = (r.triples ?? []).map((any) => [...new Set(any.map(foldTriple))].map((k) => [k]));
  // Each alternative is a posting lookup in every segment: a pattern of thousands of literals and
  // classes would cost more to plan than to scan. A few groups narrow as much as all of them; dropping
  // groups only loosens the answer. Keep those with the fewest alternatives (the longest literals).
  const cheapest = (gs: QueryPlan, n: number, size: (g: number[][]) => number) =>
    gs.length <= n ? gs : [...gs].sort((a, b) => size(a) - size(b)).slice(0, n);
  const kept = [
    ...cheapest(groups, MAX_GROUPS, (g) => g.length * 64 - Math.min(...g.map((keys) => keys.length))),
    ...cheapest(triples, MAX_GROUPS, (g) => g.length),
  ];
  return kept.length > 0 ? kept : undefined;
}

/** Most literal groups, and most triple groups, a plan keeps. */
export const MAX_GROUPS = 16;

const fold = (b: number) => (b >= 65 && b <= 90 ? b + 32 : b);
const foldTriple = (t: number) => (fold(t >>> 16) << 16) | (fold((t >>> 8) & 255) << 8) | fold(t & 255);

const holdsKs = (k: number) => [k >> 16, (k >> 8) & 255, k & 255].some((b) => b === 107 || b === 115);

const countOf = (parts: readonly Segment[], key: number) => parts.reduce((n, p) => n + p.count(key), 0);

/** The share of indexed files above which a plan (or one of its groups) is not worth looking up. */
export const COMMON_SHARE = 0.4;

/** An upper bound of the files a group lets through, from the posting counts alone (nothing decoded). */
const groupEstimate = (alts: readonly number[][], parts: readonly Segment[]) =>
  alts.reduce((sum, keys) => sum + Math.min(...keys.map((k) => countOf(parts, k))), 0);

/** An upper bound of the files the plan lets through: its most selective group's. */
export function estimate(plan: QueryPlan, parts: readonly Segment[]): number {
  return Math.min(...plan.map((alts) => groupEstimate(alts, parts)));
}

/** Most trigrams intersected per literal: the rarest ones; more rarely narrow further. */
const MAX_KEYS = 8;

/**
 * Candidates a later group is tried on before it is judged; one that rules out under 1/RULED_OUT_SHARE
 * of them is not applied to the rest (a looser answer, never a missed file).
 */
const SAMPLE_FILES = 256;
const RULED_OUT_SHARE = 16;

/**
 * The indexed files (numbers, ascending) that hold every trigram of some alternative of every group.
 * Most selective group first, then each later group narrows what is left, a segment at a time — only
 * where candidates are left, and a key absent from a segment ends that segment's lookups before any
 * of its postings are read. A later group that would let through a common share of the files is left
 * out, and so is one that rules out almost none of the first candidates it is tried on (`ERROR 77` of
 * `ERROR 77\d'\)`: 802 files left of 840 by the digits, none of them ruled out by the literal, whose
 * ~8,500 postings cost more to decode than the rest of the plan).
 */
export function candidates(plan: QueryPlan, parts: readonly Segment[], files: number): number[] {
  const ranked = plan
    .map((alts) => ({ alts, n: groupEstimate(alts, parts) }))
    .sort((a, b) => a.n - b.n)
    .filter((g, i) => i === 0 || g.n <= COMMON_SHARE * files);
  const first = ranked[0];
  if (!first) return [];
  const marks = new Marks(files);
  let cur: number[] = [];
  for (const p of parts) for (const f of groupIn(first.alts, p, marks)) cur.push(f);
  for (const { alts } of ranked.slice(1)) {
    if (cur.length === 0) break;
    cur = narrow(cur, alts, parts, marks);
  }
  return cur;
}

/** `cur` (ascending) less the files of segments that do not hold the group, until it proves to rule out too few. */
function narrow(cur: readonly number[], alts: readonly number[][], parts: readonly Segment[], marks: Marks): number[] {
  const out: number[] = [];
  let i = 0;
  for (const p of parts) {
    if (i >= cur.length) break;
    const end = p.base + p.nFiles;
    if ((cur[i] as number) >= end) continue;
    if (i >= SAMPLE_FILES && (i - out.length) * RULED_OUT_SHARE < i) {
      for (; i < cur.length; i++) out.push(cur[i] as number); // it rules out too few to be worth its reads
      break;
    }
    const holding = groupIn(alts, p, marks);
    const gen = marks.next();
    for (const f of holding) marks.union[f] = gen;
    for (; i < cur.length && (cur[i] as number) < end; i++)
      if (marks.union[cur[i] as number] === gen) out.push(cur[i] as number);
  }
  return out;
}

/** Generation-stamped marks over the index's files: a new mark set costs no clearing. */
class Marks {
  readonly seen: Uint32Array;
  readonly union: Uint32Array;
  #gen = 0;
  constructor(files: number) {
    this.seen = new Uint32Array(files);
    this.union = new Uint32Array(files);
  }
  next(): number {
    return ++this.#gen;
  }
}

/** A key and the files of one segment that hold it. */
interface Counted {
  k: number;
  n: number;
}

/** `keys` with their counts in segment `p`, rarest first; undefined as soon as one is absent (or none given). */
function rankedIn(keys: readonly number[], p: Segment): Counted[] | undefined {
  const ranked: Counted[] = [];
  for (const k of keys) {
    const n = p.count(k);
    if (n === 0) return undefined;
    ranked.push({ k, n });
  }
  return ranked.length > 0 ? ranked.sort((a, b) => a.n - b.n) : undefined;
}

/** The files of segment `p` (ascending) that hold every key of some alternative. */
function groupIn(alts: readonly number[][], p: Segment, marks: Marks): number[] {
  // Only the alternatives whose every key the segment holds are looked up.
  const present = alts.map((keys) => rankedIn(keys, p)).filter((r) => r !== undefined);
  if (present.length === 0) return [];
  const ahead = p.readAhead(present.flatMap((ranked) => ranked.map((r) => r.k)));
  if (present.length === 1) return intersectIn(present[0] as Counted[], p, marks, ahead);
  const gen = marks.next();
  const out: number[] = [];
  for (const ranked of present) {
    for (const f of intersectIn(ranked, p, marks, ahead)) {
      if (marks.union[f] === gen) continue;
      marks.union[f] = gen;
      out.push(f);
    }
  }
  return out.sort((a, b) => a - b);
}

/**
 * The files of segment `p` holding every key of `ranked` (rarest first, none absent). A key in a
 * common share of its files is left out after the first (a looser answer, never a missed file): it
 * can rule out few of the files left, and decoding its list (`ERR` of `ERROR 777`: most files of the
 * bench tree) costs more.
 */
function intersectIn(ranked: readonly Counted[], p: Segment, marks: Marks, ahead: ReadAhead | undefined): number[] {
  const first = ranked[0] as Counted;
  let cur: number[] = [];
  p.forEach(first.k, (f) => cur.push(f), ahead);
  const kept = ranked.filter((r, i) => i > 0 && r.n <= COMMON_SHARE * p.nFiles).slice(0, MAX_KEYS - 1);
  for (const { k } of kept) {
    if (cur.length === 0) break;
    const gen = marks.next();
    p.forEach(k, (f) => (marks.seen[f] = gen), ahead);
    cur = cur.filter((f) => marks.seen[f] === gen);
  }
  return cur;
}
