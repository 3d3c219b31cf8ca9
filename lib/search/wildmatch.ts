/**
 * gitignore patterns as git matches them (its wildmatch with WM_PATHNAME), translated to a regex:
 * `*` and `?` never cross `/`; `**` is special only as a whole segment (`**\/x`, `x/**`, `x/**\/y`),
 * elsewhere it is `*`; `x/**` matches what is inside x, not x itself; brackets take `!` or `^`,
 * ranges, `[:class:]` and backslash escapes, never match `/`, and an unterminated one (`[q`, `*.[]`)
 * makes the pattern match nothing; `\x` is x, and a pattern ending in a lone `\` matches nothing.
 * Returns undefined for a pattern that matches nothing.
 */

const CLASSES: Record<string, string> = {
  alnum: '0-9A-Za-z',
  alpha: 'A-Za-z',
  blank: ' \\t',
  cntrl: '\\x00-\\x1f\\x7f',
  digit: '0-9',
  graph: '!-~',
  lower: 'a-z',
  print: ' -~',
  punct: '!-\\/:-@\\[-`{-~',
  space: ' \\t-\\r',
  upper: 'A-Z',
  xdigit: '0-9A-Fa-f',
};

const esc = (c: string) => c.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&');

export function wildmatchRegex(pattern: string): RegExp | undefined {
  let out = '';
  const n = pattern.length;
  for (let i = 0; i < n; i++) {
    const c = pattern[i] as string;
    if (c === '\\') {
      if (i + 1 >= n) return undefined; // a lone trailing backslash matches nothing
      out += esc(pattern[++i] as string);
    } else if (c === '?') {
      out += '[^/]';
    } else if (c === '*') {
      let j = i;
      while (pattern[j + 1] === '*') j++;
      const double = j > i;
      const before = i === 0 || pattern[i - 1] === '/';
      const after = j + 1 >= n || pattern[j + 1] === '/';
      if (double && before && after) {
        if (j + 1 >= n)
          out += '.*'; // trailing `**`: anything, slashes included
        else {
          out += '(?:.*/)?'; // `**/`: zero or more directories
          j++; // the slash is part of it
        }
      } else out += '[^/]*';
      i = j;
    } else if (c === '[') {
      const cls = bracket(pattern, i);
      if (!cls) return undefined;
      out += cls.src;
      i = cls.end;
    } else out += esc(c);
  }
  return new RegExp(`^${out}$`, 's');
}

/** The bracket expression opening at `open`, as wildmatch reads it; undefined when unterminated. */
function bracket(p: string, open: number): { src: string; end: number } | undefined {
  let i = open + 1;
  let neg = false;
  if (p[i] === '!' || p[i] === '^') {
    neg = true;
    i++;
  }
  let set = '';
  let prev: string | undefined; // the previous single character, which may start a range
  // do-while as in wildmatch: the first character is taken before looking for `]`, so `[]x]` holds `]`.
  for (let first = true; first || p[i] !== ']'; first = false, i++) {
    let ch = p[i];
    if (ch === undefined) return undefined;
    if (ch === '\\') {
      ch = p[++i];
      if (ch === undefined) return undefined;
      set += esc(ch);
      prev = ch;
    } else if (ch === '-' && prev !== undefined && p[i + 1] !== undefined && p[i + 1] !== ']') {
      let hi = p[++i] as string;
      if (hi === '\\') {
        hi = p[++i] as string;
        if (hi === undefined) return undefined;
      }
      // wildmatch compares t_ch <= hi && t_ch >= prev: an inverted range matches nothing.
      if (hi >= prev) set += `${esc(prev)}-${esc(hi)}`;
      prev = undefined;
    } else if (ch === '[' && p[i + 1] === ':') {
      const close = p.indexOf(':]', i + 2);
      if (close === -1) {
        set += '\\[';
        prev = '[';
        continue;
      }
      const name = p.slice(i + 2, close);
      const cls = CLASSES[name];
      if (cls === undefined) return undefined; // malformed class name: wildmatch aborts the pattern
      set += cls;
      i = close + 1;
      prev = undefined;
    } else {
      set += esc(ch);
      prev = ch;
    }
  }
  // Brackets never match `/` (WM_PATHNAME).
  const src = neg ? `[^/${set}]` : set === '' ? '(?!)' : `(?!/)[${set}]`;
  return { src, end: i };
}
