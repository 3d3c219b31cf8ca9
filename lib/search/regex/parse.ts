/**
 * A parser for ripgrep's pattern syntax (Rust's regex crate): inline flags and flag groups, named
 * groups in both spellings, `\A` `\z` `\b` `\B` `\<` `\>` `\b{start}`, perl, POSIX and Unicode classes,
 * class set operations, every escape form, stacked repetitions, the empty pattern. What Rust rejects is
 * an error here too (never a silent change of meaning), except lookaround, which is kept as an
 * extension. Classes are parsed in parse_class.ts.
 */
import { errValue, okValue, type Result } from '../../core/result.ts';
import type { Flags, Node } from './ast.ts';
import { ClassParser, isSpace, SyntaxFault } from './parse_class.ts';

const DEFAULT_FLAGS: Flags = { i: false, m: true, s: false, U: false, u: true, x: false, R: false };

/** Parses `src`; the error names the offending spot and what to write instead. */
export function parseRegex(src: string, start: Partial<Flags> = {}): Result<Node, string> {
  const p = new Parser(src, { ...DEFAULT_FLAGS, ...start });
  try {
    const node = p.alternation();
    if (p.i < src.length) p.fail('unopened group: this ")" closes nothing (escape it as \\))');
    return okValue(node);
  } catch (e) {
    if (e instanceof SyntaxFault) return errValue(e.message);
    throw e;
  }
}

class Parser extends ClassParser {
  names = new Set<string>();

  alternation(): Node {
    const saved = { ...this.flags };
    const branches: Node[] = [];
    let items: Node[] = [];
    for (;;) {
      this.space();
      const c = this.s[this.i];
      if (c === undefined || c === ')') break;
      if (c === '|') {
        this.i++;
        branches.push(cat(items));
        items = [];
      } else if (c === '*' || c === '+' || c === '?' || c === '{') {
        const last = items.pop();
        if (last === undefined) this.fail(`repetition operator "${c}" has nothing to repeat (escape it as \\${c})`);
        items.push(this.repetition(last));
      } else {
        const atom = this.atom();
        if (atom) items.push(atom);
      }
    }
    this.flags = saved;
    branches.push(cat(items));
    return branches.length === 1 ? (branches[0] as Node) : { t: 'alt', nodes: branches };
  }

  repetition(node: Node): Node {
    const c = this.s[this.i++];
    let min = 0;
    let max = Number.POSITIVE_INFINITY;
    if (c === '+') min = 1;
    else if (c === '?') max = 1;
    else if (c === '{') {
      min = this.decimal('a repetition {n}, {n,} or {n,m} (a lone "{" is written \\{)');
      this.space();
      if (this.s[this.i] === ',') {
        this.i++;
        this.space();
        max = this.s[this.i] === '}' ? Number.POSITIVE_INFINITY : this.decimal('a repetition {n,m}');
      } else max = min;
      this.space();
      if (this.s[this.i] !== '}') this.fail('unclosed counted repetition: expected "}" (a literal "{" is written \\{)');
      this.i++;
      if (min > max) this.fail(`invalid repetition {${min},${max}}: the start must be <= the end`);
    }
    let lazy = false;
    // Under x, Rust skips whitespace before the lazy `?`: `a+ ?` is `a+?`, not `(?:a+)?`.
    this.space();
    if (this.s[this.i] === '?') {
      this.i++;
      lazy = true;
    }
    return { t: 'rep', node, min, max, greedy: lazy === this.flags.U };
  }

  decimal(what: string): number {
    this.space();
    // Rust skips whitespace around a count even without x: `a{ 2 }` and `a{2, 3}` are repetitions.
    const m = /^(\s*)(\d+)\s*/.exec(this.s.slice(this.i));
    if (!m) this.fail(`expected a decimal number in ${what}`);
    this.i += m[0].length;
    const n = Number(m[2]);
    if (n > 1000) this.fail(`repetition count ${n} is over the limit of 1000`);
    return n;
  }

  atom(): Node | undefined {
    const c = this.s.codePointAt(this.i) as number;
    const ch = String.fromCodePoint(c);
    this.i += ch.length;
    switch (ch) {
      case '(':
        return this.group();
      case '[':
        this.i--;
        return { t: 'class', set: this.bracket(), ci: this.flags.i, ascii: !this.flags.u };
      case '.':
        return { t: 'dot', nl: this.flags.s, crlf: this.flags.R };
      case '^':
        return { t: 'assert', kind: this.flags.m ? 'lineStart' : 'textStart', ascii: false };
      case '$':
        return { t: 'assert', kind: this.flags.m ? 'lineEnd' : 'textEnd', ascii: false };
      case '\\':
        return this.escape();
      default:
        if (c > 0x7f && !this.flags.u)
          this.fail('a non-ASCII character is not allowed with (?-u); turn u back on with (?u)');
        return { t: 'lit', cp: c, ci: this.flags.i };
    }
  }

  escape(): Node {
    const c = this.s[this.i];
    const ascii = !this.flags.u;
    const assert = (kind: Extract<Node, { t: 'assert' }>['kind'], len = 1): Node => {
      this.i += len;
      return { t: 'assert', kind, ascii };
    };
    if (c === 'A') return assert('textStart');
    if (c === 'z') return assert('textEnd');
    if (c === 'B') return assert('notWord');
    if (c === '<') return assert('wordStart');
    if (c === '>') return assert('wordEnd');
    if (c === 'b') {
      const m = /^b\{(start|end|start-half|end-half)\}/.exec(this.s.slice(this.i));
      if (!m) return assert('word');
      const kinds = { start: 'wordStart', end: 'wordEnd', 'start-half': 'wordStartHalf', 'end-half': 'wordEndHalf' };
      return assert(kinds[m[1] as keyof typeof kinds] as 'wordStart', m[0].length);
    }
    if (c !== undefined && /[1-9]/.test(c))
      this.fail('backreferences are not supported (ripgrep needs -P for them); match the text itself instead');
    this.i--;
    const item = this.classEscape();
    if (item.k !== 'range' || item.lo !== item.hi) return { t: 'class', set: item, ci: this.flags.i, ascii };
    return { t: 'lit', cp: item.lo, ci: this.flags.i };
  }

  group(): Node | undefined {
    const saved = { ...this.flags };
    let capture = true;
    let name: string | undefined;
    if (this.s[this.i] === '?') {
      this.i++;
      const rest = this.s.slice(this.i);
      const look = /^(<?)([=!])/.exec(rest);
      const named = /^P?<([A-Za-z_][A-Za-z0-9_]*)>/.exec(rest);
      if (look) {
        this.i += look[0].length;
        const node = this.alternation();
        this.close();
        this.flags = saved;
        return { t: 'look', behind: look[1] === '<', neg: look[2] === '!', node };
      }
      if (named) {
        name = named[1] as string;
        if (this.names.has(name)) this.fail(`duplicate capture group name "${name}"`);
        this.names.add(name);
        this.i += named[0].length;
      } else if (/^P?</.test(rest)) {
        this.fail('invalid capture group name: use (?P<name>…) or (?<name>…) with a name of letters, digits and _');
      } else {
        capture = false;
        if (this.flagGroup()) return undefined; // (?flags): applies to the rest of the enclosing group
      }
    }
    const node = this.alternation();
    this.close();
    this.flags = saved;
    return { t: 'group', capture, ...(name !== undefined ? { name } : {}), node };
  }

  /** Reads `flags)` (true: they stay set) or `flags:` (false: a group follows); `:` alone is (?:…). */
  flagGroup(): boolean {
    let on = true;
    let seen = false;
    for (;;) {
      const c = this.s[this.i++];
      if (c === ')' || c === ':') {
        if (!on && !seen) this.fail('a flag group ends in "-" with no flag after it');
        if (c === ')' && this.s[this.i - 2] === '?') this.fail('empty flag group "(?)"');
        return c === ')';
      }
      if (c === '-') {
        if (!on) this.fail('repeated "-" in a flag group');
        on = false;
        seen = false;
      } else if (c !== undefined && 'imsUuxR'.includes(c)) {
        this.flags[c as keyof Flags] = on;
        seen = true;
      } else {
        this.i--;
        this.fail(
          `unrecognized flag "${c ?? ''}": ripgrep knows i m s U u x R, as in (?i) or (?i:…); lookaround is (?=…) (?!…) (?<=…) (?<!…)`,
        );
      }
    }
  }

  close() {
    if (this.s[this.i] !== ')') this.fail('unclosed group: add the missing ")" (a literal "(" is written \\()');
    this.i++;
  }

  /** Verbose mode (x): whitespace and `#` comments between items are ignored. */
  space() {
    if (!this.flags.x) return;
    for (;;) {
      const c = this.s[this.i];
      if (c !== undefined && isSpace(c)) this.i++;
      else if (c === '#') {
        const nl = this.s.indexOf('\n', this.i);
        this.i = nl === -1 ? this.s.length : nl + 1;
      } else return;
    }
  }
}

function cat(items: Node[]): Node {
  if (items.length === 0) return { t: 'empty' };
  return items.length === 1 ? (items[0] as Node) : { t: 'cat', nodes: items };
}
