/**
 * Directories replaced under their names while something holds the old one open (a shell's working
 * directory, an editor's open descriptor): the kernel then reports the old directory's own deletion
 * (its watch's self-event) only once the last holder lets go, so a rebuild must not take "no dead
 * watch" for "no directory replaced". The parent's watch reports the entry at once, and the rebuild
 * must watch the new directory. Real directories, real watches, real rebuilds; no clock raced.
 */
import assert from 'node:assert/strict';
import { closeSync, mkdirSync, openSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { RACY_MS } from '../../../lib/search/dircache.ts';
import type { SearchIndex } from '../../../lib/search/index/service.ts';
import { waitFor } from '../../helpers/wait.ts';
import { agedTree, diverging, rgFiles, trio } from './attack_helpers.ts';

/** Holds `dir` open until the test ends, as a shell whose working directory it is would. */
function hold(t: { after: (fn: () => void) => void }, dir: string): void {
  const fd = openSync(dir, 'r');
  t.after(() => closeSync(fd));
}

/** Waits until every file written before now is older than the racy window (so a build indexes it). */
async function aged(): Promise<void> {
  const written = Date.now();
  await waitFor(() => Date.now() - written > RACY_MS + 100, 'the new files to leave the racy window', {
    everyMs: 100,
  });
}

const replacements: [string, string, (root: string) => void][] = [
  [
    'removed (rm -r) and made anew',
    'p/q',
    (root) => {
      rmSync(path.join(root, 'p/q'), { recursive: true });
      mkdirSync(path.join(root, 'p/q'));
    },
  ],
  [
    'replaced by a renamed empty directory over it',
    'p/q',
    (root) => {
      rmSync(path.join(root, 'p/q'), { recursive: true });
      mkdirSync(path.join(root, 'p/q'));
      mkdirSync(path.join(root, 'p/other'));
      renameSync(path.join(root, 'p/other'), path.join(root, 'p/q'));
    },
  ],
  [
    'its parent removed (rm -r) and both made anew',
    'p/q',
    (root) => {
      rmSync(path.join(root, 'p'), { recursive: true });
      mkdirSync(path.join(root, 'p/q'), { recursive: true });
    },
  ],
  [
    'at the top, removed and made anew',
    'p',
    (root) => {
      rmSync(path.join(root, 'p'), { recursive: true });
      mkdirSync(path.join(root, 'p/q'), { recursive: true });
    },
  ],
];

for (const [how, held, replace] of replacements)
  test(`replaced while held open: a directory ${how} (${held} held), then a rebuild`, async (t) => {
    const root = await agedTree({ 'a.txt': 'needle here\n', 'p/q/x.txt': 'plain words\n', 'p/x.txt': 'plain\n' });
    const three = await trio(root);
    const index = three.warm.searchIndex as SearchIndex;
    hold(t, path.join(root, held));
    replace(root);
    writeFileSync(path.join(root, 'p/q/x.txt'), 'plain words\n');
    writeFileSync(path.join(root, 'p/x.txt'), 'plain\n');
    await aged();
    // The parent's watch saw the entries go and come; the rebuild indexes the new files.
    assert.ok((await index.build()).ok, 'rebuilt');
    assert.ok((index.loaded?.rels.idOf(`${held}/x.txt`) ?? -1) >= 0, 'the new file is indexed');
    // Then, in the new directory: an indexed file changed, a file made.
    writeFileSync(path.join(root, held, 'x.txt'), 'needle now, in the new directory\n');
    writeFileSync(path.join(root, held, 'new.txt'), 'needle new\n');
    const want = ['a.txt', `${held}/new.txt`, `${held}/x.txt`].sort();
    assert.deepEqual(rgFiles(root, ['needle']), want, 'ripgrep finds the new needles');
    // The kernel queued the writes' events before the search began, which lets them in first.
    assert.deepEqual((await diverging(three, { pattern: 'needle' })).diffs, []);
  });
