/**
 * The index on disk: one file per search root under the user's cache directory
 * ($XDG_CACHE_HOME/mewcode/index, else ~/.cache/mewcode/index), never in the tree. Written to a
 * temporary name and renamed, mode 0600 (trigram sets say something about the files' contents).
 * Layout: magic, u32 header length, JSON header (root, files), 8-aligned f64 signatures
 * (inode, size, mtime, ctime per file), then the segments, each 4-aligned.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { Segment } from './segment.ts';

const MAGIC = Buffer.from('MCIDX01\n');

export interface IndexHeader {
  root: string;
  builtAt: number;
  rels: string[];
  /** Files per segment, in order. */
  segments: { files: number; byteLength: number }[];
  /** Bytes of text the index covers. */
  bytes: number;
}

export interface LoadedIndex extends IndexHeader {
  file: string;
  sigs: Float64Array;
  parts: Segment[];
  /** Bytes of the index file. */
  size: number;
}

export function cacheDir(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_CACHE_HOME ? path.resolve(env.XDG_CACHE_HOME) : path.join(homedir(), '.cache');
  return path.join(base, 'mewcode', 'index');
}

/** Where the index of `root` (a real path) lives. */
export const indexFileFor = (root: string, dir = cacheDir()) =>
  path.join(dir, `${createHash('sha256').update(root).digest('hex').slice(0, 24)}.idx`);

const pad = (n: number, to: number) => (n + to - 1) & ~(to - 1);

export function writeIndex(file: string, header: IndexHeader, sigs: Float64Array, segments: Uint8Array[]): number {
  const json = Buffer.from(JSON.stringify(header));
  const headEnd = pad(MAGIC.length + 4 + json.length, 8);
  let size = headEnd + sigs.byteLength;
  for (const s of segments) size = pad(size, 4) + s.length;
  const out = Buffer.alloc(size);
  MAGIC.copy(out, 0);
  out.writeUInt32LE(json.length, MAGIC.length);
  json.copy(out, MAGIC.length + 4);
  Buffer.from(sigs.buffer, sigs.byteOffset, sigs.byteLength).copy(out, headEnd);
  let at = headEnd + sigs.byteLength;
  for (const s of segments) {
    at = pad(at, 4);
    out.set(s, at);
    at += s.length;
  }
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.${Date.now()}.tmp`;
  try {
    writeFileSync(tmp, out, { mode: 0o600 });
    renameSync(tmp, file);
  } catch (e) {
    try {
      unlinkSync(tmp);
    } catch {
      // never written
    }
    throw e;
  }
  return size;
}

export const indexExists = (file: string) => statSync(file, { throwIfNoEntry: false })?.isFile() === true;

/** The index in `file`, or undefined when there is none or it is not one this version reads. */
export function readIndex(file: string, root: string): LoadedIndex | undefined {
  let buf: Buffer;
  try {
    buf = readFileSync(file);
  } catch {
    return undefined;
  }
  if (buf.length < MAGIC.length + 4 || !buf.subarray(0, MAGIC.length).equals(MAGIC)) return undefined;
  const len = buf.readUInt32LE(MAGIC.length);
  let header: IndexHeader;
  try {
    header = JSON.parse(buf.toString('utf8', MAGIC.length + 4, MAGIC.length + 4 + len)) as IndexHeader;
  } catch {
    return undefined;
  }
  if (header.root !== root || !Array.isArray(header.rels)) return undefined;
  const headEnd = pad(MAGIC.length + 4 + len, 8);
  const n = header.rels.length;
  const sigs = new Float64Array(n * 4);
  new Uint8Array(sigs.buffer).set(buf.subarray(headEnd, headEnd + n * 32));
  const parts: Segment[] = [];
  let at = headEnd + n * 32;
  let base = 0;
  for (const s of header.segments) {
    at = pad(at, 4);
    if (at + s.byteLength > buf.length) return undefined;
    parts.push(new Segment(buf.subarray(at, at + s.byteLength), base));
    at += s.byteLength;
    base += s.files;
  }
  if (base !== n) return undefined;
  return { ...header, file, sigs, parts, size: buf.length };
}
