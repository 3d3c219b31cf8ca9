/**
 * The directory watches themselves (watch.ts), on real directories: every watch shares one listener
 * that finds its directory through the watcher, so each test checks that events still name the right
 * directory, that a removed directory's watch is known dead and that update() keeps live watches.
 */
import assert from 'node:assert/strict';
import { closeSync, mkdirSync, openSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { watchDirs } from '../../../lib/search/index/watch.ts';
import { tempDir, writeTree } from '../../helpers/temp.ts';
import { waitFor } from '../../helpers/wait.ts';

type Seen = [rel: string, named: boolean, lost: boolean | undefined];

function watched(root: string, dirs: string[]) {
  const seen: Seen[] = [];
  const w = watchDirs(root, dirs, (rel, named, lost) => void seen.push([rel, named, lost]));
  assert.ok(w, 'watching');
  return { w, seen };
}

test('watch: an event names the entry under its own directory, for the root and nested ones', async (t) => {
  const root = tempDir();
  writeTree(root, { 'a.txt': 'a', 'sub/b.txt': 'b', 'sub/deep/c.txt': 'c' });
  const { w, seen } = watched(root, ['', 'sub', 'sub/deep']);
  t.after(() => w.close());
  writeFileSync(path.join(root, 'sub/deep/c.txt'), 'changed');
  writeFileSync(path.join(root, 'a.txt'), 'changed');
  writeFileSync(path.join(root, 'sub/new.txt'), 'new');
  const has = (rel: string) => seen.some(([r, named, lost]) => r === rel && named && !lost);
  await waitFor(() => has('sub/deep/c.txt') && has('a.txt') && has('sub/new.txt'), 'the three events');
  assert.ok(
    seen.every(([r]) => ['a.txt', 'sub/deep/c.txt', 'sub/new.txt'].includes(r)),
    JSON.stringify(seen),
  );
});

test('watch: a directory removed and made again is lost, replaced, and watched anew by update()', async (t) => {
  const root = tempDir();
  writeTree(root, { 'keep/a.txt': 'a', 'gone/b.txt': 'b' });
  const { w, seen } = watched(root, ['', 'keep', 'gone']);
  t.after(() => w.close());
  const keptSince = w.watchedSince('keep');
  assert.equal(typeof keptSince, 'number');
  assert.equal(w.replaced('gone'), false);
  renameSync(path.join(root, 'gone'), path.join(root, 'moved'));
  rmSync(path.join(root, 'moved'), { recursive: true });
  mkdirSync(path.join(root, 'gone'));
  await waitFor(() => seen.some(([r, , lost]) => r === 'gone' && lost === true), 'the lost watch');
  assert.equal(w.watchedSince('gone'), undefined, 'a dead watch covers nothing');
  assert.equal(w.replaced('gone'), true);
  assert.equal(w.replaced('keep'), false);
  assert.equal(w.update(['', 'keep', 'gone']), true);
  assert.equal(w.watchedSince('keep'), keptSince, 'a live watch is kept, not reopened');
  assert.equal(w.replaced('gone'), false, 'watched again');
  writeFileSync(path.join(root, 'gone/c.txt'), 'c');
  await waitFor(() => seen.some(([r, named]) => r === 'gone/c.txt' && named), 'the new watch sees a new file');
});

test('watch: update() drops the watches of directories no longer asked for', async (t) => {
  const root = tempDir();
  writeTree(root, { 'x/a.txt': 'a', 'y/b.txt': 'b' });
  const { w, seen } = watched(root, ['x', 'y']);
  t.after(() => w.close());
  assert.equal(w.update(['y']), true);
  assert.equal(w.watchedSince('x'), undefined);
  writeFileSync(path.join(root, 'x/a.txt'), 'changed');
  writeFileSync(path.join(root, 'y/b.txt'), 'changed');
  await waitFor(() => seen.some(([r]) => r === 'y/b.txt'), 'the event of the watch kept');
  // Events of one inotify read come together: x's would have arrived with or before y's.
  assert.deepEqual(
    seen.filter(([r]) => r.startsWith('x')),
    [],
  );
});

test('watch: a directory above moved away and made anew: update() watches the new ones below it too', async (t) => {
  const root = tempDir();
  writeTree(root, { 'p/d/a.txt': 'a', 'other/b.txt': 'b' });
  const { w, seen } = watched(root, ['', 'p', 'p/d', 'other']);
  t.after(() => w.close());
  const otherSince = w.watchedSince('other');
  // p/d's own watch stays alive: it follows the moved directory (q/d), and no event names p/d.
  renameSync(path.join(root, 'p'), path.join(root, 'q'));
  mkdirSync(path.join(root, 'p/d'), { recursive: true });
  await waitFor(() => seen.some(([r, , lost]) => r === 'p' && lost === true), 'the lost watch of p');
  assert.notEqual(w.watchedSince('p/d'), undefined, 'the watch below is not dead');
  assert.equal(w.update(['', 'p', 'p/d', 'other']), true);
  assert.equal(w.watchedSince('other'), otherSince, 'a watch beside the dead one is kept');
  writeFileSync(path.join(root, 'q/d/old.txt'), 'old');
  writeFileSync(path.join(root, 'p/d/new.txt'), 'new');
  await waitFor(() => seen.some(([r, named]) => r === 'p/d/new.txt' && named), 'the new p/d watched');
  // The moved tree's event would come with or before the new one's: it is no longer watched.
  assert.deepEqual(
    seen.filter(([r]) => r.endsWith('old.txt')),
    [],
  );
});

test('watch: a directory removed and made anew while held open: update() watches the new one', async (t) => {
  const root = tempDir();
  writeTree(root, { 'p/q/a.txt': 'a' });
  const { w, seen } = watched(root, ['', 'p', 'p/q']);
  t.after(() => w.close());
  // Held (a shell's working directory): the kernel reports the old one's own removal only on release.
  const fd = openSync(path.join(root, 'p/q'), 'r');
  t.after(() => closeSync(fd));
  rmSync(path.join(root, 'p/q'), { recursive: true });
  mkdirSync(path.join(root, 'p/q'));
  await waitFor(() => seen.filter(([r, named]) => r === 'p/q' && named).length >= 2, 'the parent naming it twice');
  assert.equal(w.update(['', 'p', 'p/q']), true);
  assert.equal(w.replaced('p/q'), false, 'watched again');
  writeFileSync(path.join(root, 'p/q/new.txt'), 'new');
  await waitFor(() => seen.some(([r, named]) => r === 'p/q/new.txt' && named), 'the new watch sees a new file', {
    limitMs: 10_000,
  });
});

test('watch: a directory asked for that is gone is reported lost alone; the others stay watched and it is watched once back', async (t) => {
  const root = tempDir();
  writeTree(root, { 'kept/a.txt': 'a', 'other/b.txt': 'b' });
  const { w, seen } = watched(root, ['', 'kept']);
  t.after(() => w.close());
  const keptSince = w.watchedSince('kept');
  // 'gone' was walked by a build and removed before its watch opened.
  assert.equal(w.update(['', 'kept', 'gone', 'other']), true, 'one missing directory does not end all watching');
  assert.deepEqual(
    seen.filter(([, , lost]) => lost),
    [['gone', false, true]],
  );
  assert.equal(w.watchedSince('kept'), keptSince, 'the live watches are kept');
  assert.equal(typeof w.watchedSince('other'), 'number', 'the directories after it are watched');
  assert.equal(w.watchedSince('gone'), undefined);
  assert.equal(w.replaced('gone'), true, 'taken for replaced until watched');
  writeFileSync(path.join(root, 'other/b.txt'), 'changed');
  await waitFor(() => seen.some(([r, named]) => r === 'other/b.txt' && named), 'an event of a watch opened after it');
  mkdirSync(path.join(root, 'gone'));
  await waitFor(() => seen.some(([r, named]) => r === 'gone' && named), "its parent's watch names it");
  assert.equal(w.update(['', 'kept', 'gone', 'other']), true);
  assert.equal(w.replaced('gone'), false, 'watched now');
  writeFileSync(path.join(root, 'gone/c.txt'), 'c');
  await waitFor(() => seen.some(([r, named]) => r === 'gone/c.txt' && named), 'its own watch sees a new file');
});

test('watch: watching a tree with a directory already gone still watches the rest', async (t) => {
  const root = tempDir();
  writeTree(root, { 'x/a.txt': 'a' });
  const { w, seen } = watched(root, ['', 'missing', 'x']);
  t.after(() => w.close());
  assert.deepEqual(
    seen.filter(([, , lost]) => lost),
    [['missing', false, true]],
  );
  writeFileSync(path.join(root, 'x/a.txt'), 'changed');
  await waitFor(() => seen.some(([r, named]) => r === 'x/a.txt' && named), 'the watch of x');
});
