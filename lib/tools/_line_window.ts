/**
 * Streams a numbered window of lines out of an open file in bounded memory: lines before the window
 * are counted on raw bytes (UTF-8) without decoding, lines are held only up to the per-line cap, and
 * the file is read past the window only to hash it when it is small enough. Used by read_file.
 */
import { createHash, type Hash } from 'node:crypto';
import type { FileHandle } from 'node:fs/promises';
import { charPrefix } from '../core/budget.ts';
import { detectBom, type LineEnding, looksBinary, SNIFF_BYTES, type TextEncoding } from '../core/encoding.ts';

const CHUNK_BYTES = 64 * 1024;
const LF = 0x0a;
const CR = 0x0d;

interface WindowOptions {
  offset: number;
  limit: number;
  maxLineChars: number;
  maxOutputBytes: number;
  /** Files up to this size are read to the end to hash them (and count their lines). */
  hashLimit: number;
  signal: AbortSignal;
}

export interface Window {
  kind: 'text';
  /** `%6d\t`-numbered lines. */
  lines: string[];
  first: number;
  /** Why the window ended: end of file, the line limit, or the output budget. */
  stop: 'eof' | 'limit' | 'budget';
  /** Total lines, when the whole file was scanned. */
  totalLines: number | null;
  /** Lines in the window cut at the per-line cap. */
  cutLines: number;
  sha256: string | null;
  encoding: TextEncoding;
  bom: boolean;
  eol: LineEnding;
}

type WindowOutcome = Window | { kind: 'binary' } | { kind: 'cancelled' };

export async function readWindow(fh: FileHandle, o: WindowOptions, size: number): Promise<WindowOutcome> {
  const hash = size <= o.hashLimit ? createHash('sha256') : null;
  const readChunk = chunkReader(fh, hash);

  let chunk = await readChunk();
  const bom = detectBom(chunk);
  if (!bom && looksBinary(chunk.subarray(0, SNIFF_BYTES))) return { kind: 'binary' };
  const encoding: TextEncoding = bom?.encoding ?? 'utf-8';
  const byteMode = encoding === 'utf-8'; // newlines can be found on raw bytes only in UTF-8
  const decoder = new TextDecoder(encoding, { fatal: false, ignoreBOM: true });
  const scan = new LineScan(o);

  let from = bom?.bomBytes ?? 0;
  while (chunk.length > 0) {
    if (o.signal.aborted) return { kind: 'cancelled' };
    if (byteMode && scan.phase !== 'window') {
      const at = scan.scanBytes(chunk, from);
      if (at !== -1 && scan.phase === 'skip') {
        scan.phase = 'window';
        scan.scanText(decoder.decode(chunk.subarray(at), { stream: true }));
      }
    } else {
      scan.scanText(decoder.decode(from > 0 ? chunk.subarray(from) : chunk, { stream: true }));
    }
    from = 0;
    if (scan.phase === 'tail' && !hash) break; // the window is done and the file is too big to hash
    chunk = await readChunk();
  }
  const complete = chunk.length === 0;
  if (complete && scan.phase !== 'tail') {
    if (!byteMode || scan.phase === 'window') scan.scanText(decoder.decode());
    if (scan.phase === 'window' && (scan.curLen > 0 || !scan.lastWasLF)) scan.finishLine();
  }
  const { lf, crlf } = scan;
  const totalLines = complete ? lf + (scan.lastWasLF ? 0 : 1) : null;
  const eol: LineEnding = lf === 0 ? 'none' : crlf === 0 ? 'lf' : crlf === lf ? 'crlf' : 'mixed';
  return {
    kind: 'text',
    lines: scan.lines,
    first: o.offset,
    stop: scan.stop,
    totalLines,
    cutLines: scan.cutLines,
    sha256: hash && complete ? hash.digest('hex') : null,
    encoding,
    bom: bom !== undefined,
    eol,
  };
}

/** Reads the file's chunks in order into one reused buffer, each hashed when the file is to be hashed. */
function chunkReader(fh: FileHandle, hash: Hash | null): () => Promise<Buffer> {
  const buf = Buffer.allocUnsafe(CHUNK_BYTES);
  let filePos = 0;
  return async () => {
    const { bytesRead } = await fh.read(buf, 0, CHUNK_BYTES, filePos);
    filePos += bytesRead;
    const chunk = buf.subarray(0, bytesRead);
    hash?.update(chunk);
    return chunk;
  };
}

type Phase = 'skip' | 'window' | 'tail';

/**
 * The lines scanned so far: newlines and line endings counted over the whole file, and the window's
 * numbered lines. Lines before the window go through scanBytes (raw UTF-8) or scanText; the window's
 * and those after it through scanText.
 */
class LineScan {
  phase: Phase;
  lineNo = 1; // the line being read
  lf = 0;
  crlf = 0;
  prevCR = false; // last byte/char seen was \r
  lastWasLF = true; // nothing yet, or the last byte/char was \n
  cur = '';
  curLen = 0;
  readonly lines: string[] = [];
  outBytes = 0;
  stop: Window['stop'] = 'eof';
  cutLines = 0;
  readonly #o: WindowOptions;

  constructor(o: WindowOptions) {
    this.#o = o;
    this.phase = o.offset > 1 ? 'skip' : 'window';
  }

  /** Adds the line read to the window, cut at the per-line cap; ends the window at the limit or the budget. */
  finishLine(): void {
    const o = this.#o;
    let text = this.cur;
    let len = this.curLen;
    if (text.endsWith('\r') && len <= o.maxLineChars + 1) {
      text = text.slice(0, -1);
      len--;
    }
    let shown = text;
    if (len > o.maxLineChars) {
      shown = `${charPrefix(text, o.maxLineChars)} … [truncated: line ${this.lineNo} has ${len} characters; the rest of it can be searched with grep]`;
      this.cutLines++;
    }
    const formatted = `${String(this.lineNo).padStart(6)}\t${shown}`;
    const bytes = Buffer.byteLength(formatted) + 1;
    this.cur = '';
    this.curLen = 0;
    if (this.outBytes + bytes > o.maxOutputBytes) {
      this.phase = 'tail';
      this.stop = 'budget';
      return;
    }
    this.outBytes += bytes;
    this.lines.push(formatted);
    if (this.lines.length >= o.limit) {
      this.phase = 'tail';
      this.stop = 'limit';
    }
  }

  /** Counts newlines on raw bytes; returns the index after the newline that starts the window, or -1. */
  scanBytes(b: Uint8Array, from: number): number {
    let i = from;
    while (i < b.length) {
      const nl = b.indexOf(LF, i);
      if (nl === -1) {
        if (b.length > i) {
          this.prevCR = b[b.length - 1] === CR;
          this.lastWasLF = false;
        }
        return -1;
      }
      this.lf++;
      if (nl > i ? b[nl - 1] === CR : this.prevCR) this.crlf++;
      this.prevCR = false;
      this.lastWasLF = true;
      i = nl + 1;
      this.lineNo++;
      if (this.phase === 'skip' && this.lineNo >= this.#o.offset) return i;
    }
    return -1;
  }

  /** Counts newlines on decoded text, and gathers the window's lines. */
  scanText(s: string): void {
    const o = this.#o;
    let i = 0;
    while (i < s.length) {
      const nl = s.indexOf('\n', i);
      const end = nl === -1 ? s.length : nl;
      if (this.phase === 'window' && end > i) {
        // Hold at most one char past the cap: enough to know the line was cut, never a 50 MB line.
        if (this.cur.length <= o.maxLineChars)
          this.cur += s.slice(i, Math.min(end, i + o.maxLineChars + 1 - this.cur.length));
        this.curLen += end - i;
      }
      if (nl === -1) {
        if (end > i) {
          this.prevCR = s.charCodeAt(end - 1) === CR;
          this.lastWasLF = false;
        }
        return;
      }
      this.lf++;
      if (nl > i ? s.charCodeAt(nl - 1) === CR : this.prevCR) this.crlf++;
      this.prevCR = false;
      this.lastWasLF = true;
      if (this.phase === 'window') this.finishLine();
      this.lineNo++;
      if (this.phase === 'skip' && this.lineNo >= o.offset) this.phase = 'window';
      i = nl + 1;
    }
  }
}
