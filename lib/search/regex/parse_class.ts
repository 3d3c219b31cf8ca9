/**
 * Bracketed classes and escapes of ripgrep's syntax: `[^…]`, ranges, nested classes, POSIX classes
 * (`[:upper:]`, ASCII as in Rust), the set operations `&&` `--` `~~` (equal precedence, left to right,
 * looser than union), perl classes with Rust's Unicode meaning, `\p{…}` by Rust's loose names, and
 * every character escape (`\x7F`, `\x{10FFFF}`, `\u00e9`, `\u{…}`, `\U0001F600`, punctuation).
 */
import type { ClassSet, Flags } from './ast.ts';
import { unicodeProperty } from './unicode_names.ts';

const POSIX: Record<string, [number, number][]> = {
  alnum: [
    [48, 57],
    [65, 90],
    [97, 122],
  ],
  alpha: [
    [65, 90],
    [97, 122],
  ],
  ascii: [[0, 127]],
  blank: [
    [9, 9],
    [32, 32],
  ],
  cntrl: [
    [0, 31],
    [127, 127],
  ],
  digit: [[48, 57]],
  graph: [[33, 126]],
  lower: [[97, 122]],
  print: [[32, 126]],
  punct: [
    [33, 47],
    [58, 64],
    [91, 96],
    [123, 126],
  ],
  space: [
    [9, 13],
    [32, 32],
  ],
  upper: [[65, 90]],
  word: [
    [48, 57],
    [65, 90],
    [95, 95],
    [97, 122],
  ],
  xdigit: [
    [48, 57],
    [65, 70],
    [97, 102],
  ],
};

/** Rust's Unicode `\w`: Alphabetic, marks, decimal digits, connector punctuation, join controls. */
export const UNICODE_WORD = '\\p{Alphabetic}\\p{M}\\p{Nd}\\p{Pc}\\p{Join_Control}';
const PERL_UNICODE: Record<string, string> = { d: '\\p{Nd}', s: '\\p{White_Space}', w: `[${UNICODE_WORD}]` };
const PERL_NEGATED: Record<string, string> = { d: '\\P{Nd}', s: '\\P{White_Space}', w: `[^${UNICODE_WORD}]` };
// V8 tests a character against a large Unicode set several times slower than against an ASCII
// range (measured in docs/regex-engine.md), so outside brackets a perl class tests ASCII first:
// the ASCII part as a small class, the rest only for a non-ASCII character. Same set, no overlap.
const NOT_ASCII = '(?![\\x00-\\x7f])';
const ASCII_PART: Record<string, [string, string]> = {
  d: ['[0-9]', '[\\x00-\\x2f\\x3a-\\x7f]'],
  s: ['[\\t-\\r ]', '[\\x00-\\x08\\x0e-\\x1f\\x21-\\x7f]'],
  w: ['[0-9A-Za-z_]', '[\\x00-\\x2f\\x3a-\\x40\\x5b-\\x5e\\x60\\x7b-\\x7f]'],
};
/** A perl class (`d`, `s`, `w`) as a group testing ASCII first. */
export function fastPerl(letter: string, negated: boolean): string {
  const [pos, neg] = ASCII_PART[letter] as [string, string];
  const rest = (negated ? PERL_NEGATED : PERL_UNICODE)[letter] as string;
  return `(?:${negated ? neg : pos}|${NOT_ASCII}${rest.startsWith('[') ? rest : `[${rest}]`})`;
}
const PERL_ASCII: Record<string, string> = { d: 'digit', s: 'space', w: 'word' };
const CONTROL: Record<string, number> = { a: 7, f: 12, t: 9, n: 10, r: 13, v: 11 };

/** A syntax error in the pattern; the parser turns it into an error value. */
export class SyntaxFault extends Error {}

export const isSpace = (c: string) => /^\s$/u.test(c);
const range = (lo: number, hi = lo): ClassSet => ({ k: 'range', lo, hi });
const ranges = (rs: [number, number][], neg = false): ClassSet => ({
  k: 'union',
  neg,
  items: rs.map(([lo, hi]) => range(lo, hi)),
});

export class ClassParser {
  i = 0;
  readonly s: string;
  flags: Flags;
  constructor(s: string, flags: Flags) {
    this.s = s;
    this.flags = flags;
  }

  fail(msg: string): never {
    throw new SyntaxFault(`${msg} (at offset ${this.i})`);
  }

  /** Skips whitespace inside a class in verbose mode (Rust ignores it there too). */
  classSpace() {
    if (this.flags.x) while (this.s[this.i] !== undefined && isSpace(this.s[this.i] as string)) this.i++;
  }

  /** A bracketed class starting at `[`. */
  bracket(): ClassSet {
    this.i++;
    const neg = this.s[this.i] === '^';
    if (neg) this.i++;
    let acc: ClassSet | undefined;
    let op: '&&' | '--' | '~~' | undefined;
    let items: ClassSet[] = [];
    const operand = () => {
      if (items.length === 0)
        this.fail('empty character classes are not allowed (a set operation needs a class on each side)');
      const u: ClassSet = items.length === 1 ? (items[0] as ClassSet) : { k: 'union', neg: false, items };
      acc = acc === undefined || op === undefined ? u : { k: 'op', op, left: acc, right: u };
      items = [];
    };
    this.classSpace();
    if (this.s[this.i] === ']') {
      this.i++;
      items.push(range(93));
    }
    for (;;) {
      this.classSpace();
      const c = this.s[this.i];
      if (c === undefined) this.fail('unclosed character class: add the missing "]" (a literal "[" is written \\[)');
      if (c === ']') {
        this.i++;
        break;
      }
      const two = this.s.slice(this.i, this.i + 2);
      if (two === '&&' || two === '--' || two === '~~') {
        operand();
        op = two;
        this.i += 2;
        continue;
      }
      if (c === '[') {
        items.push(this.posix() ?? this.bracket());
        continue;
      }
      const lo = this.classItem();
      this.classSpace();
      if (this.s[this.i] === '-' && this.s[this.i + 1] !== ']' && this.s[this.i + 1] !== '-') {
        // Rust: `[\d-z]` is an error, not \d, `-` and z.
        if (lo.k !== 'range') this.fail('a range cannot start with a class such as \\d (escape the - as \\-)');
        this.i++;
        this.classSpace();
        const hi = this.classItem();
        if (hi.k !== 'range') this.fail('a range cannot end in a class such as \\d');
        if (hi.lo < lo.lo) this.fail('invalid class range: the start must be <= the end');
        items.push(range(lo.lo, hi.lo));
      } else items.push(lo);
    }
    operand();
    const set = acc as ClassSet;
    return neg ? { k: 'union', neg: true, items: [set] } : set;
  }

  posix(): ClassSet | undefined {
    const m = /^\[:(\^?)([a-z]+):\]/.exec(this.s.slice(this.i));
    const rs = m ? POSIX[m[2] as string] : undefined;
    if (!m || !rs) return undefined;
    this.i += m[0].length;
    return ranges(rs, m[1] === '^');
  }

  /** One item in a class: a character (as a one-character range) or an escape naming a class. */
  classItem(): ClassSet {
    if (this.s[this.i] === '\\') return this.classEscape();
    const c = this.s.codePointAt(this.i) as number;
    if (c > 0x7f && !this.flags.u)
      this.fail('a non-ASCII character is not allowed with (?-u); turn u back on with (?u)');
    this.i += c > 0xffff ? 2 : 1;
    return range(c);
  }

  /** The escape at `\`: a class (`\d`, `\pL`) or a single character as a one-character range. */
  classEscape(): ClassSet {
    this.i++;
    const c = this.s[this.i++];
    if (c === undefined) this.fail('the pattern ends in a lone "\\" (a literal backslash is written \\\\)');
    const lower = c.toLowerCase();
    if ('dsw'.includes(lower)) {
      const neg = c !== lower;
      if (!this.flags.u) return ranges(POSIX[PERL_ASCII[lower] as string] as [number, number][], neg);
      return { k: 'js', src: (neg ? PERL_NEGATED : PERL_UNICODE)[lower] as string, fast: fastPerl(lower, neg) };
    }
    if (c === 'p' || c === 'P') {
      if (!this.flags.u) this.fail('Unicode classes (\\p) are not allowed with (?-u)');
      let name: string;
      if (this.s[this.i] === '{') {
        const end = this.s.indexOf('}', this.i);
        if (end === -1) this.fail('unclosed Unicode class: \\p{…} needs its "}"');
        name = this.s.slice(this.i + 1, end);
        this.i = end + 1;
      } else name = this.s[this.i++] ?? '';
      const prop = unicodeProperty(name);
      if (!prop.ok) this.fail(prop.error);
      return { k: 'js', src: `\\${prop.value.negated !== (c === 'P') ? 'P' : 'p'}{${prop.value.name}}` };
    }
    return range(this.charEscape(c));
  }

  charEscape(c: string): number {
    const control = CONTROL[c];
    if (control !== undefined) return control;
    const hexLen: Record<string, number> = { x: 2, u: 4, U: 8 };
    const len = hexLen[c];
    if (len !== undefined) {
      let hex: string;
      if (this.s[this.i] === '{') {
        const end = this.s.indexOf('}', this.i);
        hex = end === -1 ? '' : this.s.slice(this.i + 1, end);
        this.i = end === -1 ? this.i : end + 1;
        if (!/^[0-9a-fA-F]{1,8}$/.test(hex)) this.fail(`invalid escape \\${c}{…}: give 1 to 8 hex digits`);
      } else {
        hex = this.s.slice(this.i, this.i + len);
        if (!new RegExp(`^[0-9a-fA-F]{${len}}$`).test(hex))
          this.fail(`invalid escape \\${c}: give exactly ${len} hex digits, or \\${c}{…}`);
        this.i += len;
      }
      const cp = Number.parseInt(hex, 16);
      if (cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) this.fail(`\\${c}{${hex}} is not a Unicode scalar value`);
      if (!this.flags.u && cp > 0x7f) this.fail('matching raw bytes above \\x7F with (?-u) is not supported');
      return cp;
    }
    const code = c.charCodeAt(0);
    // Rust allows escaping any ASCII character that is not a letter or digit (and `<` `>`, word
    // boundaries outside a class).
    if (code < 128 && !/[0-9A-Za-z]/.test(c)) return code;
    this.fail(
      `unrecognized escape sequence "\\${c}" (ripgrep has \\d \\w \\s \\b \\B \\A \\z \\pL \\x7F \\u{…} \\n \\t; escape only punctuation)`,
    );
  }
}
