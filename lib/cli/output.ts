/**
 * How the CLI prints: results on stdout, everything else (notes, truncation markers, "no matches",
 * errors) on stderr, so `mewcode grep -l x | xargs wc -l` sees only paths. Hints written for a model
 * ("pass include_ignored: true") are reworded into the flags a person types. Colour as ripgrep's:
 * path magenta, line number green, match bold red; only on a terminal unless asked. Main thread.
 */
import pc from 'picocolors';
import type { ToolResult } from '../core/tool.ts';
import { UsageError } from './args.ts';

/** Tool arguments named in hints, and the CLI flags that do the same. */
const CLI_HINTS: readonly [RegExp, string][] = [
  [/pass include_ignored: true to (\w+) them/g, 'pass --include-ignored (or --hidden, --no-ignore) to $1 them'],
  [/raise head_limit \(0 for all\)/g, 'raise --head-limit (0 for all)'],
  [/raise limit\b/g, 'raise --limit'],
  [/pass fixed_strings: true/g, 'pass -F'],
  [/\buse fixed_strings\b/gi, 'use -F'],
  [/narrow pattern, path or glob/g, 'narrow the pattern, the path or -g'],
  [/narrow path and glob/g, 'narrow the path or -g'],
  [/Find (directories|files) with glob\./g, 'Find $1 with mewcode glob.'],
  [/Read the file with read_file\./g, 'Read the file with mewcode read.'],
  [/continue with offset=(\d+)/g, 'continue with --offset $1'],
];

export function cliWording(text: string): string {
  return CLI_HINTS.reduce((t, [re, to]) => t.replace(re, to), text);
}

export type ColorWhen = 'auto' | 'always' | 'never';

/** Whether stdout gets colour: --color, then NO_COLOR (any non-empty value), then whether it is a terminal. */
export function colorEnabled(when: string | undefined): boolean {
  if (when !== undefined && when !== 'auto' && when !== 'always' && when !== 'never')
    throw new UsageError(`--color must be auto, always or never, not "${when}".`);
  if (when === 'always') return true;
  if (when === 'never') return false;
  if (process.env.NO_COLOR) return false;
  return process.stdout.isTTY === true && process.env.TERM !== 'dumb';
}

export interface Painter {
  /** Colours one result line of grep's content mode, or a path. */
  line(text: string): string;
}

/**
 * A painter for grep's lines. `match` finds the matched parts of a line's text (only for patterns
 * that cannot backtrack, since this runs on the main thread); without it, path and number only.
 */
export function grepPainter(mode: string, match: RegExp | undefined): Painter {
  const c = pc.createColors(true);
  const path = (p: string) => c.magenta(p);
  const paint = (text: string) => (match ? text.replace(match, (m) => (m ? c.bold(c.red(m)) : m)) : text);
  return {
    line(text) {
      if (mode === 'files_with_matches') return path(text);
      if (mode === 'count') {
        const at = text.lastIndexOf(':');
        return `${path(text.slice(0, at))}:${text.slice(at + 1)}`;
      }
      if (text === '--') return text;
      // A match line first (path:N:text), so a path with "-N-" in it still splits at the right place.
      const m = /^(.*?):(\d+):(.*)$/s.exec(text) ?? /^(.*?)-(\d+)-(.*)$/s.exec(text);
      if (!m) return text;
      const [, p = '', n = '', rest = ''] = m;
      const sep = text.charAt(p.length);
      const body = sep === ':' ? paint(rest) : rest;
      return `${path(p)}${sep}${c.green(n)}${sep}${body}`;
    },
  };
}

/**
 * Prints a search result: its first `meta.results` lines on stdout (painted), the rest on stderr in
 * the CLI's words. An error result goes wholly to stderr. `--json` prints the whole object.
 */
export function printSearch(result: ToolResult, json: boolean, painter: Painter | undefined): void {
  if (json) {
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    return;
  }
  const lines = result.content === '' ? [] : result.content.split('\n');
  const n = result.isError ? 0 : Number(result.meta?.results ?? lines.length);
  const out = lines.slice(0, n);
  const err = lines.slice(n);
  if (out.length) process.stdout.write(`${(painter ? out.map((l) => painter.line(l)) : out).join('\n')}\n`);
  if (err.length) process.stderr.write(`${cliWording(err.join('\n'))}\n`);
}

/** `mewcode read`: the numbered lines on stdout; the footer saying where to continue, or an error, on stderr. */
export function printRead(result: ToolResult): void {
  if (result.isError) {
    process.stderr.write(`${cliWording(result.content)}\n`);
    return;
  }
  const lines = result.content.split('\n');
  // Content lines start with a padded line number, so a line starting with "[truncated:" is the footer.
  const at = lines.findIndex((l) => l.startsWith('[truncated:'));
  const out = at === -1 ? lines : lines.slice(0, at);
  if (out.length && !(out.length === 1 && out[0] === ''))
    process.stdout.write(`${out.join('\n').replace(/\n$/, '')}\n`);
  if (at !== -1) process.stderr.write(`${cliWording(lines.slice(at).join('\n'))}\n`);
}
