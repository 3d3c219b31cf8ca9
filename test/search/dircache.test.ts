import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, renameSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { listDir, openListed } from '../../lib/search/dircache.ts';
import { tempDir } from '../helpers/temp.ts';

const old = new Date(Date.now() - 3600_000);
const names = (dir: string) => listDir(dir).map((e) => `${e.name}:${e.kind}`);

test('dircache: a cached listing follows every change to the directory', () => {
  const dir = tempDir();
  writeFileSync(path.join(dir, 'a.txt'), '');
  mkdirSync(path.join(dir, 'sub'));
  utimesSync(dir, old, old);
  assert.deepEqual(names(dir), ['a.txt:file', 'sub:dir']);
  assert.deepEqual(names(dir), ['a.txt:file', 'sub:dir'], 'served again');
  writeFileSync(path.join(dir, 'b.txt'), '');
  assert.deepEqual(names(dir), ['a.txt:file', 'b.txt:file', 'sub:dir'], 'an added file is seen');
  utimesSync(dir, old, old);
  names(dir);
  renameSync(path.join(dir, 'a.txt'), path.join(dir, 'c.txt'));
  assert.deepEqual(names(dir), ['b.txt:file', 'c.txt:file', 'sub:dir'], 'a rename is seen');
  utimesSync(dir, old, old);
  names(dir);
  rmSync(path.join(dir, 'sub'), { recursive: true });
  writeFileSync(path.join(dir, 'sub'), '');
  assert.deepEqual(names(dir), ['b.txt:file', 'c.txt:file', 'sub:file'], 'a directory replaced by a file is seen');
});

test('dircache: a change that puts the old mtime back is still seen through ctime', () => {
  const dir = tempDir();
  writeFileSync(path.join(dir, 'a.txt'), '');
  utimesSync(dir, old, old);
  assert.deepEqual(names(dir), ['a.txt:file']);
  writeFileSync(path.join(dir, 'sneaky.txt'), '');
  utimesSync(dir, old, old); // mtime restored, but ctime moved
  assert.deepEqual(names(dir), ['a.txt:file', 'sneaky.txt:file']);
});

test('dircache: a directory changed within the racy window is listed afresh every time', () => {
  const dir = tempDir();
  writeFileSync(path.join(dir, 'a.txt'), '');
  assert.deepEqual(names(dir), ['a.txt:file']);
  writeFileSync(path.join(dir, 'b.txt'), '');
  assert.deepEqual(names(dir), ['a.txt:file', 'b.txt:file']);
  rmSync(dir, { recursive: true });
  assert.deepEqual(names(dir), [], 'a vanished directory lists as empty');
});

test('dircache: a cached listing is never served for a directory swapped for a symlink', () => {
  const root = tempDir();
  const outside = tempDir();
  mkdirSync(path.join(root, 'd'));
  writeFileSync(path.join(root, 'd', 'inside.txt'), '');
  writeFileSync(path.join(outside, 'outside.txt'), '');
  utimesSync(path.join(root, 'd'), old, old);
  utimesSync(outside, old, old);
  assert.deepEqual(names(path.join(root, 'd')), ['inside.txt:file'], 'listed and kept');
  renameSync(path.join(root, 'd'), path.join(root, 'd.real'));
  symlinkSync(outside, path.join(root, 'd'));
  assert.deepEqual(names(path.join(root, 'd')), [], 'the path now leads elsewhere: nothing is listed');
  const opened = openListed(path.join(root, 'd'));
  assert.equal(opened, undefined, 'nor opened');
  rmSync(path.join(root, 'd'));
  renameSync(path.join(root, 'd.real'), path.join(root, 'd'));
  assert.deepEqual(names(path.join(root, 'd')), ['inside.txt:file'], 'the real directory is back');
});

test('dircache: a listing served from the cache has every name and kind of the one read', () => {
  const dir = tempDir();
  const odd = ['é.txt', '日本.md', 'emoji-😀', 'new\nline', 'back\\slash', 'd', 'f', ' ', '-'];
  for (const n of odd) writeFileSync(path.join(dir, n), '');
  mkdirSync(path.join(dir, 'sub'));
  mkdirSync(path.join(dir, 'empty'));
  symlinkSync('sub', path.join(dir, 'link'));
  execFileSync('mkfifo', [path.join(dir, 'fifo')]);
  for (const d of [dir, path.join(dir, 'empty')]) utimesSync(d, old, old);
  const read = names(dir);
  assert.equal(read.length, odd.length + 4);
  assert.ok(read.includes('link:symlink') && read.includes('fifo:other') && read.includes('sub:dir'));
  assert.deepEqual(names(dir), read, 'served from the cache, the same');
  assert.deepEqual(names(path.join(dir, 'empty')), []);
  assert.deepEqual(names(path.join(dir, 'empty')), [], 'an empty listing served from the cache');
});
