/**
 * The read ledger: what the session last read of each file, keyed by real path. read_file produces a
 * record wherever it runs (worker or main thread) and hands it back in its result's meta; the main
 * thread stores it here, and the write lane compares against it before it overwrites anything.
 */

import { createHash } from 'node:crypto';
import type { BigIntStats } from 'node:fs';
import type { ReadRecord } from '../core/read_record.ts';
import { errValue, okValue, type Result } from '../core/result.ts';
import { quote } from '../core/text.ts';
import { MODEL_WORDING } from '../core/wording.ts';

export class Ledger {
  #records = new Map<string, ReadRecord>();
  /** Told of every file the write lane wrote or deleted, before the write's answer returns. */
  onChange?: (realPath: string) => void;

  record(r: ReadRecord): void {
    this.#records.set(r.path, r);
  }

  get(realPath: string): ReadRecord | undefined {
    return this.#records.get(realPath);
  }

  forget(realPath: string): void {
    this.#records.delete(realPath);
    this.onChange?.(realPath);
  }

  get size(): number {
    return this.#records.size;
  }

  /**
   * Whether the file as it is now is the file that was read: same inode, size, mtime and ctime (in
   * ns), or — when only the stat changed, as a formatter's touch does — the same sha256.
   */
  verify(
    realPath: string,
    shown: string,
    now: BigIntStats,
    bytes: Uint8Array,
    readFirst = MODEL_WORDING.readFirst,
  ): Freshness {
    const rec = this.#records.get(realPath);
    if (!rec) {
      return errValue({
        code: 'not_read',
        message: `${quote(shown)} has not been read in this session, so it cannot be changed yet: ${readFirst}`,
      });
    }
    const same =
      BigInt(rec.ino) === now.ino &&
      BigInt(rec.size) === now.size &&
      rec.mtimeNs === String(now.mtimeNs) &&
      rec.ctimeNs === String(now.ctimeNs);
    if (same) return okValue(undefined);
    if (rec.sha256 !== null && sha256(bytes) === rec.sha256) {
      this.#records.set(realPath, { ...rec, ...statFields(now) });
      return okValue(undefined);
    }
    const sizes = BigInt(rec.size) === now.size ? `${rec.size} bytes` : `${rec.size} → ${now.size} bytes`;
    const when = new Date(Number(now.mtimeMs)).toISOString();
    return errValue({
      code: 'stale',
      message: `${quote(shown)} changed since it was last read (${sizes}; modified ${when}); nothing was written. Read it again with read_file, then redo the change on the current content.`,
    });
  }

  /** Records the state a write left, so the next edit needs no re-read. */
  recordWrite(
    realPath: string,
    now: BigIntStats,
    bytes: Uint8Array,
    style: Pick<ReadRecord, 'encoding' | 'bom' | 'eol'>,
  ): void {
    this.#records.set(realPath, {
      path: realPath,
      ...statFields(now),
      sha256: sha256(bytes),
      ...style,
      partial: false,
      readAt: Date.now(),
    });
    this.onChange?.(realPath);
  }
}

/** Nothing when the file is the one that was read; otherwise why it may not be changed. */
type Freshness = Result<undefined, { code: 'not_read' | 'stale'; message: string }>;

export const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

function statFields(st: BigIntStats) {
  return {
    size: Number(st.size),
    mtimeMs: Number(st.mtimeMs),
    mtimeNs: String(st.mtimeNs),
    ctimeNs: String(st.ctimeNs),
    ino: Number(st.ino),
  };
}
