/**
 * Review of the shell journal (docs/undo.md "Shell commands"), attacks that once damaged or leaked:
 * a git blob that is not the file's bytes (an end-of-line conversion or a filter: what git stores is
 * what it converted), an ignore file edited by the command (files unseen before it are not files it
 * created, and undo must not delete them), and a directory swapped for a symlink while the journal
 * stats or reads (no file outside the root may be read into the journal).
 */
import assert from 'node:assert/strict';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { readAsStated } from '../../lib/history/checked_dirs.ts';
import { type EntryState, stateOf } from '../../lib/history/tree_states.ts';
import { git } from '../helpers/git_repo.ts';
import { tempDir, writeTree } from '../helpers/temp.ts';
import { notRecorded, shellSetup } from './_shell_setup.ts';

const setup = shellSetup;

for (const [name, configure, file, bytes] of [
  [
    'core.autocrlf=input (a CRLF file, stored with LF)',
    (r: string) => git(r, 'config', 'core.autocrlf', 'input'),
    'w.txt',
    'one\r\ntwo\r\n',
  ],
  [
    'a clean filter (as git-lfs: the blob is a pointer)',
    (r: string) => {
      git(r, 'config', 'filter.fake.clean', 'echo pointer-1234');
      git(r, 'config', 'filter.fake.smudge', 'cat');
      writeFileSync(path.join(r, '.gitattributes'), '*.bin filter=fake\n');
    },
    'big.bin',
    'REAL BYTES OF A LARGE FILE\n',
  ],
] as const) {
  test(`shell review: a file git calls clean whose blob is converted (${name}) is never restored from the blob`, async () => {
    const { rt, at } = await setup({ [file]: bytes }, { git: configure });
    assert.equal(git(path.dirname(at(file)), 'status', '--porcelain', '--', file), '', 'git calls it clean');
    const r = await rt.call('bash', { command: `echo more >> ${file}` });
    assert.equal(r.isError, false, r.content);
    const undo = await rt.journal?.undo();
    // Either the change is named as not recorded (undo leaves it), or undo brings back the very bytes.
    const now = readFileSync(at(file), 'utf8');
    if (notRecorded(r).some((m) => m.path === file)) assert.equal(now, `${bytes}more\n`, JSON.stringify(undo));
    else assert.equal(now, bytes, 'undo restored bytes that were never in the file');
  });
}

test('shell review: a command that un-ignores a directory did not create the files already in it; undo keeps them', async () => {
  const { rt, at } = await setup({ '.gitignore': 'build/\n', 'build/out.js': 'precious\n', 'src.ts': 'x\n' });
  const r = await rt.call('bash', { command: "printf '' > .gitignore" });
  assert.equal(r.isError, false, r.content);
  const undo = await rt.journal?.undo();
  assert.ok(undo?.ok, JSON.stringify(undo));
  assert.equal(readFileSync(at('.gitignore'), 'utf8'), 'build/\n');
  assert.equal(readFileSync(at('build/out.js'), 'utf8'), 'precious\n', 'undo deleted a file the command never made');
});

test('shell review: a command that ignores a file it did not delete is not recorded as deleting it', async () => {
  const { rt } = await setup({ '.gitignore': '', 'secret.txt': 'orig\n' });
  const r = await rt.call('bash', { command: 'echo secret.txt > .gitignore' });
  assert.equal(r.isError, false, r.content);
  const files = rt.journal
    ?.list()
    .at(-1)
    ?.files.map((f) => `${f.change} ${f.path}`);
  assert.deepEqual(files, ['modified .gitignore']);
  assert.ok(
    notRecorded(r).some((m) => m.path === 'secret.txt'),
    r.content,
  );
});

test('shell review: a file is never read through a directory swapped for a symlink (nothing outside the root)', () => {
  const root = tempDir();
  const outside = tempDir();
  writeTree(root, { 'd/x': 'decoy\n' });
  writeTree(outside, { x: 'SECRET\n' });
  // The state the walk would have taken through the swapped directory: the outside file's.
  renameSync(path.join(root, 'd'), path.join(root, 'd.real'));
  symlinkSync(outside, path.join(root, 'd'));
  const st = lstatSync(path.join(root, 'd/x'), { bigint: true });
  const state = stateOf(path.join(root, 'd/x')) as EntryState;
  assert.equal(state.ino, st.ino);
  assert.equal(readAsStated(root, 'd/x', state), undefined, 'read a file outside the root');
  mkdirSync(path.join(root, 'e'));
  writeFileSync(path.join(root, 'e/y'), 'inside\n');
  const ok = stateOf(path.join(root, 'e/y')) as EntryState;
  assert.equal(readAsStated(root, 'e/y', ok)?.toString(), 'inside\n');
});

test('shell review: fetching a before-image never runs a program the repository config names (a partial clone lazy-fetching through ext::)', async () => {
  const marker = path.join(tempDir(), 'ran');
  const { rt, root, at } = await setup({ 'a.txt': 'hello\n' }, { git: () => {} });
  const oid = git(root, 'rev-parse', 'HEAD:a.txt').trim();
  rmSync(path.join(root, '.git/objects', oid.slice(0, 2), oid.slice(2)));
  for (const [k, v] of [
    ['core.repositoryformatversion', '1'],
    ['extensions.partialClone', 'origin'],
    ['remote.origin.promisor', 'true'],
    ['remote.origin.url', `ext::sh -c touch% ${marker}`],
    ['protocol.ext.allow', 'always'],
  ] as const)
    git(root, 'config', k, v);
  const r = await rt.call('bash', { command: 'echo x >> a.txt' });
  assert.equal(r.isError, false, r.content);
  assert.equal(existsSync(marker), false, 'git ran the remote command of the repository config');
  assert.ok(
    notRecorded(r).some((m) => m.path === 'a.txt'),
    r.content,
  );
  assert.equal(readFileSync(at('a.txt'), 'utf8'), 'hello\nx\n');
});
