/**
 * Editing from the CLI: `mewcode edit` reads then edits in one process with edit_file's checks, and a
 * one-shot `call edit_file` never advises what a one-shot cannot do.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { runCli } from './helpers/cli.ts';
import { tempDir, writeTree } from './helpers/temp.ts';

function tree() {
  const root = tempDir();
  writeTree(root, { 'a.txt': 'one\ntwo\nthree\ntwo\n' });
  const text = () => readFileSync(path.join(root, 'a.txt'), 'utf8');
  const edit = (...args: string[]) =>
    runCli(['--root', root, 'edit', 'a.txt', ...args], { cwd: root, env: { HOME: root } });
  return { root, text, edit };
}

test('cli edit: one pair edits in place; several pairs apply in order; --replace-all replaces each', async () => {
  const t = tree();
  const r = await t.edit('--old', 'one', '--new', '1', '--allow-write');
  assert.deepEqual([r.code, r.err], [0, '']);
  assert.match(r.out, /^Edited "a\.txt": 1 replacement/);
  assert.equal(t.text(), '1\ntwo\nthree\ntwo\n');
  assert.equal(
    (await t.edit('--old', '1', '--new', 'uno', '--old', 'three', '--new', 'tres', '--allow-write')).code,
    0,
  );
  assert.equal(t.text(), 'uno\ntwo\ntres\ntwo\n');
  assert.equal((await t.edit('--old', 'two', '--new', 'dos', '--replace-all', '--allow-write')).code, 0);
  assert.equal(t.text(), 'uno\ndos\ntres\ndos\n');
});

test('cli edit: the same checks as edit_file — an ambiguous or missing match changes nothing, exit 1', async () => {
  const t = tree();
  const twice = await t.edit('--old', 'two', '--new', '2', '--allow-write');
  assert.deepEqual([twice.code, twice.out], [1, ''], 'an error goes to stderr, never stdout');
  assert.match(twice.err, /^--old occurs 2 times in "a\.txt" \(lines 2, 4\)\..* pass --replace-all /);
  assert.doesNotMatch(twice.err, /replace_all|old_string/);
  const missing = await t.edit('--old', 'one', '--new', '1', '--old', 'nope', '--new', 'x', '--allow-write');
  assert.deepEqual([missing.code, missing.out], [1, '']);
  assert.match(missing.err, /pair 2: --old was not found in "a\.txt"/, 'which pair, in the flags typed');
  assert.equal(t.text(), 'one\ntwo\nthree\ntwo\n');
  const unpaired = await t.edit('--old', 'one', '--allow-write');
  assert.deepEqual([unpaired.code, unpaired.out], [2, '']);
  assert.match(unpaired.err, /--old and --new in pairs/);
  // No permission and no terminal to ask: refused, naming the flag.
  const refused = await t.edit('--old', 'one', '--new', '1');
  assert.deepEqual([refused.code, refused.out], [1, '']);
  assert.match(refused.err, /--allow-write=a\.txt/);
  assert.equal(t.text(), 'one\ntwo\nthree\ntwo\n');
});

test('cli edit: a one-shot call edit_file says to use mewcode edit or batch, not "read it first"', async () => {
  const t = tree();
  const input = JSON.stringify({ file_path: 'a.txt', old_string: 'one', new_string: '1' });
  const r = await runCli(['--root', t.root, 'call', 'edit_file', input, '--allow-write'], { cwd: t.root });
  assert.deepEqual([r.code, r.out], [1, ''], 'an error goes to stderr, never stdout');
  assert.doesNotMatch(r.err, /read it with read_file first/);
  assert.match(r.err, /mewcode edit FILE --old TEXT --new TEXT/);
  assert.match(r.err, /mewcode batch/);
  assert.equal(t.text(), 'one\ntwo\nthree\ntwo\n');
});
