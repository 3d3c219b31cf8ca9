/**
 * The index build's shared encoding scratch (lib/search/index/shared_scratch.ts): taken in turns by
 * real worker threads, never by two at once; a turn that does not come falls back to the thread's own
 * scratch; and segments encoded in the shared scratch are byte for byte those encoded in a thread's
 * own, across pieces of different sizes reusing it.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type IndexRunner, inlineIndexRunner } from '../../../lib/search/index/build.ts';
import { createSharedScratch, withScratchTurn } from '../../../lib/search/index/shared_scratch.ts';
import { tempDir, writeTree } from '../../helpers/temp.ts';
import { runTsWorker } from '../../helpers/ts_worker.ts';
import { assertSameSegments } from './index_bytes.ts';

const turner = new URL('./scratch_turner.ts', import.meta.url);

test('shared scratch: no shared scratch, the thread own; given, views over its memory, the turn free after, also after a throw', () => {
  assert.equal(
    withScratchTurn(undefined, (s) => s),
    undefined,
  );
  const shared = createSharedScratch(1024);
  const turn = new Int32Array(shared.turn);
  withScratchTurn(shared, (s) => {
    assert.ok(s);
    assert.equal(Atomics.load(turn, 0), 1, 'held while the work runs');
    s.keys[3] = 7;
    assert.equal(s.keys.length, 1024);
  });
  assert.equal(new Uint32Array(shared.keys)[3], 7, 'written into the shared memory');
  assert.equal(Atomics.load(turn, 0), 0);
  assert.throws(() =>
    withScratchTurn(shared, () => {
      throw new Error('boom');
    }),
  );
  assert.equal(Atomics.load(turn, 0), 0, 'given back after a throw');
});

test('shared scratch: a turn that never comes (its holder gone) falls back to the thread own scratch, and the rest of the build waits no more', () => {
  const shared = createSharedScratch(64);
  const turn = new Int32Array(shared.turn);
  Atomics.store(turn, 0, 1);
  assert.equal(
    withScratchTurn(shared, (s) => s, 20),
    undefined,
  );
  assert.equal(Atomics.load(turn, 0), 2, 'given up on');
  // Given up on, a turn is not waited for: with a wait of ten minutes this answers at once (the
  // test's own timeout would end it otherwise).
  assert.equal(
    withScratchTurn(shared, (s) => s, 600_000),
    undefined,
  );
  // A holder that was only slow, given up on while it encoded, leaves it given up on.
  const slow = createSharedScratch(64);
  const slowTurn = new Int32Array(slow.turn);
  withScratchTurn(slow, (s) => {
    assert.ok(s);
    Atomics.store(slowTurn, 0, 2); // what a waiter that timed out meanwhile does
  });
  assert.equal(Atomics.load(slowTurn, 0), 2);
});

test('shared scratch: two worker threads taking turns are never inside at once', async () => {
  const shared = createSharedScratch(4096);
  const inside = new SharedArrayBuffer(4);
  const run = (tag: number) =>
    runTsWorker<{ clashes: number; without: number }>(turner, { shared, inside, tag, turns: 3000 });
  const answers = await Promise.all([run(1), run(2)]);
  assert.deepEqual(answers, [
    { clashes: 0, without: 0 },
    { clashes: 0, without: 0 },
  ]);
});

test('shared scratch: pieces encoding in it build the same segments as in their own', async () => {
  const root = tempDir('mewcode-scratch-tree-');
  const tree: Record<string, string> = {};
  // Directories of very different sizes: a small segment reuses scratch a larger one left written.
  // Enough files for several pieces (a piece is a few thousand files at least).
  for (let d = 0; d < 8; d++)
    for (let i = 0; i < 300 + 900 * (d % 3); i++)
      tree[`d${d}/f${i}.txt`] = `word${i * 7 + d} ${'common text '.repeat((i + d) % 9)} tail${i % 13}\n`;
  writeTree(root, tree);
  let sharedPieces = 0;
  // Two lanes, run one after the other: the build makes the shared scratch, each piece takes its turn;
  // or each piece is handed none and encodes in the thread's own. Two lanes both ways: the plan, and
  // so the segments, follow the lanes.
  const sharing: IndexRunner = {
    ...inlineIndexRunner,
    parallelism: 2,
    run: (t) => {
      if (t.scratch) sharedPieces++;
      return inlineIndexRunner.run(t);
    },
  };
  const owning: IndexRunner = {
    ...sharing,
    run: ({ scratch: _, ...t }) => inlineIndexRunner.run(t),
  };
  await assertSameSegments(root, [
    ['own', owning],
    ['shared', sharing],
  ]);
  assert.ok(sharedPieces > 1, `pieces given the shared scratch: ${sharedPieces}`);
});
