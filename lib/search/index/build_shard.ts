/**
 * One piece of an index build, run in a worker (or inline): walks its directories and loose files
 * exactly as a grep shard does (same ignore rules, same checked descriptors), reads each file once
 * and turns its trigrams into segments. A file is left out of the index — and so always searched —
 * when it cannot be read, is larger than MAX_INDEXED_BYTES, or changed within RACY_MS of being read
 * (its timestamps could not reveal a change made in the same tick).
 */
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { mappedBuffer } from '../../core/mapped.ts';
import { bomKind } from '../bom.ts';
import { RACY_MS } from '../dircache.ts';
import { IgnoreRules } from '../ignore.ts';
import { visitFiles } from '../visit_files.ts';
import { comparePaths, type Entry, type Visitor, type WalkOptions, walk } from '../walk.ts';
import { DenseKeys, MAX_DENSE_FILES } from './dense.ts';
import { clearTrigramBits, setTrigramBits } from './ngrams.ts';
import { encodeSegmentView, PAIR_CAPACITY, PAIRS_PER_SEGMENT, PairBuffer, releaseScratch } from './segment_build.ts';
import { type SharedScratch, withScratchTurn } from './shared_scratch.ts';
import { type PieceSegment, type SpoolTarget, SpoolWriter } from './spool.ts';

/** Larger files are not indexed (always searched): their trigrams would say little. */
const MAX_INDEXED_BYTES = 32 * 1024 * 1024;
/** Files up to this size are read whole; larger ones are read through the buffer a piece at a time. */
const READ_BUFFER_BYTES = 1 << 20;

export interface IndexShard {
  kind: 'index';
  root: string;
  walk: WalkOptions;
  dirs: string[];
  files: Entry[];
  /** Window (ms) within which a file's change makes it unindexable. */
  racyMs?: number;
  /** Where the piece appends its segments (else, or where it cannot, it hands them back as bytes). */
  spool?: SpoolTarget;
  /** The build's encoding scratch, shared with its other pieces and taken in turns (shared_scratch.ts). */
  scratch?: SharedScratch;
}

/** A file's identity and state when read: inode, size, mtime and ctime (ms). */
type FileSig = [number, number, number, number];

export interface IndexShardResult {
  kind: 'index';
  /** Indexed files, in the order their numbers (0…) run across the segments. */
  rels: string[];
  sigs: number[];
  /** Each segment covers the next `files` of `rels`: written to the spool, or its bytes. */
  segments: PieceSegment[];
  /** Bytes of text indexed. */
  bytes: number;
  visited: number;
  /** Every directory the walk entered: a new file may appear in one that holds no indexed file. */
  dirs: string[];
  /** The ignore files those directories' listings showed (IgnoreRules.filesSeen). */
  ignoreFiles: string[];
}

// One read buffer per thread, never grown: a large file streams through it.
const buffer = Buffer.from(mappedBuffer(READ_BUFFER_BYTES), 0, READ_BUFFER_BYTES);
// The common keys, kept as bitmaps, carried from piece to piece (dense.ts). A piece that threw
// midway left bits set: the next one starts from a new, empty set.
let dense = new DenseKeys();
let denseInUse = false;

export function runIndexShard(t: IndexShard): IndexShardResult {
  const racy = t.racyMs ?? RACY_MS;
  const out: IndexShardResult = {
    kind: 'index',
    rels: [],
    sigs: [],
    segments: [],
    bytes: 0,
    visited: 0,
    dirs: [],
    ignoreFiles: [],
  };
  if (denseInUse) dense = new DenseKeys();
  // The guessed keys carry over; the segments' sizes follow this piece's files only, so a piece
  // builds the same bytes whichever pieces its worker ran before.
  else dense.reset(dense.keys.slice(0, dense.n), dense.n, MAX_DENSE_FILES);
  denseInUse = true;
  let pairs = new PairBuffer(PAIR_CAPACITY);
  pairs.dense = dense;
  let first = 0;
  const writer = t.spool && SpoolWriter.open(t.spool);
  const flush = () => {
    if (out.rels.length === first) return;
    const files = out.rels.length - first;
    // The encoded bytes are in the scratch: written or copied out before the turn passes on.
    withScratchTurn(t.scratch, (shared) => {
      const bytes = encodeSegmentView(pairs, files, shared);
      out.segments.push(writer ? { files, ...writer.append(bytes) } : { files, bytes: bytes.slice() });
    });
    first = out.rels.length;
    pairs.clear();
    // Grown for a large file: back to its usual size rather than keep the largest file's worth.
    if (pairs.keys.length > PAIR_CAPACITY) {
      pairs = new PairBuffer(PAIR_CAPACITY);
      pairs.dense = dense;
    }
  };
  const visit = (e: Entry, at?: string, fd?: number): boolean => {
    out.visited++;
    if (e.kind !== 'file' || at === undefined) return false;
    const read = readFile(at, racy, fd);
    if (!read) return false;
    const { bytes, sig } = read;
    // A file that may not fit what is left starts a new segment: the buffer keeps its size.
    // Measured in pairs counted (not those kept after the dense keys are taken out): the same whatever
    // keys are guessed dense, so a piece always splits into the same segments.
    if (pairs.counted > 0 && pairs.counted + (bytes?.length ?? sig[1]) > PAIR_CAPACITY) flush();
    // A large file's keys were set in the bitset as it was read.
    if (bytes) pairs.addFile(bytes, out.rels.length - first);
    else pairs.addBits(out.rels.length - first);
    out.rels.push(e.rel);
    out.sigs.push(sig[0], sig[1], sig[2], sig[3]);
    out.bytes += sig[1];
    if (pairs.counted >= PAIRS_PER_SEGMENT || out.rels.length - first >= dense.files) flush();
    return false;
  };
  const visitor: Visitor = { file: visit, dir: (d) => out.dirs.push(d) };
  const files = [...t.files].sort((a, b) => comparePaths(a.rel, b.rel));
  const o = { ...t.walk, openFiles: 'read' as const };
  const rules = IgnoreRules.of({ ...t.walk, root: t.root });
  try {
    if (!visitFiles(o, files, visitor)) walk(o, t.dirs, visitor, rules);
    out.ignoreFiles = rules.filesSeen;
    flush();
  } finally {
    writer?.close();
    // The scratch of a segment of 3M pairs is ~60 MB: kept from segment to segment, not between
    // pieces, which may come seconds apart (the thread's collector gives it back, or its end).
    releaseScratch();
  }
  denseInUse = false;
  return out;
}

/**
 * The file at `at` (opened as the checked directory's entry, never followed) and its state, when it
 * can be indexed: its bytes when it fits the read buffer; a larger file is read a piece at a time and
 * its trigrams are left set in the bitset (no bytes returned). Undefined — bitset clear — when it
 * cannot be read, is too large, is UTF-16 (the searcher decodes it; its raw bytes hold no trigram of
 * its text), holds a NUL byte, has another hard link, is not the size it had when read began, or
 * changed within `racy` ms (a change in the same tick would not show).
 */
function readFile(at: string, racy: number, given?: number): { bytes?: Buffer; sig: FileSig } | undefined {
  let fd: number;
  try {
    fd = given ?? openSync(at, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return undefined;
  }
  let streamed = false;
  try {
    const st = fstatSync(fd);
    // A file with another hard link can be written through a name no watch covers: searched always.
    if (!st.isFile() || st.size > MAX_INDEXED_BYTES || st.nlink > 1) return undefined;
    const now = Date.now();
    if (now - st.mtimeMs < racy || now - st.ctimeMs < racy) return undefined;
    const sig: FileSig = [st.ino, st.size, st.mtimeMs, st.ctimeMs];
    let got = 0;
    let fill = 0;
    const carry = { k: 0, seen: 0 };
    for (;;) {
      const n = readSync(fd, buffer, fill, buffer.length - fill, got);
      if (n === 0) break;
      got += n;
      fill += n;
      // Read up to the size taken: a file grown since is caught as a torn one is (below).
      if (fill < buffer.length) {
        if (got >= st.size) break;
        continue;
      }
      // The buffer is full: the file streams through it from here on, its trigrams set as it goes.
      if (!streamed && bomKind(buffer, fill) === 'utf-16') return undefined;
      streamed = true;
      if (buffer.indexOf(0) !== -1) return undefined; // binary: see below
      setTrigramBits(buffer, carry);
      fill = 0;
    }
    // A binary file is counted in a search's note when the pattern has no single literal: never
    // indexed, so always searched.
    if (buffer.subarray(0, fill).indexOf(0) !== -1) return undefined;
    if (streamed) setTrigramBits(buffer.subarray(0, fill), carry);
    else if (bomKind(buffer, fill) === 'utf-16') return undefined;
    // A file rewritten while read (torn bytes), or grown since its state was taken (read only up to
    // that size: no read that finds the end, one system call per file fewer), keeps the state taken
    // before reading: a write changes its ctime (and mtime and size), so the next sweep, watch event
    // or state check finds it unlike the indexed one and searches it. (A second fstat here cost ~40
    // ms of every build and caught nothing more.)
    if (got !== st.size) return undefined;
    if (!streamed) return { bytes: buffer.subarray(0, got), sig };
    streamed = false; // the bits stay set: the caller drains them
    return { sig };
  } catch {
    return undefined;
  } finally {
    if (streamed) clearTrigramBits();
    if (given === undefined) closeSync(fd);
  }
}
