/**
 * grep's pattern compiler: ripgrep's syntax parsed (parse.ts), translated to a JavaScript `v`-flag
 * regex with the same meaning (translate.ts), and the literals every match needs pulled from the
 * syntax tree (literals.ts) so the searcher can reject files on raw bytes before decoding them.
 * The engine choice (a translation to V8's regex rather than a JavaScript RE2) is measured in
 * docs/regex-engine.md. Pure functions; run in workers and inline.
 */
import { errValue, okValue, type Result } from '../../core/result.ts';
import type { ClassSet, Node } from './ast.ts';
import { best, type RequiredLiterals, requiredLiteralsOf } from './literals.ts';
import { parseRegex } from './parse.ts';
import { isLocal, matchSpan } from './span.ts';
import { caseVariants, TranslateFault, translate } from './translate.ts';

export type { RequiredLiterals } from './literals.ts';

export interface RegexSpec {
  /** Tests one line (no newline). Not global: `test` keeps no state. */
  line: RegExp;
  /** Global scanner over a whole text, for candidates when there is no literal. */
  scan: RegExp;
  /** A substring every match contains, matched case-sensitively on raw UTF-8 bytes. */
  literal?: Buffer;
  /**
   * The other substrings every match contains, case-sensitive like `literal`: a region or a candidate
   * line missing one cannot match, and is passed over undecoded.
   */
  alsoLiterals?: Buffer[];
  /** A pure-ASCII substring every match contains, for case-insensitive patterns (lib/search/folded_literal.ts). */
  literalFolded?: string;
  /**
   * Byte strings one of which every match contains: a non-ASCII character's case variants, for a
   * case-insensitive literal with no ASCII run to fold. A region holding none is skipped undecoded.
   */
  literalAny?: Buffer[];
  /** The pattern is exactly its literal: a line matches iff it contains the literal. */
  pure: boolean;
  /**
   * No quantifier and no alternative anywhere (a literal always): the regex tries each start once and
   * cannot backtrack, whatever the text (lib/search/linear_pattern.ts says why that is the test).
   */
  linear: boolean;
  /**
   * Group k's name at index k (undefined: the whole match, 0, and unnamed groups): the translation
   * keeps the groups in order and drops their names, so rg -r's `$name` is found by number.
   */
  groupNames: readonly (string | undefined)[];
  /** The most bytes a match can span, when bounded and independent of its surroundings (span.ts). */
  span?: number;
  /**
   * Matches depend on nothing around them (span.ts isLocal), however long: one found in a window of a
   * line is one in the line, so a long line can be confirmed from windows before it is decoded whole.
   */
  local?: true;
  /**
   * The literals every match contains, an AND of ORs (for an index to plan with); undefined when
   * nothing is required. With `caseInsensitive` they are compared under Unicode simple case folding.
   */
  requiredLiterals(): RequiredLiterals | undefined;
}

export interface RegexOptions {
  ignoreCase: boolean;
  fixedStrings: boolean;
  /** Matches may span lines: `\A`, `\z` and `(?-m)` anchors then mean the file's ends, not the line's. */
  multiline?: boolean;
}

export function compileRegex(pattern: string, o: RegexOptions): Result<RegexSpec, string> {
  const tree: Result<Node, string> = o.fixedStrings
    ? okValue(literalNode(pattern, o.ignoreCase))
    : parseRegex(pattern, { i: o.ignoreCase });
  if (!tree.ok) return tree;
  const node = tree.value;
  if (!o.multiline && hasNewline(node))
    return errValue('the literal "\\n" can never match one line; pass multiline: true to match across lines');
  let line: RegExp;
  let scan: RegExp;
  try {
    const t = translate(node, !o.multiline);
    line = new RegExp(t.source, o.multiline ? `${t.flags}m` : t.flags);
    scan = new RegExp(t.source, `${t.flags}gm`);
  } catch (e) {
    if (e instanceof TranslateFault || e instanceof SyntaxError) return errValue((e as Error).message);
    throw e;
  }
  const allCi = ciEverywhere(node);
  // The searcher's prefilter needs the literal clauses only; the index's triples are worked out on request.
  const required = requiredLiteralsOf(node, allCi, false);
  let planned: RequiredLiterals | undefined;
  const singles = required.clauses.filter((c) => c.length === 1);
  const lit = best(singles)?.[0];
  // A literal with \r is confirmed on the line: the raw bytes hold a CRLF line's \r, the line does not.
  const whole = isPlainLiteral(node) && lit !== undefined && !/[\n\r]/.test(lit) && lit.length === literalLength(node);
  const span = o.multiline ? undefined : matchSpan(node);
  const local = !o.multiline && span === undefined && isLocal(node);
  const spec: RegexSpec = {
    line,
    scan,
    pure: false,
    linear: o.fixedStrings || !canBacktrack(node),
    groupNames: groupNamesOf(node),
    ...(span !== undefined ? { span } : {}),
    ...(local ? { local } : {}),
    requiredLiterals: () => {
      planned ??= requiredLiteralsOf(node, allCi);
      return planned.clauses.length > 0 || planned.triples.length > 0 ? planned : undefined;
    },
  };
  if (lit) {
    if (!allCi) {
      spec.literal = Buffer.from(lit, 'utf8');
      spec.pure = whole;
      const also = otherLiterals(singles, lit);
      if (also.length > 0) spec.alsoLiterals = also;
    } else if (/^[\x20-\x7e\t]+$/.test(lit)) {
      spec.literalFolded = lit.toLowerCase();
      // Exact when the region's folded view is (lib/search/folded_literal.ts); hits.ts checks that.
      spec.pure = whole;
    } else {
      // A non-ASCII literal: its longest ASCII run is required too (folded the same way), and the
      // candidate lines it gives are confirmed by the line regex.
      const run = (lit.match(/[\x20-\x7e\t]+/g) ?? []).reduce((a, b) => (b.length > a.length ? b : a), '');
      if (run.length >= 3) spec.literalFolded = run.toLowerCase();
      else spec.literalAny = variantsOfRarest(lit);
    }
  }
  return okValue(spec);
}

/** Most other literals a region and a candidate line are checked for: the longest ones. */
const MAX_ALSO_LITERALS = 3;

/**
 * The single-literal clauses besides the chosen one, as bytes: longest first, none the chosen one
 * already contains (a region holding it holds them), none with U+FFFD (which a line's invalid bytes
 * decode to, so its own bytes need not be there).
 */
function otherLiterals(singles: string[][], chosen: string): Buffer[] {
  const others = new Set<string>();
  for (const [s] of singles) if (s && s !== chosen && !chosen.includes(s) && !s.includes('\uFFFD')) others.add(s);
  return [...others]
    .sort((a, b) => b.length - a.length)
    .slice(0, MAX_ALSO_LITERALS)
    .map((s) => Buffer.from(s, 'utf8'));
}

/**
 * The UTF-8 spellings of the case variants (Unicode simple case folding, as the `iv` regex matches) of
 * the literal's most selective non-ASCII character: fewest variants, then longest. U+FFFD is skipped:
 * invalid bytes decode to it, so its bytes need not be in the file.
 */
function variantsOfRarest(lit: string): Buffer[] | undefined {
  let pick: Buffer[] | undefined;
  const score = (v: Buffer[]) => Math.min(...v.map((b) => b.length)) / v.length;
  for (const ch of lit) {
    const cp = ch.codePointAt(0) as number;
    if (cp < 0x80 || cp === 0xfffd) continue;
    const v = caseVariants(cp).map((c) => Buffer.from(String.fromCodePoint(c)));
    if (!pick || score(v) > score(pick)) pick = v;
  }
  return pick;
}

/** The names of the capture groups in the order their parentheses open, as both engines number them. */
function groupNamesOf(root: Node): (string | undefined)[] {
  const names: (string | undefined)[] = [undefined];
  const walk = (n: Node): void => {
    if (n.t === 'group' && n.capture) names.push(n.name);
    if (n.t === 'cat' || n.t === 'alt') n.nodes.forEach(walk);
    else if (n.t === 'group' || n.t === 'look' || n.t === 'rep') walk(n.node);
  };
  walk(root);
  return names;
}

function literalNode(s: string, ci: boolean): Node {
  const nodes: Node[] = [...s].map((c) => ({ t: 'lit', cp: c.codePointAt(0) as number, ci }));
  return nodes.length === 1 ? (nodes[0] as Node) : nodes.length === 0 ? { t: 'empty' } : { t: 'cat', nodes };
}

function isPlainLiteral(n: Node): boolean {
  return n.t === 'lit' || (n.t === 'cat' && n.nodes.every((x) => x.t === 'lit'));
}
const literalLength = (n: Node) =>
  n.t === 'lit'
    ? String.fromCodePoint(n.cp).length
    : n.t === 'cat'
      ? n.nodes.reduce((k, x) => k + (x.t === 'lit' ? String.fromCodePoint(x.cp).length : 0), 0)
      : 0;

function ciEverywhere(root: Node): boolean {
  let any = false;
  let all = true;
  const walk = (n: Node): void => {
    if (n.t === 'lit' || n.t === 'class') {
      any = true;
      if (!n.ci) all = false;
    } else if (n.t === 'cat' || n.t === 'alt') n.nodes.forEach(walk);
    else if (n.t === 'group' || n.t === 'look' || n.t === 'rep') walk(n.node);
  };
  walk(root);
  return any && all;
}

function hasNewline(n: Node): boolean {
  if (n.t === 'lit') return n.cp === 10;
  if (n.t === 'cat' || n.t === 'alt') return n.nodes.some(hasNewline);
  if (n.t === 'group' || n.t === 'rep') return hasNewline(n.node);
  // A class of just the newline (`[\n]`, `[\x0A]`) is the literal newline to rg, an error too.
  if (n.t === 'class') return isOnlyNewline(n.set);
  return false;
}

function isOnlyNewline(set: ClassSet): boolean {
  if (set.k === 'range') return set.lo === 10 && set.hi === 10;
  if (set.k === 'union') return !set.neg && set.items.length > 0 && set.items.every(isOnlyNewline);
  return false;
}

/**
 * Where a global scan resumes after an empty match at `index`: the next code point. One code unit on
 * is the middle of a surrogate pair, which a `v`-flag regex moves back from, finding the same empty
 * match forever (`a*` before an emoji).
 */
export function afterEmptyMatch(text: string, index: number): number {
  return index + ((text.codePointAt(index) ?? 0) > 0xffff ? 2 : 1);
}

/** Whether the pattern can make V8 backtrack: any repetition or alternation (see lib/search/linear_pattern.ts). */
export function canBacktrack(n: Node): boolean {
  switch (n.t) {
    case 'rep':
    case 'alt':
      return true;
    case 'cat':
      return n.nodes.some(canBacktrack);
    case 'group':
    case 'look':
      return canBacktrack(n.node);
    default:
      return false;
  }
}
