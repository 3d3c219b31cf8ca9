/**
 * grep on the command line, from the tool's data (core/answers.ts): results on stdout as ripgrep
 * prints them (`path:N:text`, `path-N-text`, `--` between groups; colour as ripgrep's: path magenta,
 * line number green, match bold red), or ripgrep's JSON Lines (`--json`: begin, match, context and end
 * per file, then a summary); the notes on stderr in the CLI's words. Main thread.
 */
import pc from 'picocolors';
import type { GrepData, GrepLine } from '../core/answers.ts';
import { charPrefix } from '../core/budget.ts';
import { cutLine, grepNotes, MAX_MATCH_LINE_CHARS } from '../search/format.ts';
import type { Out } from './output.ts';
import { CLI_WORDING } from './wording.ts';

/**
 * How ripgrep lays lines out on the command line (flags.ts; search.ts works out the defaults as rg
 * does: on a terminal, line numbers and a heading per file; piped, neither; one file searched, no path).
 */
export interface GrepLayout {
  color: boolean;
  lineNumbers: boolean;
  withFilename: boolean;
  /** A file's path on a line of its own above its lines, files apart by an empty line (rg --heading). */
  heading: boolean;
  /** A NUL byte after each path instead of `:`, `-` or a newline (rg -0). */
  nul: boolean;
  /** Leave out the spaces and tabs a line begins with (rg --trim). */
  trim: boolean;
}

/** Prints grep's results as text, laid out as `layout` says. */
export function printGrepText(d: GrepData, layout: GrepLayout, out: Out): void {
  const c = pc.createColors(layout.color);
  const lines: string[] = [];
  const pathEnd = (sep: string) => (layout.nul ? '\0' : sep);
  for (const f of d.files) {
    if (d.mode !== 'count') lines.push(`${c.magenta(f.path)}${layout.nul ? '\0' : ''}`);
    else lines.push(layout.withFilename ? `${c.magenta(f.path)}${pathEnd(':')}${f.count}` : String(f.count));
  }
  let lastPath: string | undefined;
  for (const l of d.lines) {
    const sep = l.match ? ':' : '-';
    const newFile = l.path !== lastPath;
    lastPath = l.path;
    if (layout.heading && layout.withFilename && newFile) {
      if (lines.length) lines.push('');
      lines.push(`${c.magenta(l.path)}${layout.nul ? '\0' : ''}`);
    } else if (l.gap) lines.push('--');
    const path = layout.withFilename && !layout.heading ? `${c.magenta(l.path)}${pathEnd(sep)}` : '';
    const n = layout.lineNumbers ? `${c.green(l.n)}${sep}` : '';
    lines.push(`${path}${n}${shownText(l, layout, c)}`);
  }
  // With -0 and no heading, -l's paths end in NUL alone: no newline joins them.
  const text = d.mode === 'files_with_matches' && layout.nul ? lines.join('') : `${lines.join('\n')}\n`;
  if (lines.length) out.stdout(text);
  notes(d, out);
}

/** A line's text as shown: cut when long, its matches painted, leading blanks trimmed when asked. */
function shownText(l: GrepLine, layout: GrepLayout, c: ReturnType<typeof pc.createColors>): string {
  const body = cutLine(l.text, l.partial);
  // Only matches wholly within the part shown are painted; the cut's marker never is.
  const within = l.partial ? 0 : charPrefix(l.text, MAX_MATCH_LINE_CHARS).length;
  const spans = (l.spans ?? []).filter(([, end]) => end <= within);
  const painted = layout.color && l.match ? paintSpans(body, spans, c) : body;
  if (!layout.trim) return painted;
  // Spans count from the line's start, so the blanks go after painting; colour codes never start with them.
  return painted.replace(/^[ \t]+/, '');
}

/** The matched parts of a shown line in bold red; spans lie within the part shown. */
function paintSpans(body: string, spans: readonly [number, number][], c: ReturnType<typeof pc.createColors>): string {
  let at = 0;
  let painted = '';
  for (const [start, end] of spans) {
    if (end === start) continue; // an empty match shows nothing to paint
    painted += body.slice(at, start) + c.bold(c.red(body.slice(start, end)));
    at = end;
  }
  return painted + body.slice(at);
}

function notes(d: GrepData, out: Out): void {
  const text = grepNotes(d, CLI_WORDING);
  if (text.length) out.stderr(`${text.join('\n')}\n`);
}

/**
 * ripgrep's `--json`: one object per line. Line text is the line as searched (a CRLF's \r dropped,
 * a newline added) and `start`/`end` are byte offsets into it, as ripgrep's; paths are as shown
 * (control characters escaped). What MewCode does not measure is left out: `absolute_offset`, and
 * timing and byte counts in the stats. docs/cli.md lists where it differs from rg.
 */
export function printGrepJson(d: GrepData, out: Out): void {
  const lines: string[] = [];
  const emit = (o: unknown) => lines.push(JSON.stringify(o));
  // A file's lines come together, in order: runs of one path, never a map (two files may show alike).
  const perFile: [string, GrepLine[]][] = [];
  for (const l of d.lines) {
    const last = perFile.at(-1);
    if (last && last[0] === l.path) last[1].push(l);
    else perFile.push([l.path, [l]]);
  }
  let matchedLines = 0;
  let matches = 0;
  for (const [path, fileLines] of perFile) {
    emit({ type: 'begin', data: { path: { text: path } } });
    let fileMatched = 0;
    let fileMatches = 0;
    for (const l of fileLines) {
      const submatches = (l.spans ?? []).map(([s, e]) => ({
        match: { text: l.text.slice(s, e) },
        start: Buffer.byteLength(l.text.slice(0, s)),
        end: Buffer.byteLength(l.text.slice(0, e)),
      }));
      const type = l.match ? 'match' : 'context';
      emit({ type, data: { path: { text: path }, lines: { text: `${l.text}\n` }, line_number: l.n, submatches } });
      if (l.match) {
        fileMatched++;
        fileMatches += Math.max(1, submatches.length);
      }
    }
    matchedLines += fileMatched;
    matches += fileMatches;
    const stats = { searches: 1, searches_with_match: 1, matched_lines: fileMatched, matches: fileMatches };
    emit({ type: 'end', data: { path: { text: path }, binary_offset: null, stats } });
  }
  const stats = { searches_with_match: perFile.length, matched_lines: matchedLines, matches };
  emit({ type: 'summary', data: { stats } });
  out.stdout(`${lines.join('\n')}\n`);
  notes(d, out);
}
