/** Spoiling an index file's bytes in ways only a reader that checks them would notice (tests). */
import assert from 'node:assert/strict';

/** `index` (an index file's bytes) with its first segment's first two keys swapped. */
export function keysSwapped(index: Buffer): Buffer {
  const out = Buffer.from(index);
  const len = out.readUInt32LE(8);
  const header = JSON.parse(out.subarray(12, 12 + len).toString('utf8')) as { tableBytes: number };
  const segment = (((12 + len + 7) & ~7) + header.tableBytes + 3) & ~3;
  assert.ok(out.readUInt32LE(segment) >= 2, 'the segment holds two keys');
  const [k0, k1] = [out.readUInt32LE(segment + 8), out.readUInt32LE(segment + 12)];
  out.writeUInt32LE(k1, segment + 8);
  out.writeUInt32LE(k0, segment + 12);
  return out;
}
