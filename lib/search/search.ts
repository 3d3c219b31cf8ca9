/**
 * The searcher: one file at a time, bytes first. A file is read into a reused buffer (files over
 * BUFFER_BYTES in pieces cut at a newline, so memory stays bounded), rejected as binary on a NUL
 * byte (unless asked to search it as text), rejected on raw bytes when the pattern's required literal is absent, and only then decoded;
 * the regex runs only on candidate lines. Line-oriented like ripgrep: a line matches when the regex
 * matches its text (trailing CR removed); `multiline` lets matches span lines. Runs in workers.
 */
import { constants, readSync } from 'node:fs';
import type { Captures } from '../core/answers.ts';
import { closeFd, openTracked } from '../core/descriptors.ts';
import { bomKind, readUtf16 } from './bom.ts';
import { haystackBuffer } from './fold_wasm.ts';
import {
  countMatches,
  type Hit,
  literalHits,
  matchCaptures,
  matchedTexts,
  matchSpans,
  mayMatch,
  multilineHits,
  otherLines,
  regionView,
  textHits,
} from './hits.ts';
import type { RegexSpec } from './matcher.ts';
import { ByteSource, countNewlines, type Source, TextSource } from './source.ts';

/** Files up to this size are searched in one piece; larger ones in pieces of it, cut at a newline. */
export const BUFFER_BYTES = 8 * 1024 * 1024;
/**
 * Bytes read at a time when regions need not be whole (no context lines, no multiline matches): a
 * large file is read and searched a cache-sized piece at a time, as ripgrep does, instead of being
 * streamed through memory once by the read and again by the search. A line longer than this is
 * still read whole (up to BUFFER_BYTES) before it is searched.
 */
export const CHUNK_BYTES = 256 * 1024;

export interface SearchOptions {
  spec: RegexSpec;
  multiline: boolean;
  before: number;
  after: number;
  /** Stop at the first matching line (files_with_matches). */
  firstOnly: boolean;
  /**
   * Only whether the file matches is wanted (files_with_matches): the first hit answers it, with no
   * line numbered or decoded (`matches` is 1, `lines` empty).
   */
  namesOnly?: boolean;
  /** Stop after this many output lines. */
  maxLines: number;
  /** Count matching lines without keeping them (count mode). */
  countOnly: boolean;
  /** The lines that do not match are the results (ripgrep -v). */
  invert?: boolean;
  /** Each match on its own line, its text only (ripgrep -o). */
  onlyMatching?: boolean;
  /** At most this many matching lines per file (ripgrep -m). */
  maxCount?: number;
  /** Say where each matching line matched (`Line.spans`), for a printer's colour and JSON. */
  spans?: boolean;
  /** Say where each match's groups are too (`Line.captures`), every match rg -r replaces. */
  captures?: boolean;
  /** A file with a NUL byte is searched as text, not skipped as binary (ripgrep -a). */
  binaryAsText?: boolean;
}

export interface Line {
  n: number;
  text: string;
  /** A matching line, or context. */
  match: boolean;
  /** Only the beginning of a line longer than the read buffer. */
  partial?: boolean;
  /** Where the pattern matched in `text`, as [start, end) offsets (SearchOptions.spans). */
  spans?: [number, number][];
  /** Each match and its groups (SearchOptions.captures). */
  captures?: Captures;
}

type FileOutcome =
  /** `offset`: the file's first NUL byte (as far as read), which rg names. */
  | { kind: 'binary'; offset: number }
  | { kind: 'unreadable'; error: string }
  | { kind: 'ok'; lines: Line[]; matches: number };

/** Characters kept of a line that is longer than the read buffer. */
const MAX_HEAD_CHARS = 1000;

interface Collected {
  lines: Line[];
  matches: number;
  /**
   * The line the last region ended in already counted as a match: a line longer than the buffer is
   * searched a piece at a time (each piece holds no newline), and must be counted once.
   */
  longLineMatched: boolean;
  /** Lines counted, where `matches` counts matches instead (count with only_matching). */
  countedLines: number;
}

// One read buffer per thread, reused for every file: the case-folded byte search's own memory, so a
// region it searches is not copied there first (fold_wasm.ts). Asked again once detached (length 0).
let shared: Buffer | undefined;
const readBuffer = () => {
  if (!shared?.length) shared = haystackBuffer(BUFFER_BYTES);
  return shared;
};

/**
 * Searches the file at `at`: a path through its checked directory's descriptor (see walk.ts), opened
 * with O_NOFOLLOW, so it is that directory's entry and never what a symlink swapped in points to —
 * or the file open already as `given` (checked by the caller, who closes it).
 */
export function searchFile(at: string, o: SearchOptions, given?: number): FileOutcome {
  let fd: number;
  try {
    fd = given ?? openTracked(at, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (e) {
    return { kind: 'unreadable', error: (e as NodeJS.ErrnoException).code ?? String(e) };
  }
  try {
    const buf = readBuffer();
    const out: Collected = { lines: [], matches: 0, longLineMatched: false, countedLines: 0 };
    let base = 1; // line number of the first line in the buffer
    let carry = 0; // bytes of an unfinished line kept at the front of the buffer
    let pos = 0;
    // A line longer than the buffer is searched piece by piece; its first characters are kept so
    // a match in a later piece still prints the line's beginning.
    let head: string | undefined;
    const chunk = o.multiline || o.before > 0 || o.after > 0 ? buf.length : CHUNK_BYTES;
    for (;;) {
      const want = Math.min(chunk, buf.length - carry);
      // No fstat: one read fills the buffer, and a short read of a regular file is its end. That saves
      // a system call per file, which is most of what a search costs on a tree of small files.
      const got = readSync(fd, buf, carry, want, pos);
      const first = pos === 0;
      pos += got;
      let end = carry + got;
      const bom = first ? bomKind(buf, end) : undefined;
      if (bom === 'utf-16') return searchDecoded(readUtf16(fd, buf, end), o, out);
      if (bom === 'utf-8') {
        buf.copy(buf, 0, 3, end); // the BOM is not part of the first line
        end -= 3;
      }
      const filled = buf.subarray(0, end);
      const nul = o.binaryAsText ? -1 : filled.indexOf(0, carry);
      if (nul !== -1) {
        // Binary: skipped. Counted only when it could have matched, so the note is about real hits.
        // Pieces already searched are gone from the buffer: unless it holds the whole file, only the
        // literal lines are found by is asked for (a match before the NUL may hold the others).
        const whole = first && got < want;
        const may = o.invert || mayMatch(filled, o.spec, undefined, !whole);
        const offset = pos - got - carry + nul + (bom === 'utf-8' ? 3 : 0);
        return may ? { kind: 'binary', offset } : { kind: 'ok', lines: [], matches: 0 };
      }
      const eof = got < want;
      // Search up to the last newline; an unfinished line waits for the next read unless it fills the buffer.
      // The kept bytes hold no newline (they are an unfinished line): only the new ones are looked at.
      let cut = eof ? end : carry + buf.subarray(carry, end).lastIndexOf(10) + 1;
      if (cut === carry && !eof) cut = 0;
      if (!eof && cut <= 0 && end < buf.length) {
        carry = end; // no whole line yet: read on before searching
        continue;
      }
      const piece = cut <= 0 && !eof; // at the end, an empty region ends the line the last piece began
      if (piece) cut = end;
      const done = searchRegion(cut === end ? filled : buf.subarray(0, cut), base, o, out, head, piece);
      if (done || eof) return { kind: 'ok', lines: out.lines, matches: out.matches };
      if (piece) head ??= buf.toString('utf8', 0, Math.min(end, 4 * MAX_HEAD_CHARS)).slice(0, MAX_HEAD_CHARS);
      else head = undefined;
      // Line numbers are only printed in content mode; counting the lines of every piece would cost a
      // call per line. Without them `base` only has to be right relative to a piece's own start.
      if (piece || !(o.countOnly || o.namesOnly)) base += countNewlines(buf, 0, cut);
      carry = end - cut;
      buf.copy(buf, 0, cut, end);
    }
  } catch (e) {
    return { kind: 'unreadable', error: (e as NodeJS.ErrnoException).code ?? String(e) };
  } finally {
    if (given === undefined) closeFd(fd);
  }
}

/** A UTF-16 file decoded to UTF-8 (bom.ts), searched in one piece; a NUL in its text is binary, as in rg. */
function searchDecoded(bytes: Buffer, o: SearchOptions, out: Collected): FileOutcome {
  const nul = o.binaryAsText ? -1 : bytes.indexOf(0);
  if (nul !== -1)
    return mayMatch(bytes, o.spec) ? { kind: 'binary', offset: nul } : { kind: 'ok', lines: [], matches: 0 };
  searchRegion(bytes, 1, o, out, undefined, false);
  return { kind: 'ok', lines: out.lines, matches: out.matches };
}

/**
 * Searches `bytes` whose first line is number `base`; returns true when no more is wanted. `head`:
 * the region begins inside a line that earlier pieces began; `piece`: the region is one piece of a
 * line (no newline in it), which goes on in the next region.
 */
function searchRegion(
  bytes: Buffer,
  base: number,
  o: SearchOptions,
  out: Collected,
  head: string | undefined,
  piece: boolean,
): boolean {
  const { spec } = o;
  const carried = head !== undefined && out.longLineMatched;
  out.longLineMatched = piece && carried;
  // Bytes first: a required literal missing from the raw bytes rules the region out undecoded.
  const folded = regionView(bytes, spec);
  const none = !mayMatch(bytes, spec, folded);
  if (none && !o.invert) return false;
  const firstOnly = o.firstOnly && !o.invert;
  let src: Source;
  let hits: Hit[];
  if (!o.multiline && (spec.literal || spec.literalFolded)) {
    src = new ByteSource(bytes);
    hits = none ? [] : literalHits(bytes, src, spec, firstOnly, folded);
  } else {
    const text = bytes.toString('utf8');
    src = new TextSource(text);
    hits = none ? [] : o.multiline ? multilineHits(text, src, spec) : textHits(text, src, spec, firstOnly);
  }
  if (o.invert) {
    // A long line is inverted only when no piece of it matched: its pieces only note whether one did,
    // and the region it ends in decides (an empty one when the file ends where a piece does).
    if (piece) {
      out.longLineMatched = carried || hits.length > 0;
      return false;
    }
    const ended = head !== undefined && !carried && src.length === 0;
    hits = ended
      ? [{ start: 0, lastStart: 0 }]
      : otherLines(src, carried ? [{ start: 0, lastStart: 0 }, ...hits] : hits, o.firstOnly);
  } else {
    // A first line that began in an earlier piece may already have matched there.
    if (carried && hits[0]?.start === 0) hits.shift();
    // A piece is one line: any hit is that line's (a hit dropped above already counted it).
    out.longLineMatched = piece && (carried || hits.length > 0);
  }
  if (hits.length === 0) return false;
  if (o.namesOnly) {
    out.matches = 1;
    return true;
  }
  const maxCount = o.maxCount ?? Number.POSITIVE_INFINITY;
  if (o.countOnly && o.onlyMatching && !o.invert && !o.multiline) {
    // With only_matching a count is of matches, as rg counts them (max_count still counts lines).
    for (const h of hits) {
      if (out.countedLines >= maxCount) return true;
      out.countedLines++;
      out.matches += countMatches(src.line(h.start), spec.scan);
    }
    return out.countedLines >= maxCount;
  }
  if (o.countOnly) {
    for (const h of hits) out.matches += 1 + (h.lastStart === h.start ? 0 : src.newlines(h.start, h.lastStart));
    if (out.matches >= maxCount) out.matches = maxCount;
    return out.matches >= maxCount;
  }
  return emit(src, base, hits, o, out, head);
}

/** Where a line's matches are looked for (SearchOptions.spans): its first this many characters. */
export const SPAN_CHARS = 64 * 1024;

/** A matching line, with where it matched when asked (an inverted search's lines hold no match). */
function matchLine(n: number, text: string, o: SearchOptions): Line {
  if (!o.spans || o.invert) return { n, text, match: true };
  // Bounded: a line of megabytes would otherwise hand back millions of spans.
  const within = text.length > SPAN_CHARS ? text.slice(0, SPAN_CHARS) : text;
  const line: Line = { n, text, match: true, spans: matchSpans(within, o.spec.scan) };
  if (o.captures) line.captures = matchCaptures(within, o.spec.scan);
  return line;
}

/**
 * -o's lines of one matching line: each match's text on a line of its own. For -r (captures), every
 * match rg replaces, empty ones too, each with its groups from its own start; otherwise the
 * non-empty ones.
 */
function matchOnly(n: number, text: string, o: SearchOptions): Line[] {
  if (!o.captures) return matchedTexts(text, o.spec.scan).map((t) => ({ n, text: t, match: true }));
  const within = text.length > SPAN_CHARS ? text.slice(0, SPAN_CHARS) : text;
  return matchCaptures(within, o.spec.scan).map((groups) => {
    const [start, end] = groups[0] as [number, number];
    const shifted = groups.map((g) => (g ? ([g[0] - start, g[1] - start] as [number, number]) : null));
    return { n, text: text.slice(start, end), match: true, captures: [shifted] };
  });
}

/**
 * The matches in consecutive lines `texts` (the first numbered `first`) that may span them, a line of
 * each per line it touches (empty pieces left out), as rg -U -o prints them.
 */
function matchesAcross(texts: readonly string[], first: number, scan: RegExp): Line[] {
  const joined = texts.join('\n');
  const lines: Line[] = [];
  for (const [start, end] of matchSpans(joined, scan)) {
    let n = first + countIn(joined, start);
    for (const text of joined.slice(start, end).split('\n')) {
      if (text !== '') lines.push({ n, text, match: true });
      n++;
    }
  }
  return lines;
}

/** Newlines in `text` before `end`. */
function countIn(text: string, end: number): number {
  let n = 0;
  for (let i = text.indexOf('\n'); i !== -1 && i < end; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

/** Turns hits into numbered match and context lines; true when the output limit is reached. */
function emit(
  src: Source,
  base: number,
  hits: Hit[],
  o: SearchOptions,
  out: Collected,
  head: string | undefined,
): boolean {
  let counted = 0; // offset up to which newlines are counted
  let lineNo = base;
  const numberAt = (offset: number) => {
    lineNo += src.newlines(counted, offset);
    counted = offset;
    return lineNo;
  };
  const next = (start: number) => Math.min(src.lineEnd(start) + 1, src.length);
  let lastEmitted = out.lines.at(-1)?.n ?? 0;
  for (const [h, hit] of hits.entries()) {
    if (out.matches >= (o.maxCount ?? Number.POSITIVE_INFINITY)) return true;
    const first = numberAt(hit.start);
    const last = hit.lastStart === hit.start ? first : first + src.newlines(hit.start, hit.lastStart);
    out.matches += last - first + 1;
    // Before-context: walk back from the hit, but never over lines already printed.
    const block: Line[] = [];
    let s = hit.start;
    for (let k = 1; k <= o.before && first - k > lastEmitted && s > 0; k++) {
      s = src.lineStart(s - 1);
      block.unshift({ n: first - k, text: src.line(s), match: false });
    }
    let e = hit.start;
    if (o.onlyMatching && !o.invert && last > first) {
      // -U -o: a match that spans lines prints a line of it per line, each under its own number (rg).
      const texts: string[] = [];
      for (let n = first; n <= last; n++, e = next(e)) texts.push(src.line(e));
      block.push(...matchesAcross(texts, first, o.spec.scan));
    }
    for (let n = first + (e === hit.start ? 0 : last - first + 1); n <= last; n++) {
      const piece = head !== undefined && e === 0;
      if (o.onlyMatching && !o.invert && !piece) block.push(...matchOnly(n, src.line(e), o));
      else if (piece) block.push({ n, text: head, match: true, partial: true });
      else block.push(matchLine(n, src.line(e), o));
      e = next(e);
    }
    // The hit that reaches -m prints its after-context over later matches, as rg does (they show as
    // matches but do not count); before that, after-context stops where the next hit begins.
    const reached = out.matches >= (o.maxCount ?? Number.POSITIVE_INFINITY);
    let k = h + 1;
    for (let j = 1; j <= o.after && e < src.length; j++) {
      while (k < hits.length && (hits[k] as Hit).lastStart < e) k++;
      const inHit = k < hits.length && (hits[k] as Hit).start <= e;
      if (inHit && !reached) break;
      block.push(inHit ? matchLine(last + j, src.line(e), o) : { n: last + j, text: src.line(e), match: false });
      e = next(e);
    }
    for (const l of block) {
      // -o prints each match of a line on a line of its own: the same number again.
      if (l.n < lastEmitted || (l.n === lastEmitted && !(o.onlyMatching && l.match))) continue;
      out.lines.push(l);
      lastEmitted = l.n;
      if (out.lines.length >= o.maxLines) return true;
    }
    if (o.firstOnly) return true;
  }
  return false;
}
