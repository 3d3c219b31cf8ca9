/**
 * The binary file table (table.ts) as the index file holds it and every thread reads it: paths come
 * back exactly as written, a directory's files are found as one run, a damaged table is refused, and
 * an index file of the previous format (its file list in the JSON header) is rebuilt, never misread.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { inlineIndexRunner } from '../../../lib/search/index/build.ts';
import { encodeSegment, PairBuffer } from '../../../lib/search/index/segment.ts';
import { SearchIndex } from '../../../lib/search/index/service.ts';
import { readIndex, writeIndex } from '../../../lib/search/index/store.ts';
import { checkTable, readTable, shareTable } from '../../../lib/search/index/table.ts';
import { tempDir, writeTree } from '../../helpers/temp.ts';
import { keysSwapped } from './index_bytes.ts';

const LONG = `${'d'.repeat(200)}/${'é'.repeat(1500)}/${'\u{1F600}'.repeat(1000)}.txt`;
const RELS = ['b/c.ts', 'a.ts', 'é/x', 'a/b', '日本/語.md', '\u{1F600}/y', '\uE000x', '\uFFFD', 'a', LONG, 'a/b c/d'];

/** Writes an index of RELS (one segment, no text) under root '/r'. */
function writeRels(file: string, rels: readonly string[]): void {
  const sigs = Float64Array.from({ length: rels.length * 4 }, (_, i) => i + 0.5);
  const table = shareTable(rels, sigs);
  const segment = encodeSegment(new PairBuffer(16), rels.length);
  const header = { root: '/r', builtAt: 1, dirs: [], ignoreFiles: [], tableBytes: table.byteLength };
  writeIndex(file, { ...header, segments: [{ files: rels.length, byteLength: segment.length }], bytes: 0 }, table, [
    segment,
  ]);
}

test('file table: paths read back from the index file are the ones written, non-ASCII, astral and long ones too', () => {
  const file = path.join(tempDir(), 'x.idx');
  writeRels(file, RELS);
  const idx = readIndex(file, '/r');
  assert.ok(idx);
  try {
    assert.equal(idx.rels.length, RELS.length);
    for (const [i, r] of RELS.entries()) {
      assert.equal(idx.rels.relOf(i), r);
      assert.equal(idx.rels.idOf(r), i);
      assert.equal(idx.rels.sigs[4 * i + 2], 4 * i + 2.5);
    }
    assert.equal(idx.rels.idOf(LONG.slice(0, -1)), -1);
    assert.equal(idx.table.byteLength, idx.tableBytes);
  } finally {
    idx.close();
  }
});

test('file table: the files under a directory are exactly those whose path starts with it, in table order', () => {
  const t = readTable(shareTable(RELS, new Float64Array(RELS.length * 4)));
  const under = (p: string) => t.under(p).map(t.relOf);
  assert.deepEqual(under('a/'), ['a/b', 'a/b c/d']);
  assert.deepEqual(under('a/b c/'), ['a/b c/d']);
  assert.deepEqual(under('é/'), ['é/x']);
  assert.deepEqual(under('\u{1F600}/'), ['\u{1F600}/y']);
  assert.deepEqual(under(`${'d'.repeat(200)}/`), [LONG]);
  assert.deepEqual(under('zz/'), []);
  // Table order: by directory, then base name, each in byte order — U+E000 (EE 80 80) before U+FFFD
  // (EF BF BD) before an astral character (F0 …). Short names: a failure prints them all.
  const short = RELS.filter((r) => r !== LONG);
  const bytes = (r: string) => Buffer.from(r);
  const byDirThenBase = (a: string, b: string) =>
    Buffer.compare(
      bytes(a.slice(0, Math.max(0, a.lastIndexOf('/')))),
      bytes(b.slice(0, Math.max(0, b.lastIndexOf('/')))),
    ) || Buffer.compare(bytes(a.slice(a.lastIndexOf('/') + 1)), bytes(b.slice(b.lastIndexOf('/') + 1)));
  const t2 = readTable(shareTable(short, new Float64Array(short.length * 4)));
  assert.deepEqual(t2.under('').map(t2.relOf), [...short].sort(byDirThenBase));
  assert.deepEqual(t2.under('').map(t2.relOf).slice(0, 4), ['a', 'a.ts', '\uE000x', '\uFFFD']);
  assert.deepEqual(readTable(shareTable([], new Float64Array(0))).under(''), []);
});

test('file table: a directory met out of name order, or across pieces, comes out sorted; dirs() names each once', () => {
  // A walk meets a directory's files in name order, so that order is only checked; these are not.
  const rels = ['z/b', 'y', 'z/a', 'x/q/2', 'x/q/1', 'z/c', 'b', 'x/q/3', 'a'];
  const sab = shareTable(
    rels,
    Float64Array.from({ length: rels.length * 4 }, (_, i) => i),
  );
  assert.equal(checkTable(sab), true);
  const t = readTable(sab);
  assert.deepEqual(t.under('').map(t.relOf), ['a', 'b', 'y', 'x/q/1', 'x/q/2', 'x/q/3', 'z/a', 'z/b', 'z/c']);
  for (const [i, r] of rels.entries()) assert.equal(t.idOf(r), i);
  assert.equal(t.sigs[4 * rels.indexOf('z/a')], 4 * 2);
  assert.deepEqual(t.dirs(), ['', 'x/q', 'z']);
  assert.deepEqual(readTable(shareTable(RELS, new Float64Array(RELS.length * 4))).dirs().length, 8);
});

test('file table: a damaged table is refused', () => {
  const good = shareTable(['a', 'b/c', 'b/d'], new Float64Array(12));
  assert.equal(good.byteLength, 172);
  assert.equal(checkTable(good), true);
  /** The table with one i32 (by index) or one byte of the names (from byte 168: 'b', 'a', 'c', 'd') changed. */
  const spoilt = (int: number | undefined, value: number, byte?: number) => {
    const copy = new SharedArrayBuffer(good.byteLength);
    new Uint8Array(copy).set(new Uint8Array(good));
    if (int !== undefined) new Int32Array(copy, 0, 42)[int] = value;
    if (byte !== undefined) new Uint8Array(copy)[168 + byte] = value;
    return checkTable(copy);
  };
  // i32s after n, m and 12 signatures: numbers 26-28, places 29-31, firsts 32-34, dirAt 35-37, baseAt 38-41.
  assert.equal(spoilt(undefined, 0), true, 'the copy itself');
  const cases: [string, number | undefined, number, number?][] = [
    ['the count', 0, 4],
    ['the directory count', 1, 3],
    ['a number out of range', 26, 7],
    ['numbers not a permutation', 26, 1],
    ['a directory without files', 33, 3],
    ['a base name offset out of order', 40, 1],
    ['a directory name offset past the base names', 36, 3],
    ['base names out of order', undefined, 0x62, 3], // 'b/d' -> 'b/b', below 'b/c'
    ['a slash in a base name', undefined, 0x2f, 1],
    ['not UTF-8', undefined, 0xff, 2],
  ];
  for (const [what, int, value, byte] of cases) assert.equal(spoilt(int, value, byte), false, what);
});

/** The previous format: magic MCIDX01, the file list in the JSON header, the signatures after it. */
function writeFormat01(file: string, root: string, rels: string[]): void {
  const segment = encodeSegment(new PairBuffer(16), rels.length);
  const json = Buffer.from(
    JSON.stringify({
      root,
      builtAt: 1,
      rels,
      segments: [{ files: rels.length, byteLength: segment.length }],
      bytes: 0,
    }),
  );
  const head = Buffer.alloc((8 + 4 + json.length + 7) & ~7);
  head.write('MCIDX01\n', 0, 'latin1');
  head.writeUInt32LE(json.length, 8);
  json.copy(head, 12);
  writeFileSync(file, Buffer.concat([head, Buffer.alloc(rels.length * 32), segment]));
}

/** A warm index of `root` (twenty files, one holding the needle: few enough to be served). */
function warmIndex(t: { after(fn: () => void): void }, cacheDir: string) {
  const root = tempDir();
  const plain = Object.fromEntries(Array.from({ length: 19 }, (_, i) => [`p${i}.txt`, 'plain\n']));
  writeTree(root, { 'a.txt': 'needle here\n', ...plain });
  const runner = inlineIndexRunner;
  // racyMs 0: the files were just written, index them anyway.
  const si = new SearchIndex({ root, use: 'build', watch: true, runner, cacheDir, minFiles: 1, racyMs: 0 });
  t.after(() => si.close());
  const walk = { useIgnore: true, hidden: false };
  const q = { dir: root, pattern: 'needle', ignoreCase: false, fixedStrings: false, walk };
  return { root, si, q, rels: ['a.txt', ...Object.keys(plain)] };
}

async function assertRebuilt(si: SearchIndex, q: Parameters<SearchIndex['prefilter']>[0]): Promise<void> {
  si.noteSearch(q.dir, 20);
  await si.settled();
  assert.equal(readFileSync(si.file).subarray(0, 8).toString('latin1'), 'MCIDX02\n');
  const served = await si.prefilter(q);
  assert.equal(served.index, 'served');
  assert.deepEqual(served.prefilter?.candidates, ['a.txt']);
}

test('file table: an index file of the previous format is not read, and a warm runtime rebuilds it', async (t) => {
  const { root, si, q, rels } = warmIndex(t, tempDir());
  writeFormat01(si.file, root, rels);
  assert.equal(readIndex(si.file, root), undefined);
  // Its first search has no literal to look up: the index is not loaded, its version is what tells.
  si.noteSearch(root, 20);
  await si.settled();
  assert.equal(readFileSync(si.file).subarray(0, 8).toString('latin1'), 'MCIDX02\n');
  assert.equal((await si.prefilter(q)).index, 'served');
});

// The header cut short is refused at load; a key table out of order (every size and offset fine) is
// found when a search first reads the key tables, and the index is dropped then as at a failed load.
for (const [what, spoil, loads] of [
  ['that fails to load', (b: Buffer) => b.subarray(0, 100), false],
  ['whose key table is found damaged after it loaded', keysSwapped, true],
] as const)
  test(`file table: an index file of this version ${what} is rebuilt too`, async (t) => {
    const { root, si, q } = warmIndex(t, tempDir());
    assert.ok((await si.build()).ok);
    si.close();
    const again = new SearchIndex({ ...si.o });
    t.after(() => again.close());
    writeFileSync(again.file, spoil(readFileSync(again.file)));
    const loaded = readIndex(again.file, root);
    loaded?.close();
    assert.equal(loaded !== undefined, loads);
    assert.equal((await again.prefilter(q)).index, 'no index: scanned');
    await assertRebuilt(again, q);
  });
