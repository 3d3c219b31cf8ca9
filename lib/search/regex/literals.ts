/**
 * What text every match of a parsed pattern must contain, as an AND of ORs: each clause is a list of
 * strings one of which occurs in every match. The searcher's byte prefilter uses a clause of one
 * string; an n-gram index can plan with all of them. Exact by construction: a node contributes only
 * what every one of its matches holds (an optional or zero-width part contributes nothing).
 * `caseInsensitive`: the pattern ignores case everywhere, and the strings must be compared under
 * Unicode simple case folding; a partly case-insensitive pattern spells the variants out instead.
 */
import type { ClassSet, Node } from './ast.ts';
import { caseVariants } from './translate.ts';

export interface RequiredLiterals {
  clauses: string[][];
  caseInsensitive: boolean;
}

/** Most strings kept in an exact set (cross products and alternations past this give up exactness). */
const MAX_SET = 16;

interface Info {
  /** Every match is exactly one of these strings, when known. */
  exact?: string[];
  /** Clauses every match satisfies. */
  req: string[][];
}

export function requiredLiteralsOf(node: Node, caseInsensitive: boolean): RequiredLiterals {
  const info = analyse(node, caseInsensitive);
  const clauses = finish(info);
  // An alternation's strings often share a prefix or suffix ((user|order)Cache): that part alone is a
  // one-string clause the byte prefilter can use.
  for (const c of [...clauses]) {
    if (c.length < 2) continue;
    const pre = commonAffix(c, (s, n) => s.slice(0, n));
    const suf = commonAffix(c, (s, n) => s.slice(s.length - n));
    for (const a of [pre, suf]) if (a) clauses.push([a]);
  }
  return { clauses: dedupe(clauses), caseInsensitive };
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

function analyse(n: Node, allCi: boolean): Info {
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
      if (!cps || (n.ci && allCi)) return { req: [] };
      const all = n.ci ? [...new Set(cps.flatMap(caseVariants))] : cps;
      return all.length <= MAX_SET ? { exact: all.map((c) => String.fromCodePoint(c)), req: [] } : { req: [] };
    }
    case 'dot':
      return { req: [] };
    case 'group':
      return analyse(n.node, allCi);
    case 'cat':
      return concat(n.nodes.map((x) => analyse(x, allCi)));
    case 'alt': {
      const infos = n.nodes.map((x) => analyse(x, allCi));
      const exact = infos.every((i) => i.exact) ? [...new Set(infos.flatMap((i) => i.exact as string[]))] : undefined;
      if (exact && exact.length <= MAX_SET) return { exact, req: [] };
      // Each branch gives its best clause; one of them holds in every match.
      const picks = infos.map((i) => best(finish(i)));
      if (picks.some((p) => p === undefined)) return { req: [] };
      return { req: [[...new Set(picks.flat() as string[])]] };
    }
    case 'rep': {
      if (n.max === 0) return { exact: [''], req: [] };
      const inner = analyse(n.node, allCi);
      if (n.min === 0) return { req: [] };
      if (inner.exact && n.min === n.max && inner.exact.length ** n.min <= MAX_SET && n.min <= 64) {
        const parts: Info[] = Array.from({ length: n.min }, () => inner);
        return concat(parts);
      }
      return { req: finish(inner) };
    }
  }
}

/** A concatenation: exact runs are multiplied out while small; each finished run becomes a clause. */
function concat(parts: Info[]): Info {
  const req: string[][] = [];
  let run: string[] | undefined = [''];
  let allExact = true;
  for (const p of parts) {
    req.push(...p.req);
    if (p.exact && run) {
      const ex = p.exact;
      const product: string[] = run.flatMap((a) => ex.map((b) => a + b));
      if (product.length <= MAX_SET) {
        run = [...new Set(product)];
        continue;
      }
    }
    allExact = false;
    if (run) req.push(run);
    run = p.exact && p.exact.length <= MAX_SET ? p.exact : undefined;
  }
  if (allExact && run) return { exact: run, req };
  if (run) req.push(run);
  return { req: req.filter((c) => !c.includes('')) };
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
