/**
 * What a word of a command line is before it runs: its value after quote removal when bash can only
 * make that one string of it, otherwise nothing (an expansion, a glob, a brace list, a leading `~`
 * or a `$"…"` string, which a message catalog could translate). Also how a simple command is shown
 * to a rule: static words quoted only where needed, so the text reads back as the same words. And
 * the shapes shell_parse.ts answers with.
 */
import { nodeType, type ShNode } from './syntax.ts';

export interface Word {
  /** The value after quote removal, when bash can only make that one string of it. */
  value?: string;
  /** As written in the command line. */
  text: string;
}

export interface SimpleCommand {
  /** Program and arguments; empty for a command that only assigns (`FOO=1`). */
  words: Word[];
  /** Its variable assignments as written (`FOO=1 cmd`, `FOO=1`); `export`, `declare`, … count too. */
  assigns: string[];
  /** Its redirections as written (`> out.txt`, `2>&1`, `<<EOF`). */
  redirects: string[];
}

export interface ParsedLine {
  commands: SimpleCommand[];
  opaque: string[];
  unseen: string[];
}

/** Bash's `$'…'` escapes. An unknown escape keeps its backslash; a NUL ends the string, as in bash. */
export function ansiC(raw: string): string {
  let out = '';
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i] as string;
    if (c !== '\\' || i + 1 >= raw.length) {
      out += c;
      continue;
    }
    const e = raw[++i] as string;
    const simple: Record<string, string> = {
      a: '\x07',
      b: '\b',
      e: '\x1b',
      E: '\x1b',
      f: '\f',
      n: '\n',
      r: '\r',
      t: '\t',
      v: '\v',
      '\\': '\\',
      "'": "'",
      '"': '"',
      '?': '?',
    };
    const digits = (re: RegExp, max: number) => {
      let d = '';
      while (d.length < max && i + 1 < raw.length && re.test(raw[i + 1] as string)) d += raw[++i];
      return d;
    };
    if (e in simple) out += simple[e];
    else if (/[0-7]/.test(e)) out += String.fromCharCode(Number.parseInt(e + digits(/[0-7]/, 2), 8) & 0xff);
    else if (e === 'x' || e === 'u' || e === 'U') {
      const d = digits(/[0-9a-fA-F]/, e === 'x' ? 2 : e === 'u' ? 4 : 8);
      const cp = d ? Number.parseInt(d, 16) : Number.NaN;
      out += Number.isNaN(cp) || cp > 0x10ffff ? `\\${e}${d}` : String.fromCodePoint(cp);
    } else if (e === 'c' && i + 1 < raw.length) out += String.fromCharCode((raw[++i] as string).charCodeAt(0) & 0x1f);
    else out += `\\${e}`;
  }
  const nul = out.indexOf('\0');
  return nul >= 0 ? out.slice(0, nul) : out;
}

/**
 * An unquoted literal after backslash removal, or undefined when bash would expand it: glob
 * characters, a brace list or sequence, a leading tilde.
 */
function unquotedLit(raw: string, first: boolean): string | undefined {
  if (first && raw.startsWith('~')) return undefined;
  let out = '';
  let plain = ''; // the unescaped characters only, to look for brace expansion
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i] as string;
    if (c === '\\') {
      const n = raw[++i];
      if (n === undefined) return undefined;
      if (n !== '\n') out += n;
      plain += '_';
      continue;
    }
    // `[` opens a bracket expression only when a `]` follows (`[ -f x ]` runs the program `[`).
    if (c === '*' || c === '?' || (c === '[' && raw.includes(']', i + 1))) return undefined;
    out += c;
    plain += c;
  }
  if (/\{[^{}]*(,|\.\.)[^{}]*\}/.test(plain)) return undefined;
  return out;
}

/** A literal inside double quotes: only \$ \` \" \\ and \newline are escapes there. */
function doubleQuotedLit(raw: string): string {
  return raw.replace(/\\([$`"\\\n])/g, (_m, c: string) => (c === '\n' ? '' : c));
}

/** The value of a word (its parts, and their node types) after quote removal, or undefined when it is not one fixed string. */
export function staticWord(parts: readonly ShNode[], types: readonly string[]): string | undefined {
  let v = '';
  for (let i = 0; i < parts.length; i++) {
    const p = parts[i] as ShNode;
    switch (types[i]) {
      case 'Lit': {
        const lit = unquotedLit(p.Value as string, i === 0);
        if (lit === undefined) return undefined;
        v += lit;
        break;
      }
      case 'SglQuoted':
        v += p.Dollar ? ansiC(p.Value as string) : (p.Value as string);
        break;
      case 'DblQuoted': {
        if (p.Dollar) return undefined;
        for (const q of p.Parts as ShNode[]) {
          if (nodeType(q) !== 'Lit') return undefined;
          v += doubleQuotedLit(q.Value as string);
        }
        break;
      }
      default:
        return undefined;
    }
  }
  return v;
}

/** A word as a rule sees it: bare when it is plain, else single-quoted (`'` written as `'\''`). */
export function shellQuote(s: string): string {
  if (/^[A-Za-z0-9_@%+=:,./-]+$/.test(s)) return s;
  return `'${s.replace(/'/g, "'\\''")}'`;
}
