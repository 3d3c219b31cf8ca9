/**
 * A journal's files: the index, `index.jsonl`, one entry per line, appended and fdatasynced under a
 * cross-process lock (two runtimes on one root number their entries in one sequence); and blobs,
 * named by the sha256 of their bytes (`objects/ab/cdef…`, written once, shared by every entry that
 * holds those bytes). Images up to INLINE_MAX travel in the index line itself, so an entry of small
 * files costs one fsync; a bigger image's blob is on disk, fsynced, before the line that names it. A
 * process killed mid-append leaves a torn last line: readers skip it, and the next append starts on a
 * new line. Files 0600. Main thread.
 */
import { randomBytes } from 'node:crypto';
import {
  closeSync,
  existsSync,
  fdatasyncSync,
  fstatSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readFileSync,
  readSync,
  renameSync,
  rmSync,
  writeSync,
} from 'node:fs';
import path from 'node:path';
import { errValue, okValue, type Result } from '../core/result.ts';
import { acquireFileLock } from '../files/locks.ts';
import { sha256 } from '../files/swap.ts';
import { type Entry, parseIndex, type StoredImage } from './entries.ts';
import { ownJournalDir } from './journal_dir.ts';

/** Images up to this size go inline in the index line: one fsync per entry instead of one more per blob. */
export const INLINE_MAX = 64 * 1024;

export class JournalStore {
  readonly dir: string;
  readonly index: string;
  #ready = false;
  /** The index as this process last read it: its size and last id (to number an entry without rereading it all). */
  #known = { size: -1, lastId: 0 };

  constructor(dir: string) {
    this.dir = dir;
    this.index = path.join(dir, 'index.jsonl');
  }

  /** Makes the directory (0700) once, and checks it is the user's own. */
  ensure(): Result<void, string> {
    if (this.#ready) return okValue(undefined);
    const own = ownJournalDir(this.dir);
    if (!own.ok) return own;
    this.#ready = true;
    return okValue(undefined);
  }

  blobPath(hash: string): string {
    return path.join(this.dir, 'objects', hash.slice(0, 2), hash.slice(2));
  }

  /** Stores `bytes` unless a blob with their hash is there; their hash. */
  putBlob(bytes: Uint8Array, hash = sha256(bytes)): string {
    const file = this.blobPath(hash);
    if (existsSync(file)) return hash;
    const made = mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    if (made !== undefined) syncDir(path.dirname(made)); // a new objects/ab: its name is durable too
    const temp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
    writeSynced(temp, bytes, 'wx');
    renameSync(temp, file); // whole or absent under its name: a crash never leaves a short blob
    syncDir(path.dirname(file)); // the name too, before the index line that names it
    return hash;
  }

  /** Stores `bytes` inline when small (they travel in the index line), else as a blob. */
  putImage(bytes: Uint8Array, mode: number): StoredImage {
    const h = sha256(bytes);
    if (bytes.length <= INLINE_MAX) return { h, m: mode, n: bytes.length, d: Buffer.from(bytes).toString('base64') };
    return { h: this.putBlob(bytes, h), m: mode, n: bytes.length };
  }

  /** The bytes of a stored image; undefined when its blob is gone. */
  getImage(i: StoredImage): Buffer | undefined {
    return i.d !== undefined ? Buffer.from(i.d, 'base64') : this.getBlob(i.h);
  }

  getBlob(hash: string): Buffer | undefined {
    try {
      return readFileSync(this.blobPath(hash));
    } catch {
      return undefined;
    }
  }

  /** Every entry in the index, oldest first. */
  read(): Entry[] {
    try {
      return parseIndex(readFileSync(this.index, 'utf8')).entries;
    } catch {
      return [];
    }
  }

  /** Runs `fn` holding the journal's cross-process lock. */
  async locked<T>(fn: () => T): Promise<Result<T, string>> {
    const lock = await acquireFileLock(this.index);
    if (!lock.ok) return errValue(`the journal is locked by process ${lock.error?.pid ?? '?'}`);
    try {
      return okValue(fn());
    } finally {
      lock.value();
    }
  }

  /** Appends an entry under the next id (call under the lock); the id. */
  append(entry: Omit<Entry, 'id'>): number {
    const fd = openSync(this.index, 'a+', 0o600);
    try {
      const size = fstatSync(fd).size;
      const id = this.#lastId(fd, size) + 1;
      // After a torn last line, start a new one: the torn line stays unreadable, this one whole.
      const torn = size > 0 && lastByte(fd, size) !== 0x0a;
      const line = Buffer.from(`${torn ? '\n' : ''}${JSON.stringify({ ...entry, id })}\n`);
      let off = 0;
      while (off < line.length) off += writeSync(fd, line, off, line.length - off);
      fdatasyncSync(fd); // the data and the new size; the index's times need no flush
      this.#known = { size: size + line.length, lastId: id };
      return id;
    } finally {
      closeSync(fd);
    }
  }

  /** The highest id in the index, reading only what was appended since this process last looked. */
  #lastId(fd: number, size: number): number {
    const from = this.#known.size >= 0 && size >= this.#known.size ? this.#known.size : 0;
    if (from === size) return from === 0 ? 0 : this.#known.lastId;
    const buf = Buffer.alloc(size - from);
    readSync(fd, buf, 0, buf.length, from);
    const ids = parseIndex(buf.toString('utf8')).entries.map((e) => e.id);
    return Math.max(from === 0 ? 0 : this.#known.lastId, ...ids);
  }

  /** Replaces the index with `entries` (the collection; call under the lock), atomically. */
  rewrite(entries: readonly Entry[]): void {
    const temp = `${this.index}.${process.pid}.tmp`;
    writeSynced(temp, Buffer.from(entries.map((e) => `${JSON.stringify(e)}\n`).join('')), 'w');
    renameSync(temp, this.index);
    this.#known = { size: -1, lastId: 0 };
  }

  removeBlob(hash: string): void {
    rmSync(this.blobPath(hash), { force: true });
  }
}

function writeSynced(file: string, data: Uint8Array, flag: 'w' | 'wx'): void {
  const fd = openSync(file, flag, 0o600);
  try {
    let off = 0;
    while (off < data.length) off += writeSync(fd, data, off, data.length - off);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

function syncDir(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

function lastByte(fd: number, size: number): number {
  const b = Buffer.alloc(1);
  readSync(fd, b, 0, 1, size - 1);
  return b[0] ?? 0x0a;
}
