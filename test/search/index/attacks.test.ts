/**
 * Adversarial review of the index's promise — a search served through it answers byte for byte as a
 * full scan does, always fresh — attacked from outside, through the real interfaces, on real trees.
 * A test marked `todo` reproduces a break that is still open (it runs and reports, without failing
 * the run); the others are attacks that did not work and now guard the promise.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import {
  appendFileSync,
  existsSync,
  linkSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  truncateSync,
  unlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { REPO, runtimeAt, TSX, tempDir, writeTree } from '../../helpers.ts';
import { agedTree, assertSame, cli, diverging, ourFiles, prime, rgFiles, trio } from './attack_helpers.ts';

const todo = (what: string) => ({ todo: `index attack: ${what} — fix pending` });

test('attack: invert_match through the index', todo('invert_match skips the files that do not match'), async () => {
  const t = await trio(await agedTree({ 'a.txt': 'needle here\nother line\n', 'b.txt': 'nothing\n' }));
  const q = { pattern: 'needle', invert_match: true, output_mode: 'files_with_matches', head_limit: 0 };
  assert.deepEqual(await ourFiles(t.plain, q), rgFiles(t.root, ['-v', 'needle']), 'plain answers as rg -v');
  for (const mode of ['files_with_matches', 'content', 'count'])
    assert.deepEqual((await diverging(t, { ...q, output_mode: mode })).diffs, []);
});

test('attack: a binary file the byte prefilter cannot rule out', todo('binary note lost'), async () => {
  // `needle|omega` has no single required literal: the searcher counts every binary file as one
  // "that may match"; the index rules this one out, so the note goes missing.
  const t = await trio(await agedTree({ 'a.txt': 'needle here\n', 'bin.dat': Buffer.from('zzz\0yyy\n') }));
  assert.deepEqual((await diverging(t, { pattern: 'needle|omega' })).diffs, []);
});

test('attack: a new file in a directory the index holds no file of', todo('unwatched dir, no walk'), async () => {
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

test('attack: a file un-ignored by a negation, new in a dir of ignored files', todo('unwatched dir'), async () => {
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

test('attack: a hard-linked file written through its other name', todo('no inotify event'), async () => {
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

test('attack: a hidden file named like the write lane temp, deleted', todo('stale hidden count'), async () => {
  const root = await agedTree({ 'a.txt': 'needle here\n' });
  const t = await trio(root);
  writeFileSync(path.join(root, '.notes.1.0123abcd.mewcode-tmp'), 'x\n');
  await prime(t, 'needle');
  rmSync(path.join(root, '.notes.1.0123abcd.mewcode-tmp'));
  assert.deepEqual((await diverging(t, { pattern: 'needle' })).diffs, []);
});

test('attack: a cache directory that cannot be made', todo('every warm grep fails'), async () => {
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

test('attack: a background build that cannot write its file', todo('process dies'), async () => {
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
  assert.match(out, /second search: building/, 'the build ran');
  assert.equal(code, 0, err.slice(0, 600));
  assert.match(out, /f2002\.txt:1:w2002/);
});

test('held: external changes between searches, timestamps forged, racing the second', async () => {
  const root = await agedTree({
    'a.txt': 'needle here\n',
    'same.txt': 'aaaaaaaaaa\n',
    'renew.txt': 'bbbbbbbbbb\n',
    'victim.txt': 'plain\n',
    'over.txt': 'needle to be overwritten by a rename\n',
    'tolink.txt': 'plain\n',
    'todir.txt': 'plain\n',
    'trunc.txt': 'needle at the start\nmore\n',
    'grow.txt': 'small\n',
    'd/e/f.txt': 'plain\n',
  });
  const t = await trio(root);
  const at = (rel: string) => path.join(root, rel);
  const forge = (rel: string, content: string) => {
    const st = statSync(at(rel));
    writeFileSync(at(rel), content);
    utimesSync(at(rel), st.atime, st.mtime); // same size, same mtime: only ctime tells
  };
  const steps: [string, () => void][] = [
    ['same-size rewrite, mtime restored', () => forge('same.txt', 'needle aaa\n')],
    [
      'delete and recreate (new inode), mtime restored',
      () => {
        const st = statSync(at('renew.txt'));
        rmSync(at('renew.txt'));
        writeFileSync(at('renew.txt'), 'needle bbb\n');
        utimesSync(at('renew.txt'), st.atime, st.mtime);
      },
    ],
    [
      'rename over a file',
      () => {
        writeFileSync(at('incoming.tmp'), 'needle renamed in\n');
        renameSync(at('incoming.tmp'), at('victim.txt'));
      },
    ],
    ['rename over, losing the match', () => renameSync(at('hay/f1.txt'), at('over.txt'))],
    [
      'file replaced by a symlink to a match',
      () => {
        unlinkSync(at('tolink.txt'));
        symlinkSync(at('a.txt'), at('tolink.txt'));
      },
    ],
    [
      'file replaced by a directory',
      () => {
        unlinkSync(at('todir.txt'));
        writeTree(root, { 'todir.txt/inner.txt': 'needle inside\n' });
      },
    ],
    ['directory renamed', () => renameSync(at('d/e'), at('d/e2'))],
    ['truncation', () => truncateSync(at('trunc.txt'), 0)],
    [
      'huge append (past the 32 MiB indexed size)',
      () => appendFileSync(at('grow.txt'), `${'x'.repeat(33 << 20)}\nneedle\n`),
    ],
  ];
  const how = new Set<string>();
  await prime(t, 'needle');
  for (const [what, change] of steps) {
    change();
    for (const h of await assertSame(t, { pattern: 'needle' }, what)) how.add(h);
    for (const h of await assertSame(t, { pattern: 'needle', output_mode: 'count' }, what)) how.add(h);
  }
  assert.deepEqual(await ourFiles(t.plain, { pattern: 'needle' }), rgFiles(root, ['needle']));
  assert.ok(how.has('warm: served without a walk') && how.has('cold: served'), [...how].join());
});

test('held: ignore-rule edits, hidden files, globs, types and the switches that widen a walk', async () => {
  const root = await agedTree({
    '.gitignore': '*.log\n',
    'a.txt': 'needle here\n',
    'b.ts': 'const needle = 1;\n',
    'c.log': 'needle logged\n',
    'sub/d.txt': 'needle deep\n',
    '.hid/e.txt': 'needle hidden\n',
  });
  const t = await trio(root);
  const at = (rel: string) => path.join(root, rel);
  const queries = [
    { pattern: 'needle' },
    { pattern: 'needle', include_ignored: true },
    { pattern: 'needle', hidden: true },
    { pattern: 'needle', no_ignore: true },
    { pattern: 'needle', glob: '*.ts' },
    { pattern: 'needle', glob: ['!sub/**'] },
    { pattern: 'needle', type: 'ts' },
    { pattern: 'needle', path: 'sub' },
  ];
  const edits: [string, () => void][] = [
    ['.gitignore ignores a.txt', () => writeFileSync(at('.gitignore'), '*.log\na.txt\n')],
    ['.ignore un-ignores it', () => writeFileSync(at('.ignore'), '!a.txt\n')],
    ['sub/.gitignore ignores d.txt', () => writeFileSync(at('sub/.gitignore'), 'd.txt\n')],
    ['.mewcodeignore ignores b.ts', () => writeFileSync(at('.mewcodeignore'), 'b.ts\n')],
    ['.mewcodeignore removed', () => rmSync(at('.mewcodeignore'))],
    ['.gitignore un-ignores *.log', () => writeFileSync(at('.gitignore'), '')],
    ['a hidden file made visible', () => renameSync(at('.hid'), at('hid'))],
  ];
  await prime(t, 'needle');
  for (const [what, edit] of [['nothing', () => {}] as [string, () => void], ...edits]) {
    edit();
    for (const q of queries) await assertSame(t, q, what);
    // rg does not know .mewcodeignore: it is told.
    const told = existsSync(at('.mewcodeignore')) ? ['--ignore-file', '.mewcodeignore'] : [];
    assert.deepEqual(await ourFiles(t.plain, { pattern: 'needle' }), rgFiles(root, [...told, 'needle']), what);
  }
});

test('held: encodings, binary flips, CRLF and patterns the planner must read right', async () => {
  const utf16 = (s: string, be: boolean) =>
    be
      ? Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(s, 'utf16le').swap16()])
      : Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(s, 'utf16le')]);
  const root = await agedTree({
    'le.txt': utf16('needle in UTF-16LE\n', false),
    'be.txt': utf16('needle in UTF-16BE\n', true),
    'crlf.txt': 'foo bar\r\nbaz qux\r\n',
    'greek.txt': 'ΣΊΣΥΦΟΣ σίσυφος\n',
    'kelvin.txt': 'the \u212Aelvin \u212Aey, cla\u017F\u017F\n',
    'turns_binary.txt': 'needle text\n',
    'turns_text.txt': Buffer.from('needle\0binary\n'),
    'a.txt': 'needle\nneedlee here\nnedle\n',
  });
  const t = await trio(root);
  writeFileSync(path.join(root, 'turns_binary.txt'), Buffer.from('needle\0now binary\n'));
  writeFileSync(path.join(root, 'turns_text.txt'), 'needle now text\n');
  writeFileSync(path.join(root, 'new16.txt'), utf16('needle arrives wide\n', false));
  const patterns = [
    'needle',
    'ne(e|)dle',
    'ne{2,3}dle',
    '\\bneedle\\b',
    '[n]eedle',
    '\\x6eeedle',
    '(?x) n e e d l e',
    '(?i)KELVIN',
    '(?i)key',
    '(?i)CLASS',
    'x(?i)KE(?-i)y',
    '(?i)σίσυφος',
    '(?i)ΣΊΣΥΦΟΣ',
    'σίσυφος',
    'baz qux$',
    '(foo|baz) (bar|qux)',
    'ne',
    '',
  ];
  for (const pattern of patterns) {
    await assertSame(t, { pattern }, pattern);
    await assertSame(t, { pattern, case_insensitive: true }, `-i ${pattern}`);
  }
  for (const pattern of ['bar\\r?\\nbaz', 'here\\nnedle', 'e\\nn', 'foo bar\\r\\nbaz qux'])
    await assertSame(t, { pattern, multiline: true }, `-U ${pattern}`);
  for (const pattern of ['needle', '(?i)kelvin', 'σίσυφος', '(foo|baz) (bar|qux)'])
    assert.deepEqual(await ourFiles(t.plain, { pattern }), rgFiles(root, ['--', pattern]), `rg ${pattern}`);
});

test('held: write-lane edits are searched at once', async () => {
  const root = await agedTree({
    'a.txt': 'needle here\n',
    'b.txt': 'plain\n',
    'c.txt': 'plain c\n',
    'd.txt': 'needle d\n',
  });
  const t = await trio(root);
  await prime(t, 'needle');
  const write = async (name: string, input: Record<string, unknown>) => {
    const r = await t.warm.call(name, input);
    assert.ok(!r.isError, r.content);
    await assertSame(t, { pattern: 'needle' }, name);
  };
  for (const f of ['b.txt', 'c.txt', 'd.txt']) await t.warm.call('read_file', { file_path: f });
  await write('edit_file', { file_path: 'b.txt', old_string: 'plain', new_string: 'needle edited' });
  await write('write_file', { file_path: 'new/w.txt', content: 'needle written\n' });
  const move = '*** Update File: c.txt\n*** Move to: moved/c2.txt\n@@\n-plain c\n+needle patched\n';
  await write('apply_patch', { patch: `*** Begin Patch\n${move}*** Delete File: d.txt\n*** End Patch\n` });
});

test('held: damaged, foreign and replaced index files are not trusted to skip', async () => {
  const root = await agedTree({ 'a.txt': 'needle here\n' });
  const t = await trio(root);
  const [name] = readdirSync(t.cache);
  const file = path.join(t.cache, name as string);
  const good = readFileSync(file);
  const damage: [string, () => void][] = [
    ['garbage', () => writeFileSync(file, 'garbage'.repeat(100))],
    ['truncated', () => writeFileSync(file, good.subarray(0, good.length >> 1))],
    ['empty', () => writeFileSync(file, '')],
    ['another version', () => writeFileSync(file, Buffer.concat([Buffer.from('MCIDX02\n'), good.subarray(8)]))],
    ['a directory', () => mkdirSync(file)],
    ['a symlink to nothing', () => symlinkSync(path.join(t.cache, 'none'), file)],
  ];
  writeFileSync(path.join(root, 'hay/f3.txt'), 'needle while the index was away\n');
  for (const [what, spoil] of damage) {
    rmSync(file, { recursive: true, force: true });
    spoil();
    for (const index of ['existing', 'build'] as const) {
      const rt = runtimeAt(root, { workers: 1, index, indexCacheDir: t.cache });
      const got = await rt.call('grep', { pattern: 'needle' });
      assert.equal(got.content, (await t.plain.call('grep', { pattern: 'needle' })).content, `${what} (${index})`);
      assert.doesNotMatch(String(got.meta?.index), /^served/, `${what} (${index}) was not served`);
      await rt.close();
    }
  }
});

test('held: CLI — symlinked root, two builds at once, a root path reused by another tree', async () => {
  const root = await agedTree({ 'a.txt': 'needle here\n' });
  const cache = tempDir('mewcode-attack-cache-');
  const link = path.join(tempDir('mewcode-attack-link-'), 'root');
  symlinkSync(root, link);
  const grep = (cwd: string, extra: string[] = []) =>
    JSON.parse(cli(cwd, cache, ['grep', 'needle', '--json', ...extra]).out);
  const builds = await Promise.all(
    [link, root].map(
      (r) =>
        new Promise<number | null>((ok) =>
          spawn(process.execPath, ['--import', TSX, path.join(REPO, 'mewcode.ts'), 'index', r], {
            env: { ...process.env, XDG_CACHE_HOME: cache },
            stdio: 'ignore',
          }).on('close', ok),
        ),
    ),
  );
  assert.deepEqual(builds, [0, 0]);
  assert.equal(readdirSync(path.join(cache, 'mewcode', 'index')).length, 1, 'one index: the real path');
  for (const cwd of [root, link]) {
    const a = grep(cwd);
    assert.equal(a.meta.index, 'served', cwd);
    assert.equal(a.content, grep(cwd, ['--no-index']).content);
  }
  // The tree goes; another takes its path, files of the same names and sizes, mtimes copied.
  const old = statSync(path.join(root, 'hay/f2.txt'));
  rmSync(root, { recursive: true, force: true });
  writeTree(root, { 'a.txt': 'plain here\n', 'hay/f2.txt': 'needle 2 plain words\n' });
  utimesSync(path.join(root, 'hay/f2.txt'), old.atime, old.mtime);
  const reused = grep(root);
  assert.equal(reused.content, grep(root, ['--no-index']).content);
  assert.match(reused.content, /hay\/f2\.txt:1:needle/);
});
