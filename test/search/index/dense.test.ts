/**
 * Dense keys (dense.ts): a segment built with common keys kept as bitmaps is byte for byte the segment
 * built from pairs alone, whatever the guess — right, wrong, stale (a key in no file of the segment),
 * in a few files (written as varints from the bitmap) — and segment after segment (the guess carried).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DenseKeys } from '../../../lib/search/index/dense.ts';
import { trigramsInto } from '../../../lib/search/index/ngrams.ts';
import { encodeSegment, PairBuffer } from '../../../lib/search/index/segment_build.ts';

/** Deterministic texts: common words in most files, rarer ones in a few, some in none of a run. */
function texts(count: number, seed: number): Buffer[] {
  let x = seed;
  const rnd = (m: number) => {
    x = (x * 1103515245 + 12345) >>> 0;
    return (x >>> 8) % m;
  };
  const words = ['import', 'export', 'const', 'return', 'function', 'ZEBRA', 'quux', 'x', 'élan', 'TODO'];
  return Array.from({ length: count }, () => {
    const parts: string[] = [];
    const n = rnd(40);
    for (let i = 0; i < n; i++)
      parts.push(rnd(4) === 0 ? `${words[rnd(words.length)]}${rnd(5000)}` : (words[rnd(5)] as string));
    return Buffer.from(parts.join(' '));
  });
}

function encodeAll(runs: Buffer[][], dense: DenseKeys | undefined): Uint8Array[] {
  const pairs = new PairBuffer(1 << 21);
  pairs.dense = dense;
  return runs.map((run) => {
    for (const [f, t] of run.entries()) pairs.addFile(t, f);
    const bytes = encodeSegment(pairs, run.length);
    pairs.clear();
    return bytes;
  });
}

test('index build: dense keys kept as bitmaps encode the same segments as pairs alone', () => {
  // Run sizes: bitmaps of 1 byte and of many; a run of one file; the same texts again (a right
  // guess). Each run fits the rows the previous one sized (the builder flushes a segment when full).
  const runs = [
    texts(300, 1),
    texts(7, 2),
    texts(1, 3),
    texts(64, 4),
    texts(96, 6),
    texts(140, 7),
    texts(200, 1),
    texts(50, 5),
  ];
  const plain = encodeAll(runs, undefined);
  const dense = new DenseKeys();
  const withDense = encodeAll(runs, dense);
  assert.ok(dense.n > 0, 'the later segments guessed some dense keys');
  for (let i = 0; i < runs.length; i++) assert.deepEqual(withDense[i], plain[i], `segment ${i}`);
  // The bitmaps are left clear for the next segment.
  assert.ok(dense.rows.every((b) => b === 0));
  // A wrong guess: keys in no file, keys in one file, a key in every file.
  const wrong = new DenseKeys();
  const key = (s: string) => (s.charCodeAt(0) << 16) | (s.charCodeAt(1) << 8) | s.charCodeAt(2);
  wrong.reset(Uint32Array.from([key('aaa'), key('con'), key('qqq'), key('zeb')].sort((a, b) => a - b)), 4, 50);
  assert.deepEqual(encodeAll([runs[7] as Buffer[]], wrong)[0], plain[7]);
  // One DenseKeys per thread: the newer one took the module's memory over.
  assert.throws(() => dense.reset(new Uint32Array(0), 0, 64), /superseded/);
});

test('index build: the WebAssembly trigram loop finds each folded trigram once, first-seen order', () => {
  let x = 99;
  const rnd = (m: number) => {
    x = (x * 1103515245 + 12345) >>> 0;
    return (x >>> 8) % m;
  };
  const fold = (b: number) => (b >= 65 && b <= 90 ? b + 32 : b);
  const lengths = [0, 1, 2, 3, 4, 5, 17, 1000, 70_000, 1 << 20, (1 << 20) + 1];
  const out = new Uint32Array((1 << 20) + 8);
  for (const n of lengths) {
    // Bytes of every kind: upper and lower ASCII, high bytes, a small alphabet so keys repeat.
    const bytes = Buffer.alloc(n);
    for (let i = 0; i < n; i++) bytes[i] = rnd(3) === 0 ? 0x41 + rnd(6) : rnd(2) === 0 ? 0x61 + rnd(6) : 0xc0 + rnd(4);
    const want: number[] = [];
    const seen = new Set<number>();
    for (let i = 0; i + 2 < n; i++) {
      const k = (fold(bytes[i] as number) << 16) | (fold(bytes[i + 1] as number) << 8) | fold(bytes[i + 2] as number);
      if (!seen.has(k)) want.push(k);
      seen.add(k);
    }
    const end = trigramsInto(bytes, out, 3);
    assert.deepEqual([...out.subarray(3, end)], want, `length ${n}`);
    // The bitset was left clear: the same bytes give the same keys again.
    assert.equal(trigramsInto(bytes, out, 0), end - 3, `again, length ${n}`);
  }
});
