/**
 * A serving runtime's segment keys left on disk (lib/search/index/disk_keys.ts) find exactly what the
 * keys held in memory (key_index.ts) find: every key present, at its slot, and none absent — at the
 * first and last key, across block boundaries, below and above every key, for tables of every size
 * around a block's, and when asked again (remembered) after other keys pushed it out. The keys are
 * read from a real file, as the index store reads them, and a table out of order is refused.
 */
import assert from 'node:assert/strict';
import { closeSync, openSync, readSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { DiskKeys } from '../../../lib/search/index/disk_keys.ts';
import { KeyIndex } from '../../../lib/search/index/key_index.ts';
import { tempDir } from '../../helpers/temp.ts';

/** `n` ascending distinct keys below 2^24, clustered as trigrams are (runs sharing a first byte). */
function keysOf(n: number, seed: number): Uint32Array {
  let x = seed;
  const rand = (m: number) => {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    return (x >>> 4) % m;
  };
  const set = new Set<number>();
  while (set.size < n) set.add((rand(3) === 0 ? 0x61 << 16 : 0) | rand(rand(2) === 0 ? 0x10000 : 0x1000000));
  return Uint32Array.from([...set].sort((a, b) => a - b));
}

/** DiskKeys over `keys` written to a file, read back through a descriptor; the reads counted. */
function onDisk(keys: Uint32Array) {
  const file = path.join(tempDir(), 'keys');
  writeFileSync(file, Buffer.from(keys.buffer, keys.byteOffset, keys.byteLength));
  const fd = openSync(file, 'r');
  const reads = { n: 0 };
  const disk = new DiskKeys(keys, (from, to) => {
    reads.n++;
    const b = Buffer.alloc(4 * (to - from));
    assert.equal(readSync(fd, b, 0, b.length, 4 * from), b.length);
    return b;
  });
  return { disk, reads, close: () => closeSync(fd) };
}

test('disk keys: every key found at its slot and none absent, as in memory, at every table size around a block', () => {
  for (const n of [0, 1, 2, 63, 64, 65, 127, 128, 129, 1000, 5000]) {
    const keys = keysOf(n, n + 1);
    const memory = new KeyIndex(keys);
    const { disk, close } = onDisk(keys);
    try {
      assert.equal(disk.length, n);
      for (let s = 0; s < n; s++) assert.equal(disk.find(keys[s] as number), s, `n=${n}: key at slot ${s}`);
      // Neighbours of every key (absent unless the next one), the ends, and keys out of range.
      const probes = [-1, 0, 0xffffff, 0x1000000, ...[...keys].flatMap((k) => [k - 1, k + 1])];
      for (const k of probes) assert.equal(disk.find(k), memory.find(k), `n=${n}: key ${k}`);
    } finally {
      close();
    }
  }
});

test('disk keys: a key asked again is remembered, and found again once others pushed it out', () => {
  const keys = keysOf(3000, 9);
  const { disk, reads, close } = onDisk(keys);
  try {
    const k = keys[1500] as number;
    assert.equal(disk.find(k), 1500);
    const once = reads.n;
    assert.equal(disk.find(k), 1500);
    assert.equal(reads.n, once, 'asked again: no read');
    // Hundreds of other keys, in other blocks: the first is no longer remembered, and still found.
    for (let s = 0; s < 3000; s += 7) disk.find(keys[s] as number);
    const before = reads.n;
    assert.equal(disk.find(k), 1500);
    assert.equal(reads.n, before + 1);
  } finally {
    close();
  }
});

test('disk keys: a table out of order, or with a key of more than three bytes, is refused at load', () => {
  const read = () => new Uint8Array(0);
  assert.throws(() => new DiskKeys(Uint32Array.from([5, 3]), read), /out of order/);
  assert.throws(() => new DiskKeys(Uint32Array.from([5, 5]), read), /out of order/);
  assert.throws(() => new DiskKeys(Uint32Array.from([1, 0x1000000]), read), /more than three bytes/);
});

test('disk keys: a block that reads back short or other than at load throws, and leaves nothing wrong remembered', () => {
  const keys = keysOf(300, 5);
  let spoil: ((b: Buffer) => Buffer) | undefined;
  const disk = new DiskKeys(keys, (from, to) => {
    const b = Buffer.from(keys.buffer, keys.byteOffset + 4 * from, 4 * (to - from));
    return spoil ? spoil(Buffer.from(b)) : b;
  });
  assert.equal(disk.find(keys[0] as number), 0); // block 0 read and kept
  spoil = (b) => b.subarray(0, 8);
  assert.throws(() => disk.find(keys[100] as number), /short/);
  spoil = (b) => {
    b.writeUInt32LE(b.readUInt32LE(4) + 1, 4); // one key another, still in order
    return b;
  };
  assert.throws(() => disk.find(keys[65] as number), /differs/);
  spoil = (b) => b.fill(0);
  assert.throws(() => disk.find(keys[200] as number), /differs/);
  spoil = undefined;
  // Whatever failed was not kept: each key is found again where it is.
  for (const s of [0, 65, 100, 200, 299]) assert.equal(disk.find(keys[s] as number), s);
});

test('disk keys: a number that is no key finds nothing, and does not stand in for one', () => {
  const keys = Uint32Array.from([0, 5, 9]);
  const disk = new DiskKeys(keys, (from, to) => Buffer.from(keys.buffer, 4 * from, 4 * (to - from)));
  for (const k of [0.5, 5.5, Number.NaN, -0.5]) assert.equal(disk.find(k), -1, String(k));
  assert.equal(disk.find(0), 0);
  assert.equal(disk.find(5), 1);
});
