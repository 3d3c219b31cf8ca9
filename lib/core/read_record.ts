/**
 * The record of one read: what read_file saw of a file, handed back in its result's meta wherever it
 * ran, and kept by the write lane's ledger to refuse overwriting what the model has not seen.
 */
import type { LineEnding, TextEncoding } from './encoding.ts';

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
