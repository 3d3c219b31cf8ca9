/**
 * Where a build puts its pieces' segments as they are made, until the index file is written: a
 * temporary file beside the index, unlinked as soon as it is open (nothing is left behind if the
 * process dies). A build's segments are ~10% of the text it indexed (143 MB on a 110k-file tree of
 * real code): held in the main thread until the end, they were most of a build's peak RSS.
 * The pieces' threads append their segments themselves (`SpoolWriter`, through a description of the
 * file of their own): a segment handed to the main thread instead was a buffer made and freed per
 * segment on each side, and the C allocator kept what those had taken (mapped.ts says why).
 * `inOrder` reads them back one at a time into one reused buffer, in the order the index needs.
 */
import { randomBytes } from 'node:crypto';
import { closeSync, fstatSync, mkdirSync, openSync, readSync, unlinkSync, writeSync } from 'node:fs';
import path from 'node:path';

/** What a piece's thread needs to append to the spool: its descriptor, identity and shared end. */
export interface SpoolTarget {
  fd: number;
  dev: number;
  ino: number;
  /** One BigInt64: the offset the next segment is written at (each writer takes its room atomically). */
  end: SharedArrayBuffer;
}

/** A segment of a piece: written to the spool (`at`, `byteLength`), or handed back as `bytes`. */
export type PieceSegment = { files: number; bytes: Uint8Array } | { files: number; at: number; byteLength: number };

/** Writes `b` at the spool's end (its room taken atomically: threads append at once); returns where. */
function append(fd: number, end: SharedArrayBuffer, b: Uint8Array): number {
  const at = Number(Atomics.add(new BigInt64Array(end), 0, BigInt(b.length)));
  for (let done = 0; done < b.length; ) done += writeSync(fd, b, done, b.length - done, at + done);
  return at;
}

export class SegmentSpool {
  readonly #fd: number;
  readonly #end = new SharedArrayBuffer(8);
  readonly #identity: { dev: number; ino: number };
  /** Each piece's segments: where they are in the file, and how many files each covers. */
  readonly #pieces: { at: number; length: number; files: number }[][] = [];
  #open = true;

  constructor(dir: string) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const file = path.join(dir, `.spool.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
    this.#fd = openSync(file, 'wx+', 0o600);
    unlinkSync(file);
    const st = fstatSync(this.#fd);
    this.#identity = { dev: st.dev, ino: st.ino };
  }

  /** What a piece's thread appends through (SpoolWriter). */
  get target(): SpoolTarget {
    return { fd: this.#fd, ...this.#identity, end: this.#end };
  }

  /** Records piece `piece`'s segments, appending those handed back as bytes. */
  add(piece: number, segments: readonly PieceSegment[]): void {
    this.#pieces[piece] = segments.map((s) => {
      if (!('bytes' in s)) return { at: s.at, length: s.byteLength, files: s.files };
      return { at: append(this.#fd, this.#end, s.bytes), length: s.bytes.length, files: s.files };
    });
  }

  /** Each segment's files and bytes, piece by piece. */
  segments(): { files: number; byteLength: number }[] {
    return this.#pieces.flatMap((p) => (p ?? []).map((s) => ({ files: s.files, byteLength: s.length })));
  }

  /** The segments, piece by piece; each view is valid until the next is taken. */
  *inOrder(): Generator<Uint8Array> {
    let buffer = Buffer.allocUnsafe(0);
    for (const piece of this.#pieces)
      for (const { at, length } of piece ?? []) {
        if (buffer.length < length) buffer = Buffer.allocUnsafe(length);
        for (let got = 0; got < length; ) {
          const n = readSync(this.#fd, buffer, got, length - got, at + got);
          if (n === 0) throw new Error('the build spool ends early');
          got += n;
        }
        yield buffer.subarray(0, length);
      }
  }

  close(): void {
    if (this.#open) closeSync(this.#fd);
    this.#open = false;
  }
}

/**
 * A piece's thread appending to the spool through a description of its own (opened anew through
 * /proc/self/fd and checked to be the spool by identity), so the main thread closing the spool — and
 * the number going to another file — can never redirect a write. Undefined where that cannot be
 * opened (no /proc): the piece then hands its segments back as bytes.
 */
export class SpoolWriter {
  readonly #fd: number;
  readonly #end: SharedArrayBuffer;

  private constructor(fd: number, end: SharedArrayBuffer) {
    this.#fd = fd;
    this.#end = end;
  }

  static open(t: SpoolTarget): SpoolWriter | undefined {
    let fd: number;
    try {
      fd = openSync(`/proc/self/fd/${t.fd}`, 'r+');
    } catch {
      return undefined;
    }
    try {
      const st = fstatSync(fd);
      if (st.dev === t.dev && st.ino === t.ino) return new SpoolWriter(fd, t.end);
    } catch {
      // not the spool: below
    }
    closeSync(fd);
    return undefined;
  }

  /** Appends `bytes`; returns where they went. */
  append(bytes: Uint8Array): { at: number; byteLength: number } {
    return { at: append(this.#fd, this.#end, bytes), byteLength: bytes.length };
  }

  close(): void {
    closeSync(this.#fd);
  }
}
