/**
 * The index file as a serving runtime reads it: key tables in memory, postings read at their offsets
 * through the descriptor opened at load — so an index replaced on disk by a rebuild's rename still
 * answers from its own file, and a closed one refuses rather than reading another file's bytes.
 * Also the shared file table the shards look paths up in.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { trigramsOf } from '../../../lib/search/index/ngrams.ts';
import { candidates, planQuery } from '../../../lib/search/index/plan.ts';
import { encodeSegment, PairBuffer } from '../../../lib/search/index/segment.ts';
import { readIndex, writeIndex } from '../../../lib/search/index/store.ts';
import { readTable, shareTable } from '../../../lib/search/index/table.ts';

/** Writes an index of `texts` (one file each, rels f0, f1, …) in segments of `per` files. */
function write(file: string, texts: string[], per: number): void {
  const segments: Uint8Array[] = [];
  const meta: { files: number; byteLength: number }[] = [];
  for (let s = 0; s < texts.length; s += per) {
    const pairs = new PairBuffer(16);
    const chunk = texts.slice(s, s + per);
    for (const [f, t] of chunk.entries()) pairs.addFile(Buffer.from(t), f);
    const bytes = encodeSegment(pairs, chunk.length);
    segments.push(bytes);
    meta.push({ files: chunk.length, byteLength: bytes.length });
  }
  const rels = texts.map((_, f) => `f${f}`);
  const sigs = new Float64Array(rels.length * 4).map((_, i) => i);
  const table = shareTable(rels, sigs);
  const header = { root: '/r', builtAt: 1, dirs: [], ignoreFiles: [], tableBytes: table.byteLength };
  writeIndex(file, { ...header, segments: meta, bytes: 0 }, table, segments);
}

const find = (idx: NonNullable<ReturnType<typeof readIndex>>, literal: string) => {
  const plan = planQuery({ literals: [[literal]], caseInsensitive: false });
  assert.ok(plan);
  return candidates(plan, idx.parts, idx.rels.length);
};

test('index store: postings are read from the loaded file, even after a rebuild renamed another over it', (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'mewcode-index-store-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'x.idx');
  const texts = Array.from({ length: 300 }, (_, f) => `${f % 7 === 0 ? 'needle ' : ''}hay ${f % 2 ? 'com' : ''}`);
  write(file, texts, 64);
  const first = readIndex(file, '/r');
  assert.ok(first);
  const want = texts.flatMap((s, f) => (s.includes('needle') ? [f] : []));
  assert.deepEqual(find(first, 'needle'), want);
  assert.deepEqual(first.rels.sigs.subarray(0, 8), Float64Array.from([0, 1, 2, 3, 4, 5, 6, 7]));
  assert.deepEqual(
    Array.from({ length: 3 }, (_, f) => first.rels.relOf(f)),
    ['f0', 'f1', 'f2'],
  );
  // A rebuild writes a different index and renames it over the same path.
  write(
    file,
    texts.map((s) => s.replace('needle', 'thread')),
    50,
  );
  assert.deepEqual(find(first, 'needle'), want, 'the loaded index answers from its own file');
  const second = readIndex(file, '/r');
  assert.ok(second);
  assert.deepEqual(find(second, 'needle'), []);
  assert.deepEqual(find(second, 'thread'), want);
  first.close();
  assert.throws(() => find(first, 'needle'), /closed/);
  second.close();
  assert.equal(readIndex(path.join(dir, 'none.idx'), '/r'), undefined);
  assert.equal(readIndex(file, '/elsewhere'), undefined, 'an index of another root is not read');
});

test('index store: the shared file table finds every path, and only those', () => {
  const rels = ['b/c.ts', 'a.ts', 'z', 'é/x', 'a/b', 'A', 'a', 'a b', 'a.ts.bak'];
  const sigs = Float64Array.from({ length: rels.length * 4 }, (_, i) => i * 10);
  const table = readTable(shareTable(rels, sigs));
  rels.forEach((r, i) => {
    assert.equal(table.idOf(r), i, r);
    assert.equal(table.sigs[4 * i + 3], (4 * i + 3) * 10);
  });
  for (const r of ['', 'b', 'a.t', 'a.tsx', 'é', 'e/x', 'zz']) assert.equal(table.idOf(r), -1, r);
  assert.equal(readTable(shareTable([], new Float64Array(0))).idOf('a'), -1);
  // Byte order, not UTF-16 order: U+E000 sorts before an astral character in UTF-8, after it in UTF-16.
  const wide = ['\u{1F600}/y', 'a', '\uE000x', '\uFFFD', 'é', '\u{10000}'];
  const wideTable = readTable(shareTable(wide, new Float64Array(wide.length * 4)));
  for (const [i, r] of wide.entries()) assert.equal(wideTable.idOf(r), i, r);
  assert.equal(wideTable.idOf('\uE000'), -1);
  assert.deepEqual(trigramsOf(Buffer.from('ab')), []);
});

test('index build: a file larger than the read buffer is read in pieces; a literal across a piece boundary is found', async (t) => {
  const { buildIndex, inlineIndexRunner } = await import('../../../lib/search/index/build.ts');
  const root = mkdtempSync(path.join(tmpdir(), 'mewcode-index-big-'));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  const mib = 1 << 20;
  // 'NeedleX' straddles the first 1 MiB piece's end; 'tailword' ends the file; one small file beside.
  const big = Buffer.alloc(3 * mib + 123, 'ab ');
  big.write('NeedleX', mib - 3, 'latin1');
  big.write('tailword', big.length - 8, 'latin1');
  writeFileSync(path.join(root, 'big.txt'), big);
  writeFileSync(path.join(root, 'small.txt'), 'needlex and more\n');
  // A UTF-16 file larger than the buffer is not indexed (so always searched).
  writeFileSync(path.join(root, 'wide.txt'), Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.alloc(2 * mib, 'a\0')]));
  const file = path.join(root, '..', `${path.basename(root)}.idx`);
  t.after(() => rmSync(file, { force: true }));
  const built = await buildIndex({ root, file, runner: inlineIndexRunner, racyMs: 0 });
  assert.ok(built.ok);
  const idx = built.value;
  t.after(() => idx.close());
  assert.deepEqual(idx.rels.under('').map(idx.rels.relOf), ['big.txt', 'small.txt']);
  const relsOf = (lit: string) => find(idx, lit).map(idx.rels.relOf);
  assert.deepEqual(relsOf('NeedleX'), ['big.txt', 'small.txt'], 'folded: both');
  assert.deepEqual(relsOf('tailword'), ['big.txt']);
  assert.deepEqual(relsOf('zzz'), []);
  assert.equal(idx.bytes, big.length + 17);
});
