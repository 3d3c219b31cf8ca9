/**
 * The git index reader against git itself, on real repositories: index versions 2, 3 (an
 * intent-to-add entry) and 4 (prefix-compressed names), a conflict's stages, a linked worktree; what
 * it calls clean is what `git diff-files` calls unchanged; and a clean repository's files are taken
 * from git before a command (nothing copied), a dirty one's copied.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { lstatSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { cleanFor, parseGitIndex } from '../../lib/history/git_index.ts';
import { fetchBlobs, findRepo, readIndex } from '../../lib/history/git_repo.ts';
import { beforeCommand, blobOf, newShellKept } from '../../lib/history/shell_before.ts';
import { commitClean, git } from '../helpers/git_repo.ts';
import { tempDir, writeTree } from '../helpers/temp.ts';

/** A repository with nested, unicode and long names (so version 4 compresses prefixes), committed, files made old. */
async function repo(): Promise<string> {
  const root = tempDir();
  const files: Record<string, string> = {
    'a.txt': 'a\n',
    'dir/deep/b.txt': 'b\n',
    'dir/deep/bb.txt': 'bb\n',
    'dir/déjà vu.md': 'd\n',
    [`long/${'x'.repeat(120)}/y.ts`]: 'y\n',
    'run.sh': '#!/bin/sh\n',
  };
  writeTree(root, files);
  execFileSync('chmod', ['755', path.join(root, 'run.sh')]);
  await commitClean(root, Object.keys(files));
  return root;
}

/** git's own view: path → blob id of stage 0 entries. */
function staged(root: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of git(root, 'ls-files', '-s', '-z').split('\0')) {
    const m = /^(\d+) ([0-9a-f]+) (\d)\t(.*)$/s.exec(line);
    if (m?.[3] === '0') out.set(m[4] as string, m[2] as string);
  }
  return out;
}

const parsed = (root: string) => {
  const entries = parseGitIndex(readFileSync(path.join(root, '.git/index')));
  assert.ok(entries, 'the index parses');
  return new Map([...entries].map(([p, e]) => [p, e.oid]));
};

for (const version of [2, 3, 4]) {
  test(`git index: version ${version} parses to the entries git lists`, async () => {
    const root = await repo();
    writeFileSync(path.join(root, 'later.txt'), 'l\n');
    if (version === 3) git(root, 'add', '-N', 'later.txt'); // intent-to-add: an extended entry, version 3
    git(root, 'update-index', '--index-version', String(version));
    const buf = readFileSync(path.join(root, '.git/index'));
    assert.equal(buf.readUInt32BE(4), version);
    const mine = parsed(root);
    const theirs = staged(root);
    if (version === 3) {
      assert.equal(mine.has('later.txt'), false, 'an intent-to-add entry has no blob to trust');
      theirs.delete('later.txt');
    }
    assert.deepEqual(mine, theirs);
  });
}

test('git index: clean is what git diff-files calls unchanged; racily clean and changed files are not', async () => {
  const root = await repo();
  writeFileSync(path.join(root, 'a.txt'), 'A\n'); // changed, and new (racy) too
  execFileSync('chmod', ['644', path.join(root, 'run.sh')]); // mode change
  const repoOf = findRepo(root);
  assert.ok(repoOf);
  const index = readIndex(repoOf);
  assert.ok(index);
  const changed = new Set(git(root, 'diff-files', '--name-only', '-z').split('\0').filter(Boolean));
  assert.deepEqual([...changed].sort(), ['a.txt', 'run.sh']);
  for (const [p, e] of index.entries) {
    const st = lstatSync(path.join(root, p), { bigint: true });
    const clean = cleanFor(e, { ...st, mode: Number(st.mode) }, index.mtimeNs);
    assert.equal(clean, !changed.has(p), p);
  }
});

test('git index: a conflict keeps no stage-0 entry for its path, and a torn index is refused', async () => {
  const root = await repo();
  git(root, 'checkout', '-qb', 'other');
  writeFileSync(path.join(root, 'a.txt'), 'other\n');
  git(root, 'commit', '-qam', 'other');
  git(root, 'checkout', '-q', '-');
  writeFileSync(path.join(root, 'a.txt'), 'mine\n');
  git(root, 'commit', '-qam', 'mine');
  assert.throws(() => git(root, 'merge', '-q', 'other'));
  assert.equal(parsed(root).has('a.txt'), false);
  const buf = readFileSync(path.join(root, '.git/index'));
  assert.equal(parseGitIndex(buf.subarray(0, 100)), undefined);
  assert.equal(parseGitIndex(Buffer.from('not an index')), undefined);
});

test('git index: a linked worktree and a root below the top are found, and blobs fetched by id', async () => {
  const main = await repo();
  const linked = path.join(tempDir(), 'wt');
  git(main, 'worktree', 'add', '-q', linked);
  const found = findRepo(path.join(linked, 'dir'));
  assert.equal(found?.top, linked);
  const index = found && readIndex(found);
  const oid = index?.entries.get('dir/deep/b.txt')?.oid;
  assert.ok(found && oid);
  const blobs = await fetchBlobs(found, [oid, '0'.repeat(40)]);
  assert.equal(blobs.get(oid)?.toString(), 'b\n');
  assert.equal(blobs.has('0'.repeat(40)), false, 'a missing id is absent, not an error');
  git(main, 'worktree', 'remove', '--force', linked);
  rmSync(path.dirname(linked), { recursive: true, force: true });
});

/** What a first command's journal takes before it in `root`: the files copied, and those git gives back. */
async function takenBefore(root: string): Promise<{ copied: string[]; blobs: string[] }> {
  const kept = newShellKept();
  try {
    const b = await beforeCommand(root, { maxFiles: 100 }, kept);
    assert.ok(b);
    const files = (b.live?.states ?? b.states)?.files ?? new Map();
    const blobs = [...files].filter(([rel, st]) => blobOf(b, rel, st)).map(([rel]) => rel);
    return { copied: kept.copies.files().sort(), blobs: blobs.sort() };
  } finally {
    kept.live?.close();
  }
}

test('git index: before a command, a clean repository is taken from git and nothing is copied; changed files are copied', async () => {
  const root = await repo();
  const clean = await takenBefore(root);
  assert.equal(clean.copied.length, 0);
  assert.equal(clean.blobs.length, 6);
  writeFileSync(path.join(root, 'dir/deep/b.txt'), 'changed\n');
  writeFileSync(path.join(root, 'new.txt'), 'new\n');
  const dirty = await takenBefore(path.join(root, 'dir'));
  assert.deepEqual(dirty.copied, ['deep/b.txt']);
  assert.deepEqual(dirty.blobs, ['deep/bb.txt', 'déjà vu.md']);
});

test('git index: a repository whose config names a clean filter (git-lfs, or any) gives no blobs: its files are copied', async () => {
  const root = await repo();
  git(root, 'config', 'filter.fake.clean', 'tr a-z n-za-m'); // same size, other bytes
  const b = await takenBefore(root);
  assert.equal(b.blobs.length, 0);
  assert.equal(b.copied.length, 6);
});
