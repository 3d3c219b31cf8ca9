/**
 * The build's spool as the pieces' threads append to it: through descriptions of their own, checked
 * to be the spool by identity, taking their room atomically. Real worker threads appending at once
 * never overlap; a target naming another file (its descriptor number reused) is never written; a
 * piece that cannot append hands its segments back, and the index is the same byte for byte.
 */
import assert from 'node:assert/strict';
import { closeSync, fstatSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { type IndexRunner, inlineIndexRunner } from '../../../lib/search/index/build.ts';
import { type PieceSegment, SegmentSpool, SpoolWriter } from '../../../lib/search/index/spool.ts';
import { tempDir, writeTree } from '../../helpers/temp.ts';
import { runTsWorker } from '../../helpers/ts_worker.ts';
import { assertSameSegments } from './index_bytes.ts';

const appender = new URL('./spool_appender.ts', import.meta.url);

test('spool: two worker threads appending at once take disjoint room, every segment read back intact', async () => {
  const spool = new SegmentSpool(tempDir('mewcode-spool-'));
  try {
    const run = (tag: number) =>
      runTsWorker<PieceSegment[]>(appender, { target: spool.target, tag, count: 300, size: 700 });
    const [a, b] = await Promise.all([run(0), run(128)]);
    spool.add(0, a as PieceSegment[]);
    spool.add(1, b as PieceSegment[]);
    let i = 0;
    for (const bytes of spool.inOrder()) {
      const [tag, k] = i < 300 ? [0, i] : [128, i - 300];
      assert.equal(bytes.length, 700 + k, `segment ${i}'s length`);
      assert.ok(
        bytes.every((x) => x === ((tag + k) & 255)),
        `segment ${i} intact`,
      );
      i++;
    }
    assert.equal(i, 600);
  } finally {
    spool.close();
  }
});

test('spool: a target whose descriptor is now another file is never written', () => {
  const dir = tempDir('mewcode-spool-');
  const spool = new SegmentSpool(dir);
  const other = path.join(dir, 'other.txt');
  writeFileSync(other, 'untouched\n');
  const fd = openSync(other, 'r+');
  try {
    // The spool's identity with another file's descriptor number: as if the number had been reused.
    const writer = SpoolWriter.open({ ...spool.target, fd });
    assert.equal(writer, undefined);
    assert.equal(readFileSync(other, 'utf8'), 'untouched\n');
    // And the spool's own number with another identity: refused too.
    const st = fstatSync(fd);
    assert.equal(SpoolWriter.open({ ...spool.target, dev: st.dev, ino: st.ino }), undefined);
  } finally {
    closeSync(fd);
    spool.close();
  }
});

test('spool: pieces that cannot append hand their segments back, and the index is the same', async () => {
  const root = tempDir('mewcode-spool-tree-');
  const tree: Record<string, string> = {};
  for (let i = 0; i < 400; i++) tree[`d${i % 9}/f${i}.txt`] = `word${i} ${'common text '.repeat(i % 7)}\n`;
  writeTree(root, tree);
  const handing: IndexRunner = {
    ...inlineIndexRunner,
    // A target naming no spool (another inode): the piece cannot append.
    run: (t) => inlineIndexRunner.run({ ...t, ...(t.spool ? { spool: { ...t.spool, ino: t.spool.ino + 1 } } : {}) }),
  };
  await assertSameSegments(root, [
    ['appended', inlineIndexRunner],
    ['handed back', handing],
  ]);
});
