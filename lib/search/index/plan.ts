/**
 * Query planning: which files may hold a match, from the literals every match must contain. The
 * input is an AND of ORs of literals (each inner list: at least one of them occurs), with the case
 * rule noted; each literal becomes the AND of its trigrams. A literal with no usable trigram (under 3
 * bytes, or only non-ASCII bytes under case-insensitivity) makes its OR group say nothing, and a plan
 * with no group left is no plan: the caller scans everything. Main thread.
 */
import { compileRegex } from '../matcher.ts';
import { literalTrigrams } from './ngrams.ts';
import type { Segment } from './segment.ts';

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
  const spec = compileRegex(pattern, { ...o, multiline: o.multiline ?? false });
  if (!spec.ok) return undefined;
  const r = spec.value.requiredLiterals();
  if (!r) return undefined;
  // A U+FFFD in the pattern matches any invalid byte in a decoded file (where the searcher runs the
  // regex on the decoded line), so its own bytes need not be there: the literal is cut there too.
  const longestPiece = (s: string) => s.split(/[\r\n\ufffd]/).reduce((a, b) => (b.length > a.length ? b : a), '');
  const literals = r.clauses.map((any) => any.map(longestPiece));
  return { literals, caseInsensitive: r.caseInsensitive, unicodeCase: r.caseInsensitive, triples: r.triples };
}

/** AND of groups; a group is an OR of alternatives; an alternative is an AND of trigram keys. */
export type QueryPlan = number[][][];

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
 * The indexed files (numbers, ascending) that hold every trigram of some alternative of every group.
 * Most selective group first; a later group that would let through a common share of the files is
 * left out (a looser answer, never a missed file): decoding its many lists would cost more than the
 * searcher spends on the few files it rules out.
 */
export function candidates(plan: QueryPlan, parts: readonly Segment[], files: number): number[] {
  const mark = new Uint8Array(files);
  let result: Uint8Array | undefined;
  const ranked = plan
    .map((alts) => ({ alts, n: groupEstimate(alts, parts) }))
    .sort((a, b) => a.n - b.n)
    .filter((g, i) => i === 0 || g.n <= COMMON_SHARE * files);
  for (const { alts } of ranked) {
    const group = new Uint8Array(files);
    for (const keys of alts) for (const f of intersect(keys, parts, mark)) group[f] = 1;
    if (result) for (let f = 0; f < files; f++) result[f] = (result[f] as number) & (group[f] as number);
    else result = group;
  }
  const out: number[] = [];
  if (result) for (let f = 0; f < files; f++) if (result[f]) out.push(f);
  return out;
}

/**
 * The files holding every key, rarest key first. A key in a common share of the files is left out
 * after the first (a looser answer, never a missed file): it can rule out few of the files left, and
 * decoding its list (`ERR` of `ERROR 777`: ~60,000 files on the bench tree) cost more than the rest.
 */
function intersect(keys: readonly number[], parts: readonly Segment[], mark: Uint8Array): number[] {
  const ranked = keys
    .map((k) => ({ k, n: countOf(parts, k) }))
    .sort((a, b) => a.n - b.n)
    .filter((r, i) => i === 0 || r.n <= COMMON_SHARE * mark.length)
    .slice(0, MAX_KEYS);
  let cur: number[] = [];
  const first = ranked[0];
  if (!first || first.n === 0) return cur;
  for (const p of parts) p.forEach(first.k, (f) => cur.push(f));
  for (const { k } of ranked.slice(1)) {
    if (cur.length === 0) break;
    for (const p of parts) p.forEach(k, (f) => (mark[f] = 1));
    cur = cur.filter((f) => mark[f] === 1);
    mark.fill(0);
  }
  return cur;
}
