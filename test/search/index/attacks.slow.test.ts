/**
 * Adversarial review of the index's promise — a search served through it answers byte for byte as a
 * full scan does, always fresh — attacked from outside, through the real interfaces, on real trees.
 * Each test here reproduces a break still open, marked `todo`: it runs and reports without failing the
 * run, and its assertions are the promise, so it passes once the fix lands (then drop the mark). The
 * attacks that did not work guard the promise in attacks_held.slow.test.ts.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { cpSync, linkSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { TSX } from '../../helpers/repo.ts';
import { runtimeAt } from '../../helpers/runtime.ts';
import { tempDir, writeTree } from '../../helpers/temp.ts';
import { agedTree, diverging, ourFiles, prime, rgFiles, trio } from './attack_helpers.ts';

const todo = (what: string) => ({ todo: `index attack: ${what} — fix pending` });

test('attack: invert_match through the index', async () => {
  const t = await trio(await agedTree({ 'a.txt': 'needle here\nother line\n', 'b.txt': 'nothing\n' }));
  const q = { pattern: 'needle', invert_match: true, output_mode: 'files_with_matches', head_limit: 0 };
  assert.deepEqual(await ourFiles(t.plain, q), rgFiles(t.root, ['-v', 'needle']), 'plain answers as rg -v');
  for (const mode of ['files_with_matches', 'content', 'count'])
    assert.deepEqual((await diverging(t, { ...q, output_mode: mode })).diffs, []);
});

test('attack: a binary file the byte prefilter cannot rule out', async () => {
  // `needle|omega` has no single required literal: the searcher counts every binary file as one
  // "that may match"; the index rules this one out, so the note goes missing.
  const t = await trio(await agedTree({ 'a.txt': 'needle here\n', 'bin.dat': Buffer.from('zzz\0yyy\n') }));
  assert.deepEqual((await diverging(t, { pattern: 'needle|omega' })).diffs, []);
});

for (const [where, before, after] of [
  ['in a full piece', 1536, 1024],
  ['in the last piece', 1536, 0],
] as const)
  test(`attack: a binary file larger than the read buffer, its NUL ${where}`, async () => {
    // A file over 1 MiB streams through the build's read buffer: the NUL rule must see every piece.
    const text = (kib: number) => Buffer.alloc(kib * 1024, 'text line\n');
    const big = Buffer.concat([text(before), Buffer.from('zzz\0yyy\n'), text(after)]);
    const t = await trio(await agedTree({ 'a.txt': 'needle here\n', 'big.dat': big }));
    assert.deepEqual((await diverging(t, { pattern: 'needle|omega' })).diffs, []);
  });

test('attack: a new file in a directory the index holds no file of', async () => {
  const root = await agedTree({ 'a.txt': 'needle here\n', 'only_hidden/.h': 'x\n' }, (r) =>
    mkdirSync(path.join(r, 'empty')),
  );
  const t = await trio(root);
  await prime(t, 'needle');
  writeFileSync(path.join(root, 'empty/new.txt'), 'needle in a directory that was empty\n');
  writeFileSync(path.join(root, 'only_hidden/new.txt'), 'needle beside a hidden file\n');
  assert.deepEqual(rgFiles(root, ['needle']), ['a.txt', 'empty/new.txt', 'only_hidden/new.txt']);
  assert.deepEqual((await diverging(t, { pattern: 'needle' })).diffs, []);
});

test('attack: a file un-ignored by a negation, new in a dir of ignored files', async () => {
  const root = await agedTree({
    '.gitignore': 'build/*\n!build/keep.txt\n',
    'build/junk.txt': 'junk\n',
    'a.txt': 'needle here\n',
  });
  const t = await trio(root);
  await prime(t, 'needle');
  writeFileSync(path.join(root, 'build/keep.txt'), 'needle kept\n');
  assert.deepEqual(rgFiles(root, ['needle']), ['a.txt', 'build/keep.txt']);
  assert.deepEqual((await diverging(t, { pattern: 'needle' })).diffs, []);
});

test('attack: a hard-linked file written through its other name', async () => {
  const outside = tempDir('mewcode-attack-outside-');
  const root = await agedTree({ 'a.txt': 'needle here\n', 'linked.txt': 'plain words\n' }, (r) =>
    linkSync(path.join(r, 'linked.txt'), path.join(outside, 'other-name.txt')),
  );
  const t = await trio(root);
  await prime(t, 'needle');
  writeFileSync(path.join(outside, 'other-name.txt'), 'needle through the other link\n');
  assert.deepEqual((await diverging(t, { pattern: 'needle' })).diffs, [], 'served without a walk');
  assert.deepEqual((await diverging(t, { pattern: 'needle', path: '.', context: 1 })).diffs, [], 'after a walk');
});

test('attack: a hard-linked .gitignore edited through its other name', async () => {
  const outside = tempDir('mewcode-attack-outside-');
  const root = await agedTree({ '.gitignore': '*.log\n', 'a.txt': 'needle\n', 'b.txt': 'needle b\n' }, (r) =>
    linkSync(path.join(r, '.gitignore'), path.join(outside, 'shared-ignore')),
  );
  const t = await trio(root);
  await prime(t, 'needle');
  writeFileSync(path.join(outside, 'shared-ignore'), '*.log\nb.txt\n');
  assert.deepEqual(rgFiles(root, ['needle']), ['a.txt']);
  assert.deepEqual((await diverging(t, { pattern: 'needle' })).diffs, [], 'a newly ignored file is reported');
});

test('attack: the root replaced by a copy (renamed away, copied back), then edited', async () => {
  const root = await agedTree({ 'a.txt': 'needle here\n', 'b.txt': 'plain b\n', 'sub/c.txt': 'plain c\n' });
  const t = await trio(root);
  await prime(t, 'needle');
  const away = path.join(tempDir('mewcode-attack-outside-'), 'old');
  renameSync(root, away);
  cpSync(away, root, { recursive: true, preserveTimestamps: true });
  await prime(t, 'needle'); // still the same answers: the copy is identical
  writeFileSync(path.join(root, 'b.txt'), 'needle b now\n');
  writeFileSync(path.join(root, 'sub/c.txt'), 'needle c now\n');
  assert.deepEqual((await diverging(t, { pattern: 'needle' })).diffs, [], 'the watches follow the old tree');
});

const python = spawnSync('python3', ['-c', 'import mmap'], { stdio: 'ignore' }).status === 0;
test('attack: a file written through a shared memory map', { skip: !python, ...todo('no inotify event') }, async () => {
  const root = await agedTree({ 'a.txt': 'needle here\n', 'mapped.txt': 'plain words here\n' });
  const t = await trio(root);
  await prime(t, 'needle');
  const file = JSON.stringify(path.join(root, 'mapped.txt'));
  const py = `import mmap\nf=open(${file},'r+b')\nm=mmap.mmap(f.fileno(),0)\nm[0:6]=b'needle'\nm.flush()\nm.close()\nf.close()`;
  execFileSync('python3', ['-c', py]);
  assert.deepEqual((await diverging(t, { pattern: 'needle' })).diffs, []);
});

test('attack: a hidden file named like the write lane temp, deleted', async () => {
  const root = await agedTree({ 'a.txt': 'needle here\n' });
  const t = await trio(root);
  writeFileSync(path.join(root, '.notes.1.0123abcd.mewcode-tmp'), 'x\n');
  await prime(t, 'needle');
  rmSync(path.join(root, '.notes.1.0123abcd.mewcode-tmp'));
  assert.deepEqual((await diverging(t, { pattern: 'needle' })).diffs, []);
});

test('attack: a search with a positive glob, then one without', async () => {
  // A positive glob is an override (rg's -g): it walks ignored and hidden files. Its walk is learned
  // as the directory's summary, which the next search without a glob reuses.
  const t = await trio(
    await agedTree({ '.gitignore': '*.log\n', 'a.txt': 'needle\n', 'c.log': 'needle logged\n', '.env.ts': 'needle\n' }),
  );
  assert.deepEqual((await diverging(t, { pattern: 'needle', glob: '*.log' })).diffs, []);
  assert.deepEqual((await diverging(t, { pattern: 'needle' })).diffs, [], 'an ignored file leaks into a plain search');
  assert.deepEqual(await ourFiles(t.warm, { pattern: 'needle' }), rgFiles(t.root, ['needle']));
  assert.deepEqual((await diverging(t, { pattern: 'needle', glob: '*.ts' })).diffs, [], 'the override is lost');
});

test('attack: a cache directory that cannot be made', async () => {
  const root = await agedTree({ 'a.txt': 'needle here\n' });
  const blocker = path.join(tempDir('mewcode-attack-cache-'), 'a-file');
  writeFileSync(blocker, 'not a directory\n');
  const warm = runtimeAt(root, { workers: 2, index: 'build', indexCacheDir: path.join(blocker, 'index') });
  const plain = runtimeAt(root, { workers: 2, index: 'off' });
  const got = await warm.call('grep', { pattern: 'needle' });
  assert.equal(got.content, (await plain.call('grep', { pattern: 'needle' })).content);
  const built = await warm.searchIndex?.build().catch((e: Error) => ({ threw: e.message }));
  assert.equal((built as { ok?: boolean }).ok, false, `build() answers, not throws: ${JSON.stringify(built)}`);
});

test('attack: a background build that cannot write its file', async () => {
  // A warm runtime over 2,000 files builds after its first search; /sys refuses the mkdir (EPERM).
  const root = tempDir('mewcode-attack-');
  const files: Record<string, string> = {};
  for (let i = 0; i < 2100; i++) files[`d${i % 20}/f${i}.txt`] = `w${i}\n`;
  writeTree(root, files);
  const child = spawn(
    process.execPath,
    ['--import', TSX, path.join(import.meta.dirname, 'attack_child.ts'), root, '/sys/mewcode-no-index'],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  let err = '';
  child.stdout.on('data', (c) => (out += c));
  child.stderr.on('data', (c) => (err += c));
  const code = await new Promise((ok) => child.on('close', ok));
  // The build fails before it reads the tree (its spool cannot be made), answered, never thrown.
  assert.match(out, /second search: (building|no index): scanned/);
  assert.equal(code, 0, err.slice(0, 600));
  assert.match(out, /f2002\.txt:1:w2002/);
  assert.match(out, /build asked again: could not write the index .*\/sys\/mewcode-no-index/);
});
