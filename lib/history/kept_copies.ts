/**
 * Copies of files' bytes taken before shell commands, for the files git cannot give back (not clean
 * in its index): the racy ones first (their bytes are the only way to see a change), then the most
 * recently modified, within a budget. A runtime keeps them from one command to the next: a copy is
 * good as long as its file is in the state it was copied in, and a file a watch saw change is copied
 * again (it is the newest), the oldest copy making room. Main thread.
 */
import { type CheckedDirs, readAsStated } from './checked_dirs.ts';
import { type EntryState, isRegular, sameState } from './tree_states.ts';

/** At most this many files and bytes are kept, each file at most FILE_MAX. */
export const COPY_FILES = 1000;
export const COPY_BYTES = 32 * 1024 * 1024;
export const FILE_MAX = 16 * 1024 * 1024;

interface Copy {
  st: EntryState;
  bytes: Buffer;
}

/** A file to copy if it fits, and whether it is racy. */
export interface Wanted {
  rel: string;
  st: EntryState;
  racy: boolean;
}

export class KeptCopies {
  readonly #copies = new Map<string, Copy>();
  #bytes = 0;

  /** The bytes kept of `rel`, if they are of the state `st`. */
  get(rel: string, st: EntryState): Buffer | undefined {
    const c = this.#copies.get(rel);
    return c && sameState(c.st, st) ? c.bytes : undefined;
  }

  get size(): number {
    return this.#copies.size;
  }

  /** The files copied. */
  files(): string[] {
    return [...this.#copies.keys()];
  }

  /** Drops the copies of `rels` whose files are no longer as copied (`now`: their states; gone when absent). */
  forget(rels: Iterable<string>, now: { get(rel: string): EntryState | undefined }): void {
    for (const rel of rels) {
      const c = this.#copies.get(rel);
      const st = now.get(rel);
      if (c && !(st && sameState(c.st, st))) this.#drop(rel, c);
    }
  }

  clear(): void {
    this.#copies.clear();
    this.#bytes = 0;
  }

  /**
   * Copies what it can of `wanted` (racy first, then newest), making room by dropping older copies;
   * answers the latest ctime (ns) of a racy file it could not copy, 0n when none was left.
   */
  take(root: string, wanted: Wanted[], dirs: CheckedDirs): bigint {
    wanted.sort((a, b) => Number(b.racy) - Number(a.racy) || (b.st.mtimeNs > a.st.mtimeNs ? 1 : -1));
    let uncopiedRacy = 0n;
    // Newest first: once no room can be made for one that is not racy, none can for those after it.
    let full = false;
    for (const w of wanted) {
      if (this.get(w.rel, w.st)) continue;
      const size = Number(w.st.size);
      const room = isRegular(w.st) && size <= FILE_MAX && !(full && !w.racy) && this.#room(size, w);
      if (!room && !w.racy && size <= FILE_MAX) full = true;
      const fits = room;
      const bytes = fits ? readAsStated(root, w.rel, w.st, dirs) : undefined;
      if (bytes) {
        const had = this.#copies.get(w.rel);
        if (had) this.#drop(w.rel, had);
        this.#copies.set(w.rel, { st: w.st, bytes });
        this.#bytes += bytes.length;
      } else if (w.racy && w.st.ctimeNs > uncopiedRacy) uncopiedRacy = w.st.ctimeNs;
    }
    return uncopiedRacy;
  }

  /** Drops the oldest copies, never a newer one than `w`'s file, until `size` more bytes fit. */
  #room(size: number, w: Wanted): boolean {
    while (this.#copies.size >= COPY_FILES || this.#bytes + size > COPY_BYTES) {
      let oldest: [string, Copy] | undefined;
      for (const e of this.#copies) if (!oldest || e[1].st.mtimeNs < oldest[1].st.mtimeNs) oldest = e;
      if (!oldest || oldest[0] === w.rel || (!w.racy && oldest[1].st.mtimeNs > w.st.mtimeNs)) return false;
      this.#drop(oldest[0], oldest[1]);
    }
    return true;
  }

  #drop(rel: string, c: Copy): void {
    this.#copies.delete(rel);
    this.#bytes -= c.bytes.length;
  }
}
