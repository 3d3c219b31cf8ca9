/**
 * Files' states by path, kept compactly: a runtime keeps one per root between shell commands
 * (live_tree.ts), so each state is 40 bytes in typed arrays instead of an object holding four
 * bigints (~100 bytes more a file: ~10 MiB on a 100k-file tree). A state is made an object again only
 * when asked for. Reads as a Map of path to EntryState.
 */

/** What the comparison keeps of an lstat. */
export interface EntryState {
  ino: bigint;
  size: bigint;
  mtimeNs: bigint;
  ctimeNs: bigint;
  mode: number;
  /** Hard links: a file with others may be changed through a name outside any watched directory. */
  links: number;
}

const FIRST_SLOTS = 256;

export class FileStates implements Iterable<[string, EntryState]> {
  readonly #ids = new Map<string, number>();
  readonly #free: number[] = [];
  /** Each slot's path (undefined: free). */
  readonly #rels: (string | undefined)[] = [];
  #used = 0;
  #ino = new BigUint64Array(FIRST_SLOTS);
  #size = new BigUint64Array(FIRST_SLOTS);
  #mtimeNs = new BigInt64Array(FIRST_SLOTS);
  #ctimeNs = new BigInt64Array(FIRST_SLOTS);
  #mode = new Uint32Array(FIRST_SLOTS);
  #links = new Uint32Array(FIRST_SLOTS);

  get size(): number {
    return this.#ids.size;
  }

  has(rel: string): boolean {
    return this.#ids.has(rel);
  }

  get(rel: string): EntryState | undefined {
    const i = this.#ids.get(rel);
    return i === undefined ? undefined : this.#at(i);
  }

  set(rel: string, st: EntryState): this {
    let i = this.#ids.get(rel);
    if (i === undefined) {
      i = this.#free.pop() ?? this.#slot();
      this.#ids.set(rel, i);
      this.#rels[i] = rel;
    }
    this.#ino[i] = st.ino;
    this.#size[i] = st.size;
    this.#mtimeNs[i] = st.mtimeNs;
    this.#ctimeNs[i] = st.ctimeNs;
    this.#mode[i] = st.mode;
    this.#links[i] = Math.min(st.links, 0xffffffff);
    return this;
  }

  delete(rel: string): boolean {
    const i = this.#ids.get(rel);
    if (i === undefined) return false;
    this.#ids.delete(rel);
    this.#free.push(i);
    this.#rels[i] = undefined;
    return true;
  }

  /** The paths whose state has inode `ino` (hard links of one file): a scan, ~0.3 ms per 100k files. */
  withIno(ino: bigint): string[] {
    const out: string[] = [];
    for (let i = 0; i < this.#used; i++) {
      const rel = this.#rels[i];
      if (this.#ino[i] === ino && rel !== undefined) out.push(rel);
    }
    return out;
  }

  keys(): IterableIterator<string> {
    return this.#ids.keys();
  }

  *[Symbol.iterator](): IterableIterator<[string, EntryState]> {
    for (const [rel, i] of this.#ids) yield [rel, this.#at(i)];
  }

  entries(): IterableIterator<[string, EntryState]> {
    return this[Symbol.iterator]();
  }

  #at(i: number): EntryState {
    return {
      ino: this.#ino[i] as bigint,
      size: this.#size[i] as bigint,
      mtimeNs: this.#mtimeNs[i] as bigint,
      ctimeNs: this.#ctimeNs[i] as bigint,
      mode: this.#mode[i] as number,
      links: this.#links[i] as number,
    };
  }

  /** A new slot at the end, the arrays doubled when full. */
  #slot(): number {
    if (this.#used === this.#ino.length) {
      const n = this.#used * 2;
      this.#ino = grown(this.#ino, new BigUint64Array(n));
      this.#size = grown(this.#size, new BigUint64Array(n));
      this.#mtimeNs = grown(this.#mtimeNs, new BigInt64Array(n));
      this.#ctimeNs = grown(this.#ctimeNs, new BigInt64Array(n));
      this.#mode = grown(this.#mode, new Uint32Array(n));
      this.#links = grown(this.#links, new Uint32Array(n));
    }
    return this.#used++;
  }
}

function grown<T extends BigUint64Array | BigInt64Array | Uint32Array>(from: T, to: T): T {
  to.set(from as never);
  return to;
}
