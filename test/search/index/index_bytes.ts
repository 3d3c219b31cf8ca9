/**
 * An index file's bytes for tests: where its segments are, and spoiling them in ways only a reader
 * that checks them would notice.
 */
import assert from 'node:assert/strict';
import { closeSync, openSync, readFileSync, writeSync } from 'node:fs';
import path from 'node:path';
import { buildIndex, type IndexRunner } from '../../../lib/search/index/build.ts';
import { tempDir } from '../../helpers/temp.ts';

/** An index file's header (the parts tests read) and its length in bytes. */
function headerOf(index: Buffer): { len: number; tableBytes: number; segments: { byteLength: number }[] } {
  const len = index.readUInt32LE(8);
  return { len, ...JSON.parse(index.subarray(12, 12 + len).toString('utf8')) };
}

/** Where an index file's segments begin: after its header and file table. */
export function segmentsStart(index: Buffer): number {
  const { len, tableBytes } = headerOf(index);
  return (((12 + len + 7) & ~7) + tableBytes + 3) & ~3;
}

/** The bytes of the index file `file` after its header and file table: its segments. */
export const segmentsOf = (file: string): Buffer => {
  const b = readFileSync(file);
  return b.subarray(segmentsStart(b));
};

/** Builds `root`'s index with each runner (racy window 0) and asserts their segments are the same bytes. */
export async function assertSameSegments(root: string, runners: readonly (readonly [string, IndexRunner])[]) {
  const cache = tempDir('mewcode-segments-cache-');
  const built: Buffer[] = [];
  for (const [name, runner] of runners) {
    const file = path.join(cache, `${name}.idx`);
    const r = await buildIndex({ root, file, runner, racyMs: 0 });
    assert.ok(r.ok, name);
    r.value.close();
    built.push(segmentsOf(file));
  }
  assert.ok((built[0] as Buffer).length > 0);
  for (const [i, b] of built.entries())
    assert.ok(b.equals(built[0] as Buffer), `${runners[i]?.[0]}: the same segments`);
}

/** `index` (an index file's bytes) with its first segment's first two keys swapped. */
export function keysSwapped(index: Buffer): Buffer {
  const out = Buffer.from(index);
  const segment = segmentsStart(out);
  assert.ok(out.readUInt32LE(segment) >= 2, 'the segment holds two keys');
  const [k0, k1] = [out.readUInt32LE(segment + 8), out.readUInt32LE(segment + 12)];
  out.writeUInt32LE(k1, segment + 8);
  out.writeUInt32LE(k0, segment + 12);
  return out;
}

/**
 * Adds one to every key of every segment of the index file `file`, in place (the same inode, as an
 * outside writer or a damaged disk would change it): each table still in order, each key another.
 */
export function shiftKeysInPlace(file: string): void {
  const b = readFileSync(file);
  let at = segmentsStart(b);
  const fd = openSync(file, 'r+');
  try {
    for (const s of headerOf(b).segments) {
      at = (at + 3) & ~3;
      const n = b.readUInt32LE(at);
      const keys = Buffer.alloc(4 * n);
      for (let i = 0; i < n; i++) keys.writeUInt32LE(b.readUInt32LE(at + 8 + 4 * i) + 1, 4 * i);
      writeSync(fd, keys, 0, keys.length, at + 8);
      at += s.byteLength;
    }
  } finally {
    closeSync(fd);
  }
}
