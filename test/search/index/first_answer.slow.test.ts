/**
 * The first answer of a warm runtime that loads an index from disk: it answers at once, while its
 * watches open and every indexed file's state is compared in the background (background_check.ts),
 * each search meanwhile checking each file's state itself — and no change is missed, whether made
 * before the runtime loaded the index or while the check runs (held there by the index's own hook
 * between slices, so the change lands where the test says). Once the check ends, searches are served
 * without a walk again; a runtime closed during the check leaves no watch or descriptor behind.
 */
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import type { Runtime } from '../../../lib/runtime/runtime.ts';
import type { CheckProgress } from '../../../lib/search/index/background_check.ts';
import type { SearchIndex } from '../../../lib/search/index/service.ts';
import { runtimeAt } from '../../helpers/runtime.ts';
import { tempDir } from '../../helpers/temp.ts';
import { agedTree, ourFiles, rgFiles } from './attack_helpers.ts';

const CHECKING = 'served, index check running';
const TREE = {
  '.gitignore': 'ign/\n',
  'a.txt': 'needle here\n',
  'b.txt': 'plain words\n',
  'ign/x.txt': 'needle in an ignored directory\n',
};

interface Loading {
  root: string;
  /** A fresh warm runtime that loads the index at its first search. */
  rt: Runtime;
  index: SearchIndex;
  /** A runtime without an index. */
  plain: Runtime;
}

/**
 * An aged tree, its index built by a runtime closed at once — a watch it kept on a directory would be
 * the kernel's same watch as the runtime under test's (one per directory and process), whose events
 * queued before that runtime watched would reach it too — and the runtimes on it.
 */
async function loading(): Promise<Loading> {
  const root = await agedTree(TREE);
  const cache = tempDir('mewcode-first-cache-');
  const builder = runtimeAt(root, { workers: 1, index: 'build', indexCacheDir: cache });
  assert.ok((await builder.searchIndex?.build())?.ok, 'built');
  await builder.close();
  const rt = runtimeAt(root, { workers: 2, index: 'build', indexCacheDir: cache });
  return { root, rt, index: rt.searchIndex as SearchIndex, plain: runtimeAt(root, { workers: 2, index: 'off' }) };
}

/** `rt` finds exactly the files ripgrep and the unindexed runtime find for `needle`; how the index served it. */
async function findsAsRg(t: Loading, rt: Runtime, when: string): Promise<string> {
  const q = { pattern: 'needle' };
  const want = rgFiles(t.root, ['needle']);
  assert.deepEqual(await ourFiles(t.plain, q), want, `unindexed ${when}`);
  const got = await rt.call('grep', { ...q, output_mode: 'files_with_matches', head_limit: 0 });
  assert.deepEqual(
    got.content.split('\n').filter((l) => l && !l.startsWith('[')),
    want,
    `${when} (${String(got.meta?.index)})`,
  );
  return String(got.meta?.index);
}

/**
 * Holds the index's background check at the first slice boundary `at` accepts: `held` resolves once it
 * waits there; `release` lets it go on; `after` counts the boundaries it reached after the release.
 */
function holdCheck(index: SearchIndex, at: (p: CheckProgress) => boolean) {
  let release: () => void = () => {};
  const gate = new Promise<void>((r) => (release = r));
  let heldAt: (p: CheckProgress) => void = () => {};
  const held = new Promise<CheckProgress>((r) => (heldAt = r));
  const state = { holding: false, released: false, after: 0 };
  index.betweenCheckSlices = (p) => {
    if (state.released) state.after++;
    else if (!state.holding && at(p)) {
      state.holding = true;
      heldAt(p);
      return gate;
    }
  };
  return {
    held,
    release: () => {
      state.released = true;
      release();
    },
    after: () => state.after,
  };
}

test('first answer: files changed after the build and before the load are found by the first search', async () => {
  const t = await loading();
  const { rt, index } = t;
  writeFileSync(path.join(t.root, 'hay/f5.txt'), 'a needle added before the load\n');
  writeFileSync(path.join(t.root, 'a.txt'), 'the word is gone\n');
  // Held with every watch open, before any state is compared: the watches saw nothing of these.
  const hold = holdCheck(index, (p) => p.phase === 'watch' && p.done === p.of && p.of > 0);
  assert.equal(await findsAsRg(t, rt, 'the first search'), CHECKING);
  await hold.held;
  assert.equal(await findsAsRg(t, rt, 'the watches open'), CHECKING);
  hold.release();
  await index.settled();
  assert.equal(await findsAsRg(t, rt, 'the check'), 'served');
  assert.equal(await findsAsRg(t, rt, 'a walk learned'), 'served without a walk');
});

test('first answer: the check is done and later searches are served without a walk', async () => {
  const t = await loading();
  const { rt, index } = t;
  assert.equal(await findsAsRg(t, rt, 'the first search'), CHECKING);
  assert.equal(index.checking, true, 'the check runs after the first answer');
  await index.settled();
  assert.equal(index.checking, false);
  assert.equal(await findsAsRg(t, rt, 'the check'), 'served');
  assert.equal(await findsAsRg(t, rt, 'a walk learned'), 'served without a walk');
  assert.equal(await findsAsRg(t, rt, 'again'), 'served without a walk');
});

const HOLDS = [
  // Before any watch opens or any state is read: the states tell.
  ['before its watches open', (p: CheckProgress) => p.phase === 'watch' && p.done === 0],
  // Every watch open, every state read as indexed: only the watches can tell.
  ['after every state was compared', (p: CheckProgress) => p.phase === 'state' && p.done === p.of],
] as const;

for (const [where, at] of HOLDS)
  test(`first answer: files edited while the check runs, ${where}, are found during and after it`, async () => {
    const t = await loading();
    const { rt, index } = t;
    const hold = holdCheck(index, at);
    assert.equal(await findsAsRg(t, rt, 'the first search'), CHECKING);
    await hold.held;
    writeFileSync(path.join(t.root, 'hay/f3.txt'), 'a needle added during the check\n');
    writeFileSync(path.join(t.root, 'a.txt'), 'the word is gone\n');
    assert.equal(await findsAsRg(t, rt, 'edits during the check'), CHECKING);
    const loaded = index.loaded;
    hold.release();
    await index.settled();
    // Served by the index loaded, not one rebuilt since (which would hold the edits itself).
    assert.equal(await findsAsRg(t, rt, 'the check'), 'served');
    assert.equal(await findsAsRg(t, rt, 'a walk learned'), 'served without a walk');
    assert.equal(index.loaded, loaded, 'no rebuild');
  });

test('first answer: a file in a new directory and a rule change while the check runs are found during and after it', async () => {
  const t = await loading();
  const { rt, index } = t;
  const hold = holdCheck(index, (p) => p.phase === 'state' && p.done === p.of);
  assert.equal(await findsAsRg(t, rt, 'the first search'), CHECKING);
  await hold.held;
  mkdirSync(path.join(t.root, 'made'));
  writeFileSync(path.join(t.root, 'made/n.txt'), 'a needle in a new directory\n');
  writeFileSync(path.join(t.root, '.gitignore'), ''); // ign/x.txt, never indexed, is searched now
  assert.equal(await findsAsRg(t, rt, 'changes during the check'), CHECKING);
  hold.release();
  // Both turn walk-less searches off and start a rebuild (settled waits for it): before and after it.
  for (let i = 0; i < 3; i++) {
    assert.match(await findsAsRg(t, rt, `the check, search ${i + 1}`), /^served/);
    await index.settled();
  }
});

/** Inotify watches this process holds (one line per watch in its inotify descriptors' fdinfo). */
function inotifyWatches(): number {
  let n = 0;
  for (const fd of readdirSync('/proc/self/fdinfo')) {
    try {
      n += readFileSync(`/proc/self/fdinfo/${fd}`, 'utf8')
        .split('\n')
        .filter((l) => l.startsWith('inotify wd:')).length;
    } catch {
      // closed since it was listed
    }
  }
  return n;
}

/** Descriptors this process holds open on `file`. */
function openOn(file: string): number {
  let n = 0;
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      if (readlinkSync(`/proc/self/fd/${fd}`) === file) n++;
    } catch {
      // closed since it was listed
    }
  }
  return n;
}

test('first answer: a runtime closed during the check leaves no watch, descriptor or further work', async () => {
  const t = await loading();
  const { rt, index } = t;
  const before = { watches: inotifyWatches(), fds: openOn(index.file) };
  // Held with every watch open, before any state is compared.
  const hold = holdCheck(index, (p) => p.phase === 'watch' && p.done === p.of && p.of > 0);
  assert.equal(await findsAsRg(t, rt, 'the first search'), CHECKING);
  await hold.held;
  assert.ok(inotifyWatches() > before.watches, 'the check opened its watches');
  assert.equal(openOn(index.file), before.fds + 1, 'the loaded index is open');
  await rt.close();
  hold.release();
  await index.settled();
  assert.equal(index.checking, false);
  assert.equal(hold.after(), 0, 'no slice ran after the close');
  assert.equal(inotifyWatches(), before.watches, 'watches closed');
  assert.equal(openOn(index.file), before.fds, 'index file closed');
});
