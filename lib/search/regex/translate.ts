/**
 * A parsed ripgrep pattern as a JavaScript regex with the `v` flag, meaning the same: `.` stops only at
 * `\n`, perl classes and word boundaries are Unicode as in Rust, anchors are spelled as lookarounds on
 * `\n` (JavaScript's `^`/`$` also break at `\r`, U+2028 and U+2029), class set operations map onto
 * `v`'s `&&` and `--` (`~~` as two differences). Case-insensitivity is the `i` flag when it covers the
 * whole pattern; where only part of it is, its characters are spelled as explicit case variants.
 *
 * Line mode (not multiline): the regex runs on one line at a time, so `\A`, `\z` and `(?-m)` anchors
 * are the line's ends, as in ripgrep. A line's trailing `\r` is not part of it: `$` matches before
 * `\r\n` (a deliberate difference from rg without --crlf, listed in the README). Multiline: `^` and
 * `$` are JavaScript's with the `m` flag, so they also break at a lone `\r`, U+2028 and U+2029.
 */
import type { Assertion, ClassSet, Node } from './ast.ts';
import { fastPerl, UNICODE_WORD } from './parse_class.ts';

interface Translated {
  source: string;
  /** `v`, plus `i` when the whole pattern is case-insensitive; the caller adds `m` (see above) and `g`. */
  flags: string;
}

const ASCII_WORD = '[0-9A-Za-z_]';
const FAST_WORD = fastPerl('w', false);
const WORD_CHAR = new RegExp(`^[${UNICODE_WORD}]$`, 'v');
const isWordLiteral = (n: Node | undefined) => n?.t === 'lit' && WORD_CHAR.test(String.fromCodePoint(n.cp));
/** Largest class spelled out character by character for a case-insensitive part of a mixed pattern. */
const MAX_EXPANDED = 4096;

export class TranslateFault extends Error {}

export function translate(node: Node, lineMode: boolean): Translated {
  const ci = caseUse(node);
  const t = new Translator(lineMode, ci === 'mixed');
  return { source: t.node(node), flags: ci === 'all' ? 'iv' : 'v' };
}

/** Whether case-insensitivity applies to no character-matching node, to all of them, or to some. */
function caseUse(root: Node): 'none' | 'all' | 'mixed' {
  let on = false;
  let off = false;
  const walk = (n: Node): void => {
    if (n.t === 'lit' || n.t === 'class') {
      if (n.ci) on = true;
      else off = true;
    } else if (n.t === 'cat' || n.t === 'alt') n.nodes.forEach(walk);
    else if (n.t === 'group' || n.t === 'look' || n.t === 'rep') walk(n.node);
  };
  walk(root);
  return on && off ? 'mixed' : on ? 'all' : 'none';
}

class Translator {
  private readonly lineMode: boolean;
  private readonly mixed: boolean;
  constructor(lineMode: boolean, mixed: boolean) {
    this.lineMode = lineMode;
    this.mixed = mixed;
  }

  node(n: Node): string {
    switch (n.t) {
      case 'empty':
        return '';
      case 'lit':
        return this.mixed && n.ci ? this.variants([n.cp]) : char(n.cp);
      case 'dot':
        return n.nl ? '[\\s\\S]' : n.crlf ? '[^\\n\\r]' : '[^\\n]';
      case 'class':
        if (this.mixed && n.ci) return this.variants(expand(n.set));
        return n.set.k === 'js' && n.set.fast ? n.set.fast : `[${set(n.set)}]`;
      case 'assert':
        return assertion(n.kind, n.ascii, this.lineMode);
      case 'group':
        return `(${n.capture ? '' : '?:'}${this.node(n.node)})`;
      case 'look':
        return `(?${n.behind ? '<' : ''}${n.neg ? '!' : '='}${this.node(n.node)})`;
      case 'cat':
        return n.nodes.map((x, i) => this.inCat(x, n.nodes[i - 1], n.nodes[i + 1])).join('');
      case 'alt':
        return `(?:${n.nodes.map((x) => this.node(x)).join('|')})`;
      case 'rep': {
        const inner = this.node(n.node);
        const atom = n.node.t === 'lit' || n.node.t === 'dot' || n.node.t === 'class' ? inner : `(?:${inner})`;
        const q =
          n.min === 0 && n.max === Number.POSITIVE_INFINITY
            ? '*'
            : n.min === 1 && n.max === Number.POSITIVE_INFINITY
              ? '+'
              : n.min === 0 && n.max === 1
                ? '?'
                : n.max === Number.POSITIVE_INFINITY
                  ? `{${n.min},}`
                  : n.min === n.max
                    ? `{${n.min}}`
                    : `{${n.min},${n.max}}`;
        return atom + q + (n.greedy ? '' : '?');
      }
    }
  }

  /**
   * A node in a concatenation. A Unicode `\b` next to a word character needs only the other side
   * checked (`\bfoo` is "no word character before"): one lookaround instead of four, several times
   * faster in V8 with Unicode word sets.
   */
  inCat(n: Node, prev: Node | undefined, next: Node | undefined): string {
    if (n.t === 'assert' && n.kind === 'word' && !n.ascii) {
      if (isWordLiteral(next)) return `(?<!${FAST_WORD})`;
      if (isWordLiteral(prev)) return `(?!${FAST_WORD})`;
    }
    return this.node(n);
  }

  /** The code points and all their case variants, as one class. */
  variants(cps: number[]): string {
    const all = new Set<number>();
    for (const cp of cps) for (const v of caseVariants(cp)) all.add(v);
    return `[${[...all].map(char).join('')}]`;
  }
}

/** A code point as regex source, escaped unless it is a letter, digit or `_`. */
export function char(cp: number): string {
  return /[0-9A-Za-z_]/.test(String.fromCodePoint(cp)) ? String.fromCodePoint(cp) : `\\u{${cp.toString(16)}}`;
}

function set(s: ClassSet): string {
  switch (s.k) {
    case 'range':
      return s.lo === s.hi ? char(s.lo) : `${char(s.lo)}-${char(s.hi)}`;
    case 'js':
      return s.src;
    case 'union':
      return s.neg || s.items.length !== 1
        ? `[${s.neg ? '^' : ''}${s.items.map(set).join('')}]`
        : set(s.items[0] as ClassSet);
    case 'op': {
      const l = `[${set(s.left)}]`;
      const r = `[${set(s.right)}]`;
      if (s.op === '&&') return `[${l}&&${r}]`;
      if (s.op === '--') return `[${l}--${r}]`;
      return `[[${l}--${r}][${r}--${l}]]`;
    }
  }
}

/** The code points of a class made only of characters and ranges (for case expansion), or a fault. */
function expand(s: ClassSet): number[] {
  const cps: number[] = [];
  const add = (x: ClassSet) => {
    if (x.k === 'range') for (let c = x.lo; c <= x.hi && cps.length <= MAX_EXPANDED; c++) cps.push(c);
    else if (x.k === 'union' && !x.neg) x.items.forEach(add);
    else
      throw new TranslateFault(
        'a case-insensitive class with \\p, \\w, \\d, \\s, negation or set operations is supported only when the whole pattern is case-insensitive; put (?i) at the start, or spell the class out',
      );
  };
  add(s);
  if (cps.length > MAX_EXPANDED)
    throw new TranslateFault(
      'a case-insensitive class in a partly case-insensitive pattern is too large; put (?i) at the start',
    );
  return cps;
}

// Characters whose case-folding orbit is more than a lowercase/uppercase pair (Unicode simple folding).
const ORBITS = [
  [0x4b, 0x6b, 0x212a],
  [0x53, 0x73, 0x17f],
  [0xc5, 0xe5, 0x212b],
  [0x3a3, 0x3c3, 0x3c2],
  [0x398, 0x3b8, 0x3d1, 0x3f4],
  [0x392, 0x3b2, 0x3d0],
  [0x395, 0x3b5, 0x3f5],
  [0x39a, 0x3ba, 0x3f0],
  [0x3a0, 0x3c0, 0x3d6],
  [0x3a1, 0x3c1, 0x3f1],
  [0x3a6, 0x3c6, 0x3d5],
  [0x399, 0x3b9, 0x345, 0x1fbe],
  [0x39c, 0x3bc, 0xb5],
  [0x1e60, 0x1e61, 0x1e9b],
  [0x3a9, 0x3c9, 0x2126],
];

/** `cp` and every code point JavaScript's `iv` matching treats as the same, checked by the engine itself. */
export function caseVariants(cp: number): number[] {
  const s = String.fromCodePoint(cp);
  const candidates = new Set<number>([cp]);
  for (const x of [s.toLowerCase(), s.toUpperCase(), s.toLowerCase().toUpperCase(), s.toUpperCase().toLowerCase()])
    if ([...x].length === 1) candidates.add(x.codePointAt(0) as number);
  for (const orbit of ORBITS) if (orbit.some((c) => candidates.has(c))) for (const c of orbit) candidates.add(c);
  const re = new RegExp(`^${char(cp)}$`, 'iv');
  return [...candidates].filter((c) => re.test(String.fromCodePoint(c)));
}

function assertion(kind: Assertion, ascii: boolean, lineMode: boolean): string {
  const w = ascii ? ASCII_WORD : FAST_WORD;
  switch (kind) {
    // `^` and `$` rather than lookarounds on `\n`: V8 tries positions inside a surrogate pair for a
    // match that starts with a lookaround, and there a lookaround on a negated class misreads the half
    // character (`/(?<![^\n])(?![^\n])/v` matches inside "😀"). Line mode: the line regex has no `m`
    // (a line holds no `\n`); the scanner has `m`, so it finds a superset of candidate lines.
    case 'lineStart':
      return '^';
    case 'lineEnd':
      return '$';
    case 'textStart':
      return lineMode ? '^' : '(?<![\\s\\S])';
    case 'textEnd':
      return lineMode ? '$' : '(?![\\s\\S])';
    case 'word':
      return ascii ? '\\b' : `(?:(?<=${w})(?!${w})|(?<!${w})(?=${w}))`;
    case 'notWord':
      return ascii ? '\\B' : `(?:(?<=${w})(?=${w})|(?<!${w})(?!${w}))`;
    case 'wordStart':
      return `(?<!${w})(?=${w})`;
    case 'wordEnd':
      return `(?<=${w})(?!${w})`;
    case 'wordStartHalf':
      return `(?<!${w})`;
    case 'wordEndHalf':
      return `(?!${w})`;
  }
}
