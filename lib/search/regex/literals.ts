/**
 * What text every match of a parsed pattern must contain, as an AND of ORs: each clause is a list of
 * strings one of which occurs in every match. The searcher's byte prefilter uses a clause of one
 * string; an n-gram index can plan with all of them. Exact by construction: a node contributes only
 * what every one of its matches holds (an optional or zero-width part contributes nothing).
 * `caseInsensitive`: the pattern ignores case everywhere, and the strings must be compared under
 * Unicode simple case folding; a partly case-insensitive pattern spells the variants out instead.
 */
import type { ClassSet, Node } from './ast.ts';
import { classEdges, type Edges, heads, tails, triples } from './byte_edges.ts';
import { caseVariants } from './translate.ts';

export interface RequiredLiterals {
  clauses: string[][];
  caseInsensitive: boolean;
  /**
   * Clauses of byte triples (three UTF-8 bytes packed in 24 bits, case as written): every match's
   * bytes in the file hold one triple of each, where a large class meets literal text (byte_edges.ts).
   */
  triples: number[][];
}

/** Most strings kept in an exact set (cross products and alternations past this give up exactness). */
const MAX_SET = 16;

interface Info {
  /** Every match is exactly one of these strings, when known. */
  exact?: string[];
  /** Clauses every match satisfies. */
  req: string[][];
  /** Triple clauses every match satisfies (byte_edges.ts). */
  bytes?: number[][];
  /** The bytes every match begins and ends with, when it is a class too large to spell out. */
  edges?: Edges;
}

/**
 * `withTriples` false: the clauses only, without the byte triples (only an index plans with those;
 * each distinct class costs a regex and 129 tests to learn its edges).
 */
export function requiredLiteralsOf(node: Node, caseInsensitive: boolean, withTriples = true): RequiredLiterals {
  const info = analyse(node, caseInsensitive, withTriples ? classEdges : () => undefined);
  const clauses = finish(info);
  const seen = new Set<string>();
  const byteClauses = (info.bytes ?? []).filter((c) => {
    const k = [...c].sort((a, b) => a - b).join();
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
  // An alternation's strings often share a prefix or suffix ((user|order)Cache): that part alone is a
  // one-string clause the byte prefilter can use.
  for (const c of [...clauses]) {
    if (c.length < 2) continue;
    const pre = commonAffix(c, (s, n) => s.slice(0, n));
    const suf = commonAffix(c, (s, n) => s.slice(s.length - n));
    for (const a of [pre, suf]) if (a) clauses.push([a]);
  }
  return { clauses: dedupe(clauses), caseInsensitive, triples: byteClauses };
}

/** The longest string `cut(s, n)` that every string of `c` shares (UTF-16 cuts that split a pair are skipped). */
function commonAffix(c: string[], cut: (s: string, n: number) => string): string {
  const shortest = Math.min(...c.map((s) => s.length));
  for (let n = shortest; n > 0; n--) {
    const a = cut(c[0] as string, n);
    if (!/^[\udc00-\udfff]|[\ud800-\udbff]$/.test(a) && c.every((s) => cut(s, n) === a)) return a;
  }
  return '';
}

function finish(info: Info): string[][] {
  const clauses = [...info.req];
  if (info.exact && !info.exact.includes('')) clauses.push(info.exact);
  return clauses.filter((c) => c.length > 0 && !c.includes(''));
}

function dedupe(clauses: string[][]): string[][] {
  const seen = new Set<string>();
  return clauses
    .map((c) => [...new Set(c)].sort())
    .filter((c) => {
      const k = JSON.stringify(c);
      if (seen.has(k)) return false;
      seen.add(k);
      return true;
    });
}

type EdgesOf = (n: Extract<Node, { t: 'class' }>) => Edges | undefined;

function analyse(n: Node, allCi: boolean, edgesOf: EdgesOf): Info {
  switch (n.t) {
    case 'empty':
    case 'assert':
    case 'look':
      return { exact: [''], req: [] };
    case 'lit': {
      if (!n.ci || allCi) return { exact: [String.fromCodePoint(n.cp)], req: [] };
      return { exact: caseVariants(n.cp).map((c) => String.fromCodePoint(c)), req: [] };
    }
    case 'class': {
      const cps = smallSet(n.set);
      const all = cps && !(n.ci && allCi) ? (n.ci ? [...new Set(cps.flatMap(caseVariants))] : cps) : undefined;
      if (all && all.length <= MAX_SET) return { exact: all.map((c) => String.fromCodePoint(c)), req: [] };
      return { req: [], edges: edgesOf(n) };
    }
    case 'dot':
      return { req: [] };
    case 'group':
      return analyse(n.node, allCi, edgesOf);
    case 'cat':
      return concat(
        n.nodes.map((x) => analyse(x, allCi, edgesOf)),
        allCi,
      );
    case 'alt': {
      const infos = n.nodes.map((x) => analyse(x, allCi, edgesOf));
      const exact = infos.every((i) => i.exact) ? [...new Set(infos.flatMap((i) => i.exact as string[]))] : undefined;
      if (exact && exact.length <= MAX_SET) return { exact, req: [] };
      // Each branch gives its best clause; one of them holds in every match.
      const picks = infos.map((i) => best(finish(i)));
      if (picks.some((p) => p === undefined)) return { req: [] };
      return { req: [[...new Set(picks.flat() as string[])]] };
    }
    case 'rep': {
      if (n.max === 0) return { exact: [''], req: [] };
      const inner = analyse(n.node, allCi, edgesOf);
      if (n.min === 0) return { req: [] };
      if (inner.exact && n.min === n.max && inner.exact.length ** n.min <= MAX_SET && n.min <= 64) {
        const parts: Info[] = Array.from({ length: n.min }, () => inner);
        return concat(parts, allCi);
      }
      // At least once: what one occurrence holds, and its first and last bytes are the repetition's.
      return { req: finish(inner), bytes: inner.bytes, edges: inner.edges };
    }
  }
}

/**
 * A concatenation: exact runs are multiplied out while small; each finished run becomes a clause. Where
 * a part with byte edges (a large class) meets an exact run, the triples across that edge become a
 * clause too: the run's last two bytes with the part's first byte, the part's last byte with the next
 * run's first two.
 */
function concat(parts: Info[], ci: boolean): Info {
  const req: string[][] = [];
  const bytes: number[][] = [];
  const edge = (t: number[] | undefined) => t && bytes.push(t);
  let run: string[] | undefined = [''];
  let allExact = true;
  // The last bytes of the edged part the current run directly follows.
  let after: number[] | undefined;
  for (const p of parts) {
    req.push(...p.req);
    bytes.push(...(p.bytes ?? []));
    if (p.exact && run) {
      const ex = p.exact;
      const product: string[] = run.flatMap((a) => ex.map((b) => a + b));
      if (product.length <= MAX_SET) {
        run = [...new Set(product)];
        continue;
      }
    }
    allExact = false;
    if (!p.exact && p.edges && run) {
      const before = tails(run, ci);
      edge(before && triples(before, p.edges.first));
    }
    const runFollowsEdge = run === undefined && after !== undefined;
    if (run) {
      const next = after && heads(run, ci);
      edge(after && next && triples(after, next));
      req.push(run);
    }
    const small = p.exact && p.exact.length <= MAX_SET;
    run = small ? p.exact : undefined;
    after = small ? (runFollowsEdge ? after : undefined) : p.exact ? undefined : p.edges?.last;
  }
  if (allExact && run) return { exact: run, req, bytes };
  if (run) {
    const next = after && heads(run, ci);
    edge(after && next && triples(after, next));
    req.push(run);
  }
  return { req: req.filter((c) => !c.includes('')), bytes };
}

/** The clause most selective for a prefilter: fewest alternatives, then the longest shortest string. */
export function best(clauses: string[][]): string[] | undefined {
  let pick: string[] | undefined;
  const score = (c: string[]) => Math.min(...c.map((s) => s.length)) / c.length;
  for (const c of clauses) if (!pick || score(c) > score(pick)) pick = c;
  return pick;
}

function smallSet(s: ClassSet): number[] | undefined {
  const out: number[] = [];
  const add = (x: ClassSet): boolean => {
    if (x.k === 'range') {
      if (x.hi - x.lo + 1 + out.length > MAX_SET) return false;
      for (let c = x.lo; c <= x.hi; c++) out.push(c);
      return true;
    }
    return x.k === 'union' && !x.neg && x.items.every(add);
  };
  return add(s) ? out : undefined;
}
