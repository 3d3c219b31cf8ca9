/**
 * The searcher: one file at a time, bytes first. A file is read into a reused buffer (files over
 * WHOLE_FILE_BYTES in chunks of whole lines, so memory stays bounded), rejected as binary on a NUL
 * byte, rejected on raw bytes when the pattern's required literal is absent, and only then decoded;
 * the regex runs only on candidate lines. Line-oriented like ripgrep: a line matches when the regex
 * matches its text (trailing CR removed); `multiline` lets matches span lines. Runs in workers.
 */
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import type { RegexSpec } from './matcher.ts';

/** Files up to this size are searched in one piece. */
export const WHOLE_FILE_BYTES = 8 * 1024 * 1024;
/** Larger files are read in chunks of this size, cut back to the last newline. */
export const CHUNK_BYTES = 4 * 1024 * 1024;

export interface SearchOptions {
  spec: RegexSpec;
  multiline: boolean;
  before: number;
  after: number;
  /** Stop at the first matching line (files_with_matches). */
  firstOnly: boolean;
  /** Stop after this many output lines. */
  maxLines: number;
  /** Count matching lines without keeping them (count mode). */
  countOnly: boolean;
}

export interface Line {
  n: number;
  text: string;
  /** A matching line, or context. */
  match: boolean;
  /** Only the beginning of a line longer than the read buffer. */
  partial?: boolean;
}

export type FileOutcome =
  | { kind: 'binary' }
  | { kind: 'unreadable'; error: string }
  | { kind: 'ok'; lines: Line[]; matches: number };

/** Characters kept of a line that is longer than the read buffer. */
const MAX_HEAD_CHARS = 1000;

interface Collected {
  lines: Line[];
  matches: number;
  /** Number of the last line counted as a match (a long line spans several pieces). */
  lastMatch: number;
}

let shared = Buffer.allocUnsafe(1024 * 1024);
const reuse = (n: number) => {
  if (shared.length < n) shared = Buffer.allocUnsafe(Math.max(n, shared.length * 2));
  return shared;
};

export function searchFile(abs: string, o: SearchOptions): FileOutcome {
  let fd: number;
  try {
    fd = openSync(abs, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (e) {
    return { kind: 'unreadable', error: (e as NodeJS.ErrnoException).code ?? String(e) };
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) return { kind: 'ok', lines: [], matches: 0 };
    const out: Collected = { lines: [], matches: 0, lastMatch: 0 };
    const result = () => ({ kind: 'ok' as const, lines: out.lines, matches: out.matches });
    let base = 1; // line number of the first line in the buffer
    let carry = 0; // bytes of an unfinished line kept at the front of the buffer
    let pos = 0;
    // A line longer than the buffer is searched piece by piece; its first characters are kept so
    // a match in a later piece still prints the line's beginning.
    let head: string | undefined;
    const whole = st.size <= WHOLE_FILE_BYTES;
    for (;;) {
      const want = whole ? Math.max(st.size, 1) + 1 : CHUNK_BYTES; // +1 notices a file that grew
      const buf = reuse(carry + want);
      const got = readFull(fd, buf, carry, want, pos);
      pos += got;
      const end = carry + got;
      if (buf.subarray(0, end).indexOf(0, carry) !== -1) {
        // Binary: skipped. Counted only when it could have matched, so the note is about real hits.
        return mayMatch(buf.subarray(0, end), o.spec) ? { kind: 'binary' } : { kind: 'ok', lines: [], matches: 0 };
      }
      const eof = got < want;
      // Search up to the last newline; an unfinished line waits for the next chunk unless it fills the buffer.
      let cut = eof ? end : buf.lastIndexOf(10, end - 1) + 1;
      const piece = cut <= 0;
      if (piece) cut = end;
      const done = searchRegion(buf, cut, base, o, out, head);
      if (done || eof) return result();
      if (piece) head ??= buf.toString('utf8', 0, Math.min(end, 4 * MAX_HEAD_CHARS)).slice(0, MAX_HEAD_CHARS);
      else head = undefined;
      base += countNewlines(buf, 0, cut);
      carry = end - cut;
      buf.copy(buf, 0, cut, end);
    }
  } catch (e) {
    return { kind: 'unreadable', error: (e as NodeJS.ErrnoException).code ?? String(e) };
  } finally {
    closeSync(fd);
  }
}

function readFull(fd: number, buf: Buffer, offset: number, length: number, position: number): number {
  let total = 0;
  while (total < length) {
    const n = readSync(fd, buf, offset + total, length - total, position + total);
    if (n === 0) break;
    total += n;
  }
  return total;
}

/** Searches buf[0, end) whose first line is number `base`; returns true when no more is wanted. */
function searchRegion(
  buf: Buffer,
  end: number,
  base: number,
  o: SearchOptions,
  out: Collected,
  head: string | undefined,
): boolean {
  const { spec } = o;
  const bytes = buf.subarray(0, end);
  // Bytes first: a required literal missing from the raw bytes rules the region out undecoded.
  if (!mayMatch(bytes, spec)) return false;
  const text = bytes.toString('utf8');
  const hits = o.multiline ? multilineHits(text, spec) : lineHits(text, spec, o.firstOnly);
  // A first line that began in an earlier piece may already have matched there.
  if (head !== undefined && hits[0]?.start === 0 && out.lastMatch === base) hits.shift();
  if (hits.length === 0) return false;
  if (o.countOnly) {
    for (const h of hits)
      out.matches += 1 + (h.lastStart === h.start ? 0 : countNewlinesText(text, h.start, h.lastStart));
    out.lastMatch = base + countNewlinesText(text, 0, (hits.at(-1) as Hit).lastStart);
    return false;
  }
  return emit(text, base, hits, o, out, head);
}

interface Hit {
  /** Offset in the text of the first matched line's start, and of the last matched line's start. */
  start: number;
  lastStart: number;
}

/** Candidate lines from the literal (or the scanning regex), confirmed by the line regex. */
function lineHits(text: string, spec: RegexSpec, firstOnly: boolean): Hit[] {
  const hits: Hit[] = [];
  const literal = spec.literal ? spec.literal.toString('utf8') : undefined;
  const folded = spec.literalFolded ? foldedRe(spec.literalFolded) : undefined;
  let from = 0;
  while (from <= text.length) {
    let at: number;
    if (literal !== undefined) {
      at = text.indexOf(literal, from);
    } else {
      const scanner = folded ?? spec.scan;
      scanner.lastIndex = from;
      const m = scanner.exec(text);
      at = m ? m.index : -1;
    }
    if (at === -1) break;
    const start = lineStart(text, at);
    if (start === text.length) break; // after the final newline (or in an empty file) there is no line
    let end = text.indexOf('\n', at);
    if (end === -1) end = text.length;
    const line = text.charCodeAt(end - 1) === 13 ? text.slice(start, end - 1) : text.slice(start, end);
    if (spec.line.test(line)) {
      hits.push({ start, lastStart: start });
      if (firstOnly) break;
    }
    if (end >= text.length) break;
    from = end + 1;
  }
  return hits;
}

function multilineHits(text: string, spec: RegexSpec): Hit[] {
  const hits: Hit[] = [];
  const re = spec.scan;
  re.lastIndex = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    if (m.index === text.length && (text.length === 0 || text.endsWith('\n'))) break;
    const start = lineStart(text, m.index);
    const last = m.index + m[0].length;
    const lastStart = lineStart(text, Math.max(m.index, last - 1));
    const prev = hits.at(-1);
    if (prev && start <= prev.lastStart) prev.lastStart = Math.max(prev.lastStart, lastStart);
    else hits.push({ start, lastStart: Math.max(start, lastStart) });
    if (m[0].length === 0) re.lastIndex++;
  }
  return hits;
}

// One compiled case-insensitive scanner per literal; reset before each use.
const foldedCache = new Map<string, RegExp>();
function foldedRe(lit: string): RegExp {
  let re = foldedCache.get(lit);
  if (!re) {
    re = new RegExp(lit.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&'), 'gi');
    if (foldedCache.size > 64) foldedCache.clear();
    foldedCache.set(lit, re);
  }
  re.lastIndex = 0;
  return re;
}

/** Turns hits into numbered match and context lines; true when the output limit is reached. */
function emit(
  text: string,
  base: number,
  hits: Hit[],
  o: SearchOptions,
  out: Collected,
  head: string | undefined,
): boolean {
  let counted = 0; // text offset up to which newlines are counted
  let lineNo = base;
  const numberAt = (offset: number) => {
    for (let i = text.indexOf('\n', counted); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) lineNo++;
    counted = offset;
    return lineNo;
  };
  let lastEmitted = out.lines.at(-1)?.n ?? 0;
  for (const [h, hit] of hits.entries()) {
    const first = numberAt(hit.start);
    const last = hit.lastStart === hit.start ? first : first + countNewlinesText(text, hit.start, hit.lastStart);
    out.matches += last - first + 1;
    out.lastMatch = last;
    // Before-context: walk back from the hit, but never over lines already printed.
    const ctx: Line[] = [];
    let s = hit.start;
    for (let k = 1; k <= o.before && first - k > lastEmitted && s > 0; k++) {
      const ps = lineStart(text, s - 1);
      ctx.unshift({ n: first - k, text: lineText(text, ps), match: false });
      s = ps;
    }
    const block: Line[] = [...ctx];
    let e = hit.start;
    for (let n = first; n <= last; n++) {
      const piece = head !== undefined && e === 0;
      block.push(piece ? { n, text: head, match: true, partial: true } : { n, text: lineText(text, e), match: true });
      const nl = text.indexOf('\n', e);
      e = nl === -1 ? text.length : nl + 1;
    }
    for (let k = 1; k <= o.after && e < text.length; k++) {
      // Stop after-context where the next hit begins; that hit prints its own lines.
      if (hits[h + 1]?.start === e) break;
      block.push({ n: last + k, text: lineText(text, e), match: false });
      const nl = text.indexOf('\n', e);
      e = nl === -1 ? text.length : nl + 1;
    }
    for (const l of block) {
      if (l.n <= lastEmitted) continue;
      out.lines.push(l);
      lastEmitted = l.n;
      if (out.lines.length >= o.maxLines) return true;
    }
    if (o.firstOnly) return true;
  }
  return false;
}

/** Start of the line holding offset `i` (lastIndexOf clamps a negative start to 0, hence the guard). */
function lineStart(text: string, i: number): number {
  return i <= 0 ? 0 : text.lastIndexOf('\n', i - 1) + 1;
}

/** Whether a region can hold a match at all, judged on raw bytes by the required literal. */
function mayMatch(bytes: Buffer, spec: RegexSpec): boolean {
  if (spec.literal) return bytes.indexOf(spec.literal) !== -1;
  if (spec.literalFolded) return foldedRe(spec.literalFolded).test(bytes.toString('latin1'));
  return true;
}

function lineText(text: string, start: number): string {
  let end = text.indexOf('\n', start);
  if (end === -1) end = text.length;
  if (text.charCodeAt(end - 1) === 13) end--;
  return text.slice(start, end);
}

function countNewlinesText(text: string, from: number, to: number): number {
  let n = 0;
  for (let i = text.indexOf('\n', from); i !== -1 && i < to; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

function countNewlines(buf: Buffer, from: number, to: number): number {
  let n = 0;
  for (let i = buf.indexOf(10, from); i !== -1 && i < to; i = buf.indexOf(10, i + 1)) n++;
  return n;
}
