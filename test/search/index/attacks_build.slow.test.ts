/**
 * Changes made while an index build runs, after it read the files or listed the directories they
 * touch: the first check when the index comes into use (sweep.ts) and the events a rebuild's live
 * watches saw meanwhile must between them catch every one. The change runs when a real build piece
 * has come back from a real worker — no clock is raced: its files were read, its directories listed.
 */
import assert from 'node:assert/strict';
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import type { IndexShardResult } from '../../../lib/search/index/build_shard.ts';
import type { SearchIndex } from '../../../lib/search/index/service.ts';
import { drainEvents } from '../../../lib/search/index/watch.ts';
import { runtimeAt } from '../../helpers/runtime.ts';
import { tempDir } from '../../helpers/temp.ts';
import { waitFor } from '../../helpers/wait.ts';
import { agedTree, diverging, prime, rgFiles, type Trio, trio } from './attack_helpers.ts';

/**
 * Builds `index` once, running `change` (awaited) when the first piece for which `met` holds has come
 * back, before the build ends. Fails if no piece met it (the change would then test nothing).
 */
async function buildWith(
  index: SearchIndex,
  met: (piece: IndexShardResult) => boolean,
  change: () => unknown,
): Promise<void> {
  const real = index.o.runner;
  let fired = false;
  index.o.runner = {
    parallelism: real.parallelism,
    states: real.states,
    run: async (task) => {
      const r = await real.run(task);
      if (!fired && r.ok && met(r.value)) {
        fired = true;
        await change();
      }
      return r;
    },
  };
  try {
    assert.ok((await index.build()).ok, 'built');
  } finally {
    index.o.runner = real;
  }
  assert.ok(fired, 'a build piece met what the change touches');
}

/** Twenty directories, more than the planner expands on the main thread: workers list them. */
const spread = (files: Record<string, string>) => {
  const tree: Record<string, string> = { ...files, 'a.txt': 'needle here\n' };
  for (let i = 0; i < 20; i++) tree[`d${String(i).padStart(2, '0')}/f.txt`] = `hay ${i}\n`;
  return tree;
};

/** A warm runtime on `root`, its index built by `build`; then the one-shot and plain ones beside it. */
async function builtBy(root: string, build: (index: SearchIndex) => Promise<void>): Promise<Trio> {
  const cache = tempDir('mewcode-attack-cache-');
  const warm = runtimeAt(root, { workers: 2, index: 'build', indexCacheDir: cache });
  await build(warm.searchIndex as SearchIndex);
  const cold = runtimeAt(root, { workers: 2, index: 'existing', indexCacheDir: cache });
  return { root, cache, warm, cold, plain: runtimeAt(root, { workers: 2, index: 'off' }) };
}

/** After the build, two searches learn a walk; then a file made in `dir` must be found. */
async function newFileFound(t: Trio, dir: string): Promise<void> {
  await prime(t, 'needle');
  writeFileSync(path.join(t.root, dir, 'new.txt'), 'needle in a directory the build never entered\n');
  assert.ok(rgFiles(t.root, ['needle']).includes(`${dir}/new.txt`), 'ripgrep finds the new file');
  assert.deepEqual((await diverging(t, { pattern: 'needle' })).diffs, []);
}

test('during a build: an ignore file a worker read, edited in place (no directory changes)', async () => {
  const root = await agedTree(spread({ 'd07/.gitignore': 'ign/\n' }), (r) => mkdirSync(path.join(r, 'd07/ign')));
  const t = await builtBy(root, (index) =>
    buildWith(
      index,
      (p) => p.dirs.includes('d07'),
      () => writeFileSync(path.join(root, 'd07/.gitignore'), '# nothing ignored\n'),
    ),
  );
  await newFileFound(t, 'd07/ign');
});

test('during a first build: a file rewritten in place, same size, after it was read', async () => {
  // Its indexed state is the one taken before reading: the rewrite's ctime differs from it.
  const root = await agedTree(spread({ 'd04/x.txt': 'plain words\n' }));
  const t = await builtBy(root, (index) =>
    buildWith(
      index,
      (p) => p.rels.includes('d04/x.txt'),
      () => writeFileSync(path.join(root, 'd04/x.txt'), 'needle word\n'),
    ),
  );
  assert.deepEqual(rgFiles(root, ['needle']), ['a.txt', 'd04/x.txt']);
  assert.deepEqual((await diverging(t, { pattern: 'needle' })).diffs, []);
});

test('during a build: an ignore file made in a listed directory, un-ignoring a directory in it', async () => {
  const root = await agedTree(spread({ '.gitignore': 'ign/\n' }), (r) => mkdirSync(path.join(r, 'd07/ign')));
  const t = await builtBy(root, (index) =>
    buildWith(
      index,
      (p) => p.dirs.includes('d07'),
      () => writeFileSync(path.join(root, 'd07/.gitignore'), '!ign/\n'),
    ),
  );
  await newFileFound(t, 'd07/ign');
});

test('during a rebuild: a file changed after it was read, its event seen before the build ends', async () => {
  const root = await agedTree(spread({ 'd03/x.txt': 'plain words\n' }));
  const t = await trio(root);
  const index = t.warm.searchIndex as SearchIndex;
  await buildWith(
    index,
    (p) => p.rels.includes('d03/x.txt'),
    async () => {
      writeFileSync(path.join(root, 'd03/x.txt'), 'needle now\n');
      // The event reaches the index being replaced, during the build: the new one must learn it too.
      await waitFor(() => index.changedCount > 0, 'the watch event');
    },
  );
  assert.deepEqual((await diverging(t, { pattern: 'needle' })).diffs, []);
});

test('during a rebuild: a directory replaced under its name after its files were read', async () => {
  const root = await agedTree(spread({ 'd05/x.txt': 'plain words\n' }));
  const t = await trio(root);
  const index = t.warm.searchIndex as SearchIndex;
  await buildWith(
    index,
    (p) => p.rels.includes('d05/x.txt'),
    async () => {
      renameSync(path.join(root, 'd05'), path.join(root, 'd05_old'));
      mkdirSync(path.join(root, 'd05'));
      writeFileSync(path.join(root, 'd05/x.txt'), 'needle words\n');
      await waitFor(() => index.changedCount > 0, 'the watch events');
    },
  );
  assert.deepEqual((await diverging(t, { pattern: 'needle' })).diffs, []);
  await newFileFound(t, 'd05');
});

test('during a rebuild: a directory made in a watched one after it was listed', async () => {
  const root = await agedTree(spread({}));
  const t = await trio(root);
  const index = t.warm.searchIndex as SearchIndex;
  await buildWith(
    index,
    (p) => p.dirs.includes('d09'),
    async () => {
      mkdirSync(path.join(root, 'd09/late'));
      await drainEvents(); // queued by the kernel at the mkdir: delivered now, during the build
    },
  );
  await newFileFound(t, 'd09/late');
});
