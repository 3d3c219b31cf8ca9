/**
 * Directories the index build never entered (ignored, hidden, outside the root) that become
 * searchable afterwards, by every route we know: an ignore-file edit (in place, through another hard
 * link), `.git/info/exclude`, a hidden directory renamed to a visible name, a directory moved in from
 * outside. No watch covers such a directory, so a file made in it later raises no event: a warm
 * runtime must not answer from a walk summary that trusts watches there. Each test learns a summary
 * (two searches after the change), then creates the file and compares with a full scan and ripgrep.
 */
import assert from 'node:assert/strict';
import { linkSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import type { SearchIndex } from '../../../lib/search/index/service.ts';
import { MIN_INDEXED_FILES } from '../../../lib/search/index/service.ts';
import { tempDir } from '../../helpers/temp.ts';
import { waitFor } from '../../helpers/wait.ts';
import { agedTree, diverging, prime, rgFiles, trio } from './attack_helpers.ts';

/** After `change`, two searches (the second may be served without a walk), then a new file in `dir`. */
async function newFileAfter(root: string, change: () => void, dir: string): Promise<void> {
  const t = await trio(root);
  await prime(t, 'needle');
  change();
  await prime(t, 'needle');
  writeFileSync(path.join(root, dir, 'new.txt'), 'needle in a directory the build never entered\n');
  assert.ok(rgFiles(root, ['needle']).includes(`${dir}/new.txt`), 'ripgrep finds the new file');
  assert.deepEqual((await diverging(t, { pattern: 'needle' })).diffs, []);
}

test('unwatched: an ignored empty directory un-ignored by a .gitignore edit', async () => {
  const root = await agedTree({ '.gitignore': 'ign/\n', 'a.txt': 'needle here\n' }, (r) =>
    mkdirSync(path.join(r, 'ign')),
  );
  await newFileAfter(root, () => writeFileSync(path.join(root, '.gitignore'), '# nothing ignored\n'), 'ign');
});

test('unwatched: an ignored empty directory un-ignored by deleting its rule from .ignore', async () => {
  const root = await agedTree({ '.ignore': 'ign\n', 'sub/a.txt': 'needle here\n' }, (r) =>
    mkdirSync(path.join(r, 'sub/ign'), { recursive: true }),
  );
  await newFileAfter(root, () => writeFileSync(path.join(root, '.ignore'), ''), 'sub/ign');
});

test('unwatched: an ignored empty directory un-ignored by a .git/info/exclude edit', async () => {
  const root = await agedTree({ '.git/info/exclude': 'ign/\n', 'a.txt': 'needle here\n' }, (r) =>
    mkdirSync(path.join(r, 'ign')),
  );
  await newFileAfter(root, () => writeFileSync(path.join(root, '.git/info/exclude'), '\n'), 'ign');
});

test('unwatched: an ignored empty directory un-ignored through a hard-linked .gitignore', async () => {
  const outside = tempDir('mewcode-attack-outside-');
  const root = await agedTree({ '.gitignore': 'ign/\n', 'a.txt': 'needle here\n' }, (r) => {
    mkdirSync(path.join(r, 'ign'));
    linkSync(path.join(r, '.gitignore'), path.join(outside, 'shared-ignore'));
  });
  await newFileAfter(root, () => writeFileSync(path.join(outside, 'shared-ignore'), '\n'), 'ign');
});

test('unwatched: a hidden empty directory renamed to a visible name', async () => {
  const root = await agedTree({ 'a.txt': 'needle here\n' }, (r) => mkdirSync(path.join(r, '.hid')));
  await newFileAfter(root, () => renameSync(path.join(root, '.hid'), path.join(root, 'hid')), 'hid');
});

test('unwatched: an empty directory tree moved in from outside the root', async () => {
  const outside = tempDir('mewcode-attack-outside-');
  mkdirSync(path.join(outside, 'd/deep'), { recursive: true });
  const root = await agedTree({ 'a.txt': 'needle here\n' });
  await newFileAfter(root, () => renameSync(path.join(outside, 'd'), path.join(root, 'd')), 'd/deep');
});

test('unwatched: a watched directory of no indexed file removed and made again under its name', async () => {
  const root = await agedTree({ 'a.txt': 'needle here\n', 'd/sub/.hidden': 'needle hidden\n' });
  await newFileAfter(
    root,
    () => {
      rmSync(path.join(root, 'd'), { recursive: true });
      mkdirSync(path.join(root, 'd/sub'), { recursive: true });
    },
    'd/sub',
  );
});

test('unwatched: a directory made after the build is watched by a rebuild the next searches start, and walk-less searches come back', async () => {
  // A tree large enough for a warm runtime to rebuild on its own (MIN_INDEXED_FILES).
  const many = Object.fromEntries(
    Array.from({ length: MIN_INDEXED_FILES }, (_, i) => [`bulk/d${i % 40}/f${i}.txt`, `bulk ${i}\n`]),
  );
  const t = await trio(await agedTree({ ...many, 'a.txt': 'needle here\n' }));
  await prime(t, 'needle');
  const how = async () => String((await t.warm.call('grep', { pattern: 'needle' })).meta?.index);
  assert.equal(await how(), 'served without a walk');
  mkdirSync(path.join(t.root, 'made'));
  writeFileSync(path.join(t.root, 'made/x.txt'), 'plain\n');
  const index = t.warm.searchIndex as SearchIndex;
  // Each search may start the rebuild (at most one per ten build times); one comes, and then a
  // search learns the walk again and the next is served without one.
  await waitFor(
    async () => {
      await index.settled();
      return (await how()) === 'served without a walk';
    },
    'a rebuild watching the new directory',
    { everyMs: 50 },
  );
  writeFileSync(path.join(t.root, 'made/new.txt'), 'needle in the new directory\n');
  assert.ok(rgFiles(t.root, ['needle']).includes('made/new.txt'), 'ripgrep finds the new file');
  assert.deepEqual((await diverging(t, { pattern: 'needle' })).diffs, []);
});
