/**
 * Loose files handed to a reading visitor (lib/search/visit_files.ts): a file alone in its directory
 * comes already open, checked to be exactly its path; files sharing a directory, symlinks, root
 * files and every refused open go the directory route, which says why. Real files, real swaps.
 */
import assert from 'node:assert/strict';
import { closeSync, constants, fstatSync, openSync, readSync, renameSync, rmSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { realPathOf } from '../../lib/core/descriptors.ts';
import { visitFiles } from '../../lib/search/visit_files.ts';
import { comparePaths, type Entry, type Visitor, type WalkOptions } from '../../lib/search/walk.ts';
import { tempDir, writeTree } from '../helpers/temp.ts';

const walkOf = (root: string, openFiles: WalkOptions['openFiles']): WalkOptions => ({
  root,
  useIgnore: false,
  hidden: true,
  maxDepth: Number.POSITIVE_INFINITY,
  openFiles,
});
const entries = (files: Record<string, Entry['kind']>): Entry[] =>
  Object.entries(files)
    .map(([rel, kind]) => ({ rel, kind }))
    .sort((a, b) => comparePaths(a.rel, b.rel));

const readAll = (fd: number) => {
  const buf = Buffer.alloc(fstatSync(fd).size);
  readSync(fd, buf, 0, buf.length, 0);
  return buf.toString();
};

/** A path handed over, opened as every reader opens it (O_NOFOLLOW): its bytes, or why it was refused. */
function readPath(at: string): string {
  let fd: number;
  try {
    fd = openSync(at, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch (e) {
    return `path refused: ${(e as NodeJS.ErrnoException).code}`;
  }
  try {
    return `path: ${readAll(fd)}`;
  } finally {
    closeSync(fd);
  }
}

/** What the visitor was handed for each file: open (with the bytes read through it), a path, or nothing. */
function visitAll(root: string, files: Entry[], openFiles: WalkOptions['openFiles']) {
  const got: Record<string, string> = {};
  const visitor: Visitor = {
    file(e, at, fd) {
      if (fd !== undefined) {
        assert.equal(realPathOf(fd), path.join(root, e.rel));
        assert.equal(at, path.join(root, e.rel));
        got[e.rel] = `open: ${readAll(fd)}`;
      } else got[e.rel] = at === undefined ? 'name only' : readPath(at);
      return false;
    },
    unreachable: (e) => {
      got[e.rel] = 'unreachable';
    },
  };
  assert.equal(visitFiles(walkOf(root, openFiles), files, visitor), false);
  return got;
}

test('visit files: a reading visitor gets a lone file open, files sharing a directory as paths', () => {
  const root = tempDir();
  writeTree(root, { 'a/one.txt': 'one', 'b/x.txt': 'x', 'b/y.txt': 'y', 'c/d/deep.txt': 'deep', 'top.txt': 'top' });
  symlinkSync('one.txt', path.join(root, 'e-link'));
  const files = entries({
    'a/one.txt': 'file',
    'b/x.txt': 'file',
    'b/y.txt': 'file',
    'c/d/deep.txt': 'file',
    'top.txt': 'file',
    'e-link': 'symlink',
  });
  assert.deepEqual(visitAll(root, files, 'read'), {
    'a/one.txt': 'open: one',
    'b/x.txt': 'path: x',
    'b/y.txt': 'path: y',
    'c/d/deep.txt': 'open: deep',
    'top.txt': 'path: top', // the root is open already
    'e-link': 'path refused: ELOOP',
  });
  // A visitor that opens files but does not read them all (glob's mtimes): never handed one open.
  const paths = visitAll(root, files, true);
  assert.equal(paths['a/one.txt'], 'path: one');
  assert.equal(paths['c/d/deep.txt'], 'path: deep');
});

test('visit files: a lone file whose directory became a symlink, or that became one, is never opened through it', () => {
  const root = tempDir();
  const outside = tempDir();
  writeTree(root, { 'a/b/f.txt': 'inside', 'c/g.txt': 'inside g' });
  writeTree(outside, { 'b/f.txt': 'SECRET', 'g.txt': 'SECRET g' });
  renameSync(path.join(root, 'a'), path.join(root, 'a.real'));
  symlinkSync(outside, path.join(root, 'a'));
  rmSync(path.join(root, 'c/g.txt'));
  symlinkSync(path.join(outside, 'g.txt'), path.join(root, 'c/g.txt'));
  const got = visitAll(root, entries({ 'a/b/f.txt': 'file', 'c/g.txt': 'file' }), 'read');
  // Refused when opened exactly; the directory route then says why: unreachable through the swapped
  // directory, and the swapped file handed over as its directory's entry, refused by the reader.
  assert.deepEqual(got, { 'a/b/f.txt': 'unreachable', 'c/g.txt': 'path refused: ELOOP' });
});

test('visit files: a root or name that is not a real path is refused open, as through directories', () => {
  const root = tempDir();
  writeTree(root, { 'a/b/f.txt': 'inside', 'a/c/g.txt': 'g' });
  // A trailing slash on the root: the root's own check refuses everything.
  assert.deepEqual(visitAll(`${root}/`, entries({ 'a/b/f.txt': 'file' }), 'read'), { 'a/b/f.txt': 'unreachable' });
  // A name with '..' in it is never normalized into another file of the tree.
  const got = visitAll(root, entries({ 'a/c/../b/f.txt': 'file' }), 'read');
  assert.notEqual(got['a/c/../b/f.txt'], 'open: inside');
});
