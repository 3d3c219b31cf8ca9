/**
 * The directory cache's store (dircache.ts), kept small: a warm runtime's threads each end up holding
 * the listings of the whole tree they walked (~22k directories, ~122k entries on the bench tree), and
 * an object and a string per entry plus an object and four numbers per directory cost ~16 MiB per
 * thread. Here a directory's listing is one string — each entry its kind's letter then its name,
 * entries separated by '/' (which no name contains) — and its key (device, inode, mtime, ctime) four
 * doubles in one shared Float64Array, found by a slot number per path. Entries are made again, as
 * short-lived objects, each time a listing is served.
 */
import type { Stats } from 'node:fs';

export type EntryKind = 'dir' | 'file' | 'symlink' | 'other';
export interface DirEntry {
  name: string;
  kind: EntryKind;
}

/** The stat fields a listing is revalidated by (exact equality of each, as read by `fstat`/`stat`). */
type ListingKey = Pick<Stats, 'dev' | 'ino' | 'mtimeMs' | 'ctimeMs'>;

const LETTER: Record<EntryKind, string> = { dir: 'd', file: 'f', symlink: 'l', other: 'o' };
const FIELDS = 4;

export class CompactListings {
  private readonly slots = new Map<string, number>();
  private texts: string[] = [];
  private keys = new Float64Array(0); // allocated with the first listing: a one-shot keeps none
  /** Slots of deleted listings, reused before the arrays grow. */
  private free: number[] = [];

  get size(): number {
    return this.slots.size;
  }

  /** The listing kept for `abs` when it was read from the directory `st` describes, unchanged. */
  get(abs: string, st: ListingKey): DirEntry[] | undefined {
    const slot = this.slots.get(abs);
    if (slot === undefined) return undefined;
    const k = this.keys;
    const at = slot * FIELDS;
    if (k[at] !== st.ino || k[at + 1] !== st.dev || k[at + 2] !== st.mtimeMs || k[at + 3] !== st.ctimeMs)
      return undefined;
    return decode(this.texts[slot] as string);
  }

  set(abs: string, st: ListingKey, entries: readonly DirEntry[]): void {
    let slot = this.slots.get(abs);
    if (slot === undefined) {
      slot = this.free.pop() ?? this.texts.length;
      this.slots.set(abs, slot);
    }
    if ((slot + 1) * FIELDS > this.keys.length) {
      const grown = new Float64Array(Math.max(FIELDS * 1024, this.keys.length * 2));
      grown.set(this.keys);
      this.keys = grown;
    }
    const at = slot * FIELDS;
    this.keys[at] = st.ino;
    this.keys[at + 1] = st.dev;
    this.keys[at + 2] = st.mtimeMs;
    this.keys[at + 3] = st.ctimeMs;
    this.texts[slot] = encode(entries);
  }

  delete(abs: string): void {
    const slot = this.slots.get(abs);
    if (slot === undefined) return;
    this.slots.delete(abs);
    this.texts[slot] = '';
    this.free.push(slot);
  }

  clear(): void {
    this.slots.clear();
    this.texts = [];
    this.keys = new Float64Array(0);
    this.free = [];
  }
}

// join builds one flat string (a string built by += stays a chain of pieces, an object each).
const encode = (entries: readonly DirEntry[]): string => entries.map((e) => LETTER[e.kind] + e.name).join('/');

function decode(text: string): DirEntry[] {
  const out: DirEntry[] = [];
  let start = 0;
  while (start < text.length) {
    let end = text.indexOf('/', start);
    if (end === -1) end = text.length;
    out.push({ name: text.slice(start + 1, end), kind: kindOf(text.charCodeAt(start)) });
    start = end + 1;
  }
  return out;
}

const kindOf = (letter: number): EntryKind =>
  letter === 102 ? 'file' : letter === 100 ? 'dir' : letter === 108 ? 'symlink' : 'other';
