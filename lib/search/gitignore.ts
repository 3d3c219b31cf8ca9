/**
 * A gitignore rule set compiled for the walker's hot path: each rule becomes the cheapest test that
 * decides it — an equality for a plain name, an `endsWith` for `*.ext`, otherwise git's wildmatch as
 * a regex (wildmatch.ts). The walker never enters an ignored directory, so unlike git's own matching
 * no parent directory is ever re-tested. Last matching rule wins, as in git.
 */
import { baseOf } from './rel_paths.ts';
import { wildmatchRegex } from './wildmatch.ts';

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
    // git skips a UTF-8 byte-order mark at the start of an ignore file.
    const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
    this.#rules = body.split('\n').flatMap((line) => {
      const rule = parseRule(line);
      return rule ? [rule] : [];
    });
  }

  get size(): number {
    return this.#rules.length;
  }

  /** The verdict of the last rule matching `rel` (relative to the rules' directory, `/`-separated). */
  test(rel: string, isDir: boolean): Verdict {
    const name = baseOf(rel);
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
  // git removes the CR of a CRLF line and trailing unescaped spaces; a comment is a line starting `#`.
  let line = trimTrailingSpaces(raw.endsWith('\r') ? raw.slice(0, -1) : raw);
  if (line === '' || line.startsWith('#')) return undefined;
  let negated = false;
  if (line.startsWith('!')) {
    negated = true;
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
  const test = compile(line, anchored);
  return test ? { negated, dirOnly, anchored, test } : undefined;
}

/** git's trim_trailing_spaces: spaces at the end go unless the first of them is escaped. */
function trimTrailingSpaces(line: string): string {
  let lastSpace = -1;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (c === ' ') {
      if (lastSpace === -1) lastSpace = i;
    } else if (c === '\\') {
      i++;
      if (i >= line.length) return line;
      lastSpace = -1;
    } else lastSpace = -1;
  }
  return lastSpace === -1 ? line : line.slice(0, lastSpace);
}

/** The cheapest exact test for a pattern, or undefined when it matches nothing (see wildmatch.ts). */
function compile(pattern: string, anchored: boolean): ((s: string) => boolean) | undefined {
  if (!/[*?[\\]/.test(pattern)) return (s) => s === pattern;
  const ext = /^\*(\.[^*?[\\/]+)$/.exec(pattern);
  if (ext && !anchored) {
    const suffix = ext[1] as string;
    return (s) => s.endsWith(suffix);
  }
  const re = wildmatchRegex(pattern);
  return re ? (s) => re.test(s) : undefined;
}
