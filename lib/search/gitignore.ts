/**
 * A gitignore rule set compiled for the walker's hot path: each rule becomes the cheapest test that
 * decides it — a set lookup for a plain name, an `endsWith` for `*.ext`, otherwise a picomatch regex
 * with gitignore's dialect (dotfiles match, no braces or extglobs, `**` segments). The walker never
 * enters an ignored directory, so unlike git's own matching no parent directory is ever re-tested.
 * Last matching rule wins, as in git.
 */
import picomatch from 'picomatch';

interface Rule {
  negated: boolean;
  dirOnly: boolean;
  /** Matched against the path relative to the rules' directory; otherwise against the name. */
  anchored: boolean;
  test: (s: string) => boolean;
}

export type Verdict = 'ignored' | 'unignored' | undefined;

export class GitignoreRules {
  readonly #rules: Rule[];

  constructor(text: string) {
    this.#rules = text.split('\n').flatMap((line) => {
      const rule = parseRule(line);
      return rule ? [rule] : [];
    });
  }

  get size(): number {
    return this.#rules.length;
  }

  /** The verdict of the last rule matching `rel` (relative to the rules' directory, `/`-separated). */
  test(rel: string, isDir: boolean): Verdict {
    const name = rel.slice(rel.lastIndexOf('/') + 1);
    for (let i = this.#rules.length - 1; i >= 0; i--) {
      const r = this.#rules[i] as Rule;
      if (r.dirOnly && !isDir) continue;
      const subject = r.anchored ? rel : name;
      if (r.test(subject)) return r.negated ? 'unignored' : 'ignored';
    }
    return undefined;
  }
}

function parseRule(raw: string): Rule | undefined {
  let line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
  if (line === '' || line.startsWith('#')) return undefined;
  // Trailing spaces are dropped unless escaped with a backslash.
  line = line.replace(/(?<!\\)\s+$/, '');
  if (line.endsWith('\\ ')) line = `${line.slice(0, -2)} `;
  let negated = false;
  if (line.startsWith('!')) {
    negated = true;
    line = line.slice(1);
  } else if (line.startsWith('\\!') || line.startsWith('\\#')) {
    line = line.slice(1);
  }
  let dirOnly = false;
  if (line.endsWith('/')) {
    dirOnly = true;
    line = line.slice(0, -1);
  }
  if (line === '') return undefined;
  const anchored = line.includes('/');
  if (line.startsWith('/')) line = line.slice(1);
  return { negated, dirOnly, anchored, test: compile(line, anchored) };
}

function compile(pattern: string, anchored: boolean): (s: string) => boolean {
  if (!/[*?[\\]/.test(pattern)) return (s) => s === pattern;
  const ext = /^\*(\.[^*?[\\/]+)$/.exec(pattern);
  if (ext && !anchored) {
    const suffix = ext[1] as string;
    return (s) => s.endsWith(suffix);
  }
  const re = picomatch.makeRe(pattern, { dot: true, nobrace: true, noextglob: true, posix: true, nonegate: true });
  return (s) => re.test(s);
}
