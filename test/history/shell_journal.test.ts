/**
 * What a bash command changes is journaled: in a git repository (clean tracked files from git's
 * blobs, the rest from copies taken before the command), outside one, under the sandbox; undo and
 * redo bring the tree back byte for byte (modes, CRLF, BOM, made directories removed); what cannot be
 * recorded — a symlink, an ignored path, a file past the copy budget — is named in the answer.
 */
import assert from 'node:assert/strict';
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { COPY_FILES } from '../../lib/history/kept_copies.ts';
import { pastRacyWindow } from '../helpers/git_repo.ts';
import { runtimeAt } from '../helpers/runtime.ts';
import { tempDir, writeTree } from '../helpers/temp.ts';
import { notRecorded, shellSetup } from './_shell_setup.ts';

/** Every file under root (not .git): path → mode and bytes, and every directory. */
function snapshot(root: string): Record<string, string> {
  const out: Record<string, string> = {};
  const visit = (rel: string) => {
    for (const name of readdirSync(path.join(root, rel)).sort()) {
      if (name === '.git') continue;
      const r = rel ? `${rel}/${name}` : name;
      const st = lstatSync(path.join(root, r));
      if (st.isDirectory()) {
        out[`${r}/`] = 'dir';
        visit(r);
      } else out[r] = `${(st.mode & 0o7777).toString(8)} ${readFileSync(path.join(root, r)).toString('base64')}`;
    }
  };
  visit('');
  return out;
}

const setup = shellSetup;

for (const inGit of [true, false]) {
  test(`shell journal (${inGit ? 'git repository' : 'no repository'}): a command's creations, rewrites, mode changes, renames and deletions are undone and redone byte for byte`, async () => {
    const { root, rt, at } = await setup(
      {
        'crlf.txt': 'one\r\ntwo\r\n',
        'bom.txt': '\uFEFFhello\n',
        'src/a.ts': 'export const a = 1;\n',
        'src/b.ts': 'export const b = 2;\n',
        'bin.dat': new Uint8Array([0, 1, 2, 255, 254]),
        'run.sh': '#!/bin/sh\necho hi\n',
      },
      { git: inGit },
    );
    const before = snapshot(root);
    const command = [
      "printf 'three\\r\\n' >> crlf.txt",
      "printf '\\xef\\xbb\\xbfbye\\n' > bom.txt",
      'mv src/a.ts src/renamed.ts',
      'rm src/b.ts bin.dat',
      'chmod 755 run.sh',
      'mkdir -p made/deep && printf new > made/deep/n.txt',
    ].join(' && ');
    const r = await rt.call('bash', { command });
    assert.equal(r.isError, false, r.content);
    assert.deepEqual(notRecorded(r), [], r.content);
    assert.equal(typeof r.meta?.journal, 'number', 'the call is a journal entry');
    const changed = snapshot(root);
    const history = rt.journal?.list().at(-1);
    assert.equal(history?.tool, 'bash');
    assert.deepEqual(
      history?.files.map((f) => `${f.change} ${f.path}`),
      [
        'deleted bin.dat',
        'modified bom.txt',
        'modified crlf.txt',
        'created made/deep/n.txt',
        'modified run.sh',
        'deleted src/a.ts',
        'deleted src/b.ts',
        'created src/renamed.ts',
      ],
    );
    const undo = await rt.journal?.undo();
    assert.ok(undo?.ok && undo.value.conflicts.length === 0, JSON.stringify(undo));
    assert.deepEqual(snapshot(root), before, 'the tree is as before the command, made directories gone');
    const redo = await rt.journal?.redo();
    assert.ok(redo?.ok && redo.value.conflicts.length === 0, JSON.stringify(redo));
    assert.deepEqual(snapshot(root), changed);
    assert.equal(existsSync(at('made/deep/n.txt')), true);
  });
}

test('shell journal: a command that changes nothing records nothing', async () => {
  const { rt } = await setup({ 'a.txt': 'a\n' }, { git: true });
  const r = await rt.call('bash', { command: 'cat a.txt && ls -la >/dev/null' });
  assert.equal(r.isError, false, r.content);
  assert.equal(r.meta?.journal, undefined);
  assert.deepEqual(rt.journal?.list(), []);
});

test('shell journal: a file rewritten within the clock tick of the snapshot, same size, is still seen (its bytes are compared)', async () => {
  const { rt, at } = await setup({ 'a.txt': 'aaaa\n' });
  // Written just now: its ctime is within the racy window, so its bytes were copied before the command.
  writeFileSync(at('a.txt'), 'bbbb\n');
  const r = await rt.call('bash', { command: "printf 'cccc\\n' > a.txt" });
  assert.equal(r.isError, false, r.content);
  const undo = await rt.journal?.undo();
  assert.ok(undo?.ok && undo.value.conflicts.length === 0, JSON.stringify(undo));
  assert.equal(readFileSync(at('a.txt'), 'utf8'), 'bbbb\n');
});

test('shell journal: a file edited by someone after the command is not touched by undo and is reported', async () => {
  const { rt, at } = await setup({ 'a.txt': 'one\n' }, { git: true });
  await rt.call('bash', { command: 'echo two > a.txt' });
  writeFileSync(at('a.txt'), 'two\nmine\n');
  const undo = await rt.journal?.undo();
  assert.ok(undo?.ok);
  assert.equal(undo.value.conflicts[0]?.path, 'a.txt');
  assert.equal(readFileSync(at('a.txt'), 'utf8'), 'two\nmine\n');
});

test('shell journal: symlinks, ignored paths and removed empty directories are named in the answer, not silently missed', async () => {
  const { rt, at } = await setup(
    { '.gitignore': 'dist/\n*.log\n', 'dist/old.js': 'old\n', 'keep.txt': 'k\n', 'empty/.keep': '' },
    { git: true },
  );
  const r = await rt.call('bash', {
    command: 'ln -s keep.txt link && printf x > dist/new.js && printf y > run.log && rm empty/.keep && rmdir empty',
  });
  assert.equal(r.isError, false, r.content);
  const named = Object.fromEntries(notRecorded(r).map((m) => [m.path, m.why]));
  assert.match(named.link ?? '', /symbolic link/);
  assert.match(named['dist/'] ?? '', /ignore files/);
  assert.match(named['run.log'] ?? '', /ignore files/);
  assert.match(r.content, /not recorded in the journal/);
  // empty/.keep was a file, recorded: undo brings the directory back with it.
  const undo = await rt.journal?.undo();
  assert.ok(undo?.ok && undo.value.conflicts.length === 0, JSON.stringify(undo));
  assert.equal(statSync(at('empty')).isDirectory(), true);
  assert.equal(existsSync(at('dist/new.js')), true, 'an ignored path is not undone');
});

test('shell journal: past the copy budget, a changed file that git does not hold is named with why', async () => {
  const files: Record<string, string> = {};
  for (let i = 0; i <= COPY_FILES; i++) files[`f/${String(i).padStart(5, '0')}.txt`] = `${i}\n`;
  const { rt, root } = await setup(files);
  // All older than the racy window, the first one the oldest: the copies go to the newest first.
  for (let i = 0; i <= COPY_FILES; i++) {
    const t = new Date(Date.now() - 120_000 + i);
    utimesSync(path.join(root, `f/${String(i).padStart(5, '0')}.txt`), t, t);
  }
  // Until the clock is past the racy window of the last utimes, the uncopied files would be waited out.
  await pastRacyWindow(root, Object.keys(files));
  const r = await rt.call('bash', { command: 'echo changed > f/00000.txt && echo changed > f/00001.txt' });
  assert.equal(r.isError, false, r.content);
  const missed = notRecorded(r);
  assert.deepEqual(
    missed.map((m) => m.path),
    ['f/00000.txt'],
  );
  assert.match(missed[0]?.why ?? '', /not kept/);
  assert.deepEqual(
    rt.journal
      ?.list()
      .at(-1)
      ?.files.map((f) => f.path),
    ['f/00001.txt'],
  );
});

test('shell journal: a background job says its changes are not journaled', async () => {
  const { rt } = await setup({ 'a.txt': 'a\n' });
  const r = await rt.call('bash', { command: 'true', run_in_background: true });
  assert.equal(r.isError, false, r.content);
  assert.match(r.content, /not recorded in the journal/);
});

test('shell journal: a file made unreadable or replaced by a directory does not break the call', async () => {
  const { rt, at } = await setup({ 'a.txt': 'a\n', 'd/x.txt': 'x\n' });
  mkdirSync(at('sub'));
  chmodSync(at('a.txt'), 0o644);
  const r = await rt.call('bash', { command: 'rm a.txt && mkdir a.txt && rm -r d && printf d > d' });
  assert.equal(r.isError, false, r.content);
  const undo = await rt.journal?.undo();
  assert.ok(undo?.ok, JSON.stringify(undo));
});

test('shell journal: past journal.shellMaxFiles (or with 0) a command runs and its answer says its changes were not looked for', async () => {
  for (const shellMaxFiles of [3, 0]) {
    const root = tempDir();
    writeTree(root, { 'a.txt': 'a\n', 'b.txt': 'b\n', 'c.txt': 'c\n', 'd.txt': 'd\n' });
    const rt = runtimeAt(root, {
      workers: 0,
      permissions: { allow: { run: true } },
      journal: { dir: tempDir(), shellMaxFiles },
    });
    const r = await rt.call('bash', { command: 'echo changed > a.txt' });
    assert.equal(r.isError, false, r.content);
    assert.equal(readFileSync(path.join(root, 'a.txt'), 'utf8'), 'changed\n');
    assert.deepEqual(
      notRecorded(r).map((m) => m.path),
      ['.'],
    );
    assert.match(r.content, shellMaxFiles === 0 ? /shellMaxFiles is 0/ : /more than 3 files before the command/);
    // The runtime remembers: the next command is not compared again (a walk of the limit each time).
    const again = await rt.call('bash', { command: 'rm b.txt' });
    if (shellMaxFiles > 0) assert.match(again.content, /more than 3 files when this runtime counted them/);
    assert.deepEqual(rt.journal?.list(), []);
  }
});

test('shell journal: a bad journal option is refused with what is wrong', async () => {
  const { createRuntime } = await import('../../lib/runtime/runtime.ts');
  for (const [journal, says] of [
    [{ shellMaxFiles: -1 }, /journal.shellMaxFiles must be a whole number of 0 or more, not -1/],
    [{ shellMaxFiles: 1.5 }, /shellMaxFiles/],
    [{ maxBytes: 'big' }, /journal.maxBytes must be a whole number/],
    [{ maxAgeDays: -2 }, /journal.maxAgeDays must be a number of 0 or more/],
  ] as const) {
    const made = createRuntime({ root: tempDir(), home: null, journal: journal as never });
    assert.equal(made.ok, false);
    assert.match(made.ok ? '' : made.error, says);
  }
});

test('shell journal: a file over 16 MiB, and files past the 256 MiB one command may record, are named, not read into the entry', async () => {
  const { rt, at } = await setup({ 'a.txt': 'a\n' });
  // Sparse files: 17 of 15 MiB fit the 256 MiB (255), the 18th does not; one of 17 MiB is over the per-file limit.
  const r = await rt.call('bash', {
    command: 'for i in $(seq -w 1 18); do truncate -s 15M f$i.bin; done; truncate -s 17M huge.bin',
  });
  assert.equal(r.isError, false, r.content);
  const missed = Object.fromEntries(notRecorded(r).map((m) => [m.path, m.why]));
  assert.match(missed['huge.bin'] ?? '', /17\.0 MiB, over the 16 MiB/);
  assert.match(missed['f18.bin'] ?? '', /past the 256 MiB/);
  assert.equal(Object.keys(missed).length, 2, JSON.stringify(missed));
  const entry = rt.journal?.list().at(-1);
  assert.equal(entry?.files.length, 17);
  const undo = await rt.journal?.undo();
  assert.ok(undo?.ok && undo.value.conflicts.length === 0);
  assert.equal(existsSync(at('f01.bin')), false);
  assert.equal(existsSync(at('f18.bin')), true, 'what was not recorded stays');
});

test('shell journal: a file a command replaced by a directory comes back on undo (what was put under its path goes first)', async () => {
  const { rt, at } = await setup({ f: 'the file\n', 'd/x.txt': 'x\n' });
  const r = await rt.call('bash', { command: 'rm f && mkdir f && echo g > f/g && rm -r d && printf d > d' });
  assert.equal(r.isError, false, r.content);
  const undo = await rt.journal?.undo();
  assert.ok(undo?.ok, JSON.stringify(undo));
  assert.deepEqual(undo.value.conflicts, []);
  assert.equal(readFileSync(at('f'), 'utf8'), 'the file\n');
  assert.equal(readFileSync(at('d/x.txt'), 'utf8'), 'x\n');
  const redo = await rt.journal?.redo();
  assert.ok(redo?.ok && redo.value.conflicts.length === 0, JSON.stringify(redo));
  assert.equal(readFileSync(at('f/g'), 'utf8'), 'g\n');
  assert.equal(readFileSync(at('d'), 'utf8'), 'd');
});

test('shell journal: a command that only makes directories is an entry, and undo removes them', async () => {
  const { rt, at } = await setup({ 'a.txt': 'a\n' });
  const r = await rt.call('bash', { command: 'mkdir -p made/deep other' });
  assert.equal(r.isError, false, r.content);
  assert.equal(typeof r.meta?.journal, 'number', r.content);
  const undo = await rt.journal?.undo();
  assert.ok(undo?.ok, JSON.stringify(undo));
  assert.equal(existsSync(at('made')), false);
  assert.equal(existsSync(at('other')), false);
});

test('shell journal: a file changed by one command, then by an outside writer, then by the next command is recorded each time with the bytes it had (git-clean and untracked)', async () => {
  const { rt, root, at } = await shellSetup({ 'tracked.txt': 'v0\n' }, { git: true });
  writeFileSync(at('untracked.txt'), 'u0\n');
  await pastRacyWindow(root, ['untracked.txt']);
  const first = await rt.call('bash', { command: 'echo v1 > tracked.txt; echo u1 > untracked.txt' });
  assert.deepEqual(notRecorded(first), []);
  // Past the racy window: the next command's copies cannot lean on the files being recent.
  await pastRacyWindow(root, ['tracked.txt', 'untracked.txt']);
  writeFileSync(at('tracked.txt'), 'outside\n'); // no longer what git holds: the blob is not its before-image
  await pastRacyWindow(root, ['tracked.txt']);
  const second = await rt.call('bash', { command: 'echo v2 > tracked.txt; echo u2 > untracked.txt' });
  assert.deepEqual(notRecorded(second), []);
  const undo = await rt.journal?.undo();
  assert.ok(undo?.ok && undo.value.conflicts.length === 0, JSON.stringify(undo));
  assert.equal(readFileSync(at('tracked.txt'), 'utf8'), 'outside\n');
  assert.equal(readFileSync(at('untracked.txt'), 'utf8'), 'u1\n');
  await rt.close();
});
