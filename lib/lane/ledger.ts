/**
 * The read ledger: what the session last read of each file, keyed by real path. read_file produces a
 * record wherever it runs (worker or main thread) and hands it back in its result's meta; the main
 * thread stores it here, and the write lane compares against it before it overwrites anything.
 */

export type TextEncoding = 'utf-8' | 'utf-16le' | 'utf-16be';
export type LineEnding = 'lf' | 'crlf' | 'mixed' | 'none';

/** One read of one file. Plain JSON (nanosecond times as decimal strings) so it crosses threads intact. */
export interface ReadRecord {
  /** Real path of the file (a checked path). */
  path: string;
  size: number;
  mtimeMs: number;
  mtimeNs: string;
  ctimeNs: string;
  ino: number;
  /** sha256 (hex) of the whole file; null when the file was too large to hash within the read. */
  sha256: string | null;
  encoding: TextEncoding;
  /** Whether the file starts with a byte-order mark (stripped for display, kept on write). */
  bom: boolean;
  eol: LineEnding;
  /** True when only a window of the file was shown; partial reads still count as reads. */
  partial: boolean;
  /** Wall-clock time of the read, ms since the epoch. */
  readAt: number;
}

export class Ledger {
  #records = new Map<string, ReadRecord>();

  record(r: ReadRecord): void {
    this.#records.set(r.path, r);
  }

  get(realPath: string): ReadRecord | undefined {
    return this.#records.get(realPath);
  }

  forget(realPath: string): void {
    this.#records.delete(realPath);
  }

  get size(): number {
    return this.#records.size;
  }
}
