/**
 * One piece of an index build, run in a worker (or inline): walks its directories and loose files
 * exactly as a grep shard does (same ignore rules, same checked descriptors), reads each file once
 * and turns its trigrams into segments. A file is left out of the index — and so always searched —
 * when it cannot be read, is larger than MAX_INDEXED_BYTES, or changed within RACY_MS of being read
 * (its timestamps could not reveal a change made in the same tick).
 */
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { bomKind } from '../bom.ts';
import { RACY_MS } from '../dircache.ts';
import { IgnoreRules } from '../ignore.ts';
import { comparePaths, type Entry, type Visitor, visitFiles, type WalkOptions, walk } from '../walk.ts';
import { encodeSegment, PairBuffer } from './segment.ts';

/** Larger files are not indexed (always searched): their trigrams would say little. */
export const MAX_INDEXED_BYTES = 32 * 1024 * 1024;
/** Pairs per segment: bounds a worker's memory while building (~8 bytes a pair, twice). */
const PAIRS_PER_SEGMENT = 1_000_000;

export interface IndexShard {
  kind: 'index';
  root: string;
  walk: WalkOptions;
  dirs: string[];
  files: Entry[];
  /** Window (ms) within which a file's change makes it unindexable. */
  racyMs?: number;
}

/** A file's identity and state when read: inode, size, mtime and ctime (ms). */
export type FileSig = [number, number, number, number];

export interface IndexShardResult {
  kind: 'index';
  /** Indexed files, in the order their numbers (0…) run across the segments. */
  rels: string[];
  sigs: number[];
  /** Each segment covers the next `files` of `rels`. */
  segments: { files: number; bytes: Uint8Array }[];
  /** Bytes of text indexed. */
  bytes: number;
  visited: number;
  /** Every directory the walk entered: a new file may appear in one that holds no indexed file. */
  dirs: string[];
}

let buffer = Buffer.allocUnsafe(1 << 20);

export function runIndexShard(t: IndexShard): IndexShardResult {
  const racy = t.racyMs ?? RACY_MS;
  const out: IndexShardResult = { kind: 'index', rels: [], sigs: [], segments: [], bytes: 0, visited: 0, dirs: [] };
  const pairs = new PairBuffer(PAIRS_PER_SEGMENT + (1 << 16));
  let first = 0;
  const flush = () => {
    if (out.rels.length === first) return;
    out.segments.push({ files: out.rels.length - first, bytes: encodeSegment(pairs, out.rels.length - first) });
    first = out.rels.length;
    pairs.length = 0;
  };
  const visit = (e: Entry, at?: string): boolean => {
    out.visited++;
    if (e.kind !== 'file' || at === undefined) return false;
    const read = readWhole(at);
    if (!read) return false;
    const { bytes, sig } = read;
    // The searcher decodes a UTF-16 file (bom.ts); its raw bytes hold no trigram of its text. A file
    // the index does not hold is always searched.
    if (bomKind(bytes, bytes.length) === 'utf-16') return false;
    // A binary file is counted in a search's note when the pattern has no single literal: searched always.
    if (bytes.indexOf(0) !== -1) return false;
    const now = Date.now();
    if (now - sig[2] < racy || now - sig[3] < racy) return false;
    // A file that may not fit what is left starts a new segment: the buffer keeps its size.
    if (pairs.length > 0 && pairs.length + bytes.length > pairs.keys.length) flush();
    pairs.addFile(bytes, out.rels.length - first);
    out.rels.push(e.rel);
    out.sigs.push(...sig);
    out.bytes += bytes.length;
    if (pairs.length >= PAIRS_PER_SEGMENT) flush();
    return false;
  };
  const visitor: Visitor = { file: visit, dir: (d) => out.dirs.push(d) };
  const files = [...t.files].sort((a, b) => comparePaths(a.rel, b.rel));
  const o = { ...t.walk, openFiles: true };
  if (!visitFiles(o, files, visitor)) walk(o, t.dirs, visitor, new IgnoreRules(t.root, t.walk.ignoreBase));
  flush();
  return out;
}

/** The whole file at `at` (opened as the checked directory's entry, never followed) and its state. */
function readWhole(at: string): { bytes: Buffer; sig: FileSig } | undefined {
  let fd: number;
  try {
    fd = openSync(at, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return undefined;
  }
  try {
    const st = fstatSync(fd);
    // A file with another hard link can be written through a name no watch covers: searched always.
    if (!st.isFile() || st.size > MAX_INDEXED_BYTES || st.nlink > 1) return undefined;
    if (buffer.length < st.size + 1) buffer = Buffer.allocUnsafe(Math.max(st.size + 1, buffer.length * 2));
    let got = 0;
    for (;;) {
      const n = readSync(fd, buffer, got, buffer.length - got, got);
      if (n === 0) break;
      got += n;
      if (got === buffer.length) return undefined; // grew while read: leave it to the search
    }
    const after = fstatSync(fd);
    if (after.mtimeMs !== st.mtimeMs || after.ctimeMs !== st.ctimeMs || after.size !== got) return undefined;
    return { bytes: buffer.subarray(0, got), sig: [st.ino, st.size, st.mtimeMs, st.ctimeMs] };
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}
