/**
 * The shard side of the prefilter: a grep shard skips a file only when the index holds it (as it was
 * when indexed, which the main thread vouched for by leaving it out of `candidates` only then) and
 * the plan ruled it out. A file the index does not hold — new, ignored or denied when the index was
 * built, unreadable, too large — is searched as always. Each thread reads the index's file list once
 * per build. Runs in workers and inline.
 */
import { closeSync, openSync, readSync } from 'node:fs';

export interface GrepPrefilter {
  /** The index file and its build time: which file list `candidates` refers to. */
  file: string;
  builtAt: number;
  /** The shard root relative to the index root, with a trailing slash ('' at the root). */
  prefix: string;
  /** Indexed files (relative to the index root) that may match, or changed since indexing. */
  candidates: string[];
}

const indexed = new Map<string, Set<string>>();
const keyOf = (file: string, builtAt: number) => `${builtAt}:${file}`;

/** Hands this thread's loaded file list over, so the inline path does not read it again. */
export function rememberIndexed(file: string, builtAt: number, rels: readonly string[]): void {
  indexed.clear();
  indexed.set(keyOf(file, builtAt), new Set(rels));
}

export interface Skipper {
  /** The file (relative to the shard root) need not be searched. */
  skip(rel: string): boolean;
  /** The index holds the file. */
  indexed(rel: string): boolean;
}

export function skipperOf(p: GrepPrefilter | undefined): Skipper | undefined {
  if (!p) return undefined;
  const key = keyOf(p.file, p.builtAt);
  let held = indexed.get(key);
  if (!held) {
    const rels = readRels(p.file, p.builtAt);
    if (!rels) return undefined; // rebuilt or gone meanwhile: search everything
    indexed.clear();
    held = new Set(rels);
    indexed.set(key, held);
  }
  const known = held;
  const maybe = new Set(p.candidates);
  return {
    skip: (rel) => known.has(p.prefix + rel) && !maybe.has(p.prefix + rel),
    indexed: (rel) => known.has(p.prefix + rel),
  };
}

/** Only the header of the index file: its file list, when it is still the build asked for. */
function readRels(file: string, builtAt: number): string[] | undefined {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch {
    return undefined;
  }
  try {
    const head = Buffer.alloc(12);
    if (readSync(fd, head, 0, 12, 0) !== 12) return undefined;
    const len = head.readUInt32LE(8);
    const json = Buffer.alloc(len);
    if (readSync(fd, json, 0, len, 12) !== len) return undefined;
    const h = JSON.parse(json.toString('utf8')) as { builtAt?: number; rels?: string[] };
    return h.builtAt === builtAt && Array.isArray(h.rels) ? h.rels : undefined;
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}
