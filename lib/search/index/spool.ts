/**
 * Where a build puts its pieces' segments as they arrive, until the index file is written: a
 * temporary file beside the index, unlinked as soon as it is open (nothing is left behind if the
 * process dies). A build's segments are ~10% of the text it indexed (143 MB on a 110k-file tree of
 * real code): held in the main thread until the end, they were most of a build's peak RSS.
 * `inOrder` reads them back one at a time into one reused buffer, in the order the index needs.
 */
import { randomBytes } from 'node:crypto';
import { closeSync, mkdirSync, openSync, readSync, unlinkSync, writeSync } from 'node:fs';
import path from 'node:path';

export class SegmentSpool {
  readonly #fd: number;
  #size = 0;
  /** Each piece's segments: where they are in the file, and how many files each covers. */
  readonly #pieces: { at: number; length: number; files: number }[][] = [];
  #open = true;

  constructor(dir: string) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const file = path.join(dir, `.spool.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
    this.#fd = openSync(file, 'wx+', 0o600);
    unlinkSync(file);
  }

  /** Appends piece `piece`'s segments. */
  add(piece: number, segments: readonly { files: number; bytes: Uint8Array }[]): void {
    const placed = segments.map(({ files, bytes: b }) => {
      for (let done = 0; done < b.length; ) done += writeSync(this.#fd, b, done, b.length - done, this.#size + done);
      const at = this.#size;
      this.#size += b.length;
      return { at, length: b.length, files };
    });
    this.#pieces[piece] = placed;
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
