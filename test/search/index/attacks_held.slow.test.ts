/**
 * Attacks on the index's promise (a search served through it answers byte for byte as a full scan,
 * always fresh) that did not work, kept so they keep not working; attacks.slow.test.ts has the open breaks.
 * Real trees, the real runtime and CLI, compared with a runtime without an index and with ripgrep.
 */
import assert from 'node:assert/strict';
import {
  appendFileSync,
  existsSync,
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
import { runCli } from '../../helpers/cli.ts';
import { runtimeAt } from '../../helpers/runtime.ts';
import { tempDir, writeTree } from '../../helpers/temp.ts';
import { agedTree, assertSame, cli, diverging, ourFiles, prime, rgFiles, trio } from './attack_helpers.ts';
import { keysSwapped, shiftKeysInPlace } from './index_bytes.ts';

test('index attack held: external changes between searches, timestamps forged, racing the second', async () => {
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

test('index attack held: ignore-rule edits, hidden files, globs, types and the switches that widen a walk', async () => {
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
    ['.git/info/exclude ignores hid/', () => writeTree(root, { '.git/info/exclude': 'hid/\n' })],
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

test('index attack held: encodings, binary flips, CRLF and patterns the planner must read right', async () => {
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

test('index attack held: binary "text" (rg -a) searches the binary files the index never holds, served with or without a walk', async () => {
  const root = await agedTree({
    'a.txt': 'needle here\n',
    'bin.dat': Buffer.from('head\0needle inside\n'),
    'deep/more.bin': Buffer.from('\0\x01needle\nneedle again\n'),
    'no.bin': Buffer.from('zzz\0yyy\n'),
  });
  const t = await trio(root);
  const q = { pattern: 'needle', binary: 'text', head_limit: 0 };
  await prime(t, 'needle');
  const { how } = await diverging(t, q);
  assert.ok(
    how.some((h) => /served without a walk/.test(h)),
    how.join('; '),
  );
  for (const mode of ['content', 'files_with_matches', 'count'])
    assert.deepEqual((await diverging(t, { ...q, output_mode: mode })).diffs, [], mode);
  assert.deepEqual(await ourFiles(t.warm, q), rgFiles(root, ['-a', 'needle']));
  assert.deepEqual(rgFiles(root, ['-a', 'needle']), ['a.txt', 'bin.dat', 'deep/more.bin']);
});

test('index attack held: write-lane edits are searched at once', async () => {
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

test('index attack held: damaged, foreign and replaced index files are not trusted to skip', async () => {
  const root = await agedTree({ 'a.txt': 'needle here\n' });
  const t = await trio(root);
  const [name] = readdirSync(t.cache);
  const file = path.join(t.cache, name as string);
  const good = readFileSync(file);
  const damage: [string, () => void][] = [
    ['garbage', () => writeFileSync(file, 'garbage'.repeat(100))],
    ['truncated', () => writeFileSync(file, good.subarray(0, good.length >> 1))],
    ['empty', () => writeFileSync(file, '')],
    ['another version', () => writeFileSync(file, Buffer.concat([Buffer.from('MCIDX01\n'), good.subarray(8)]))],
    ['a directory', () => mkdirSync(file)],
    ['a symlink to nothing', () => symlinkSync(path.join(t.cache, 'none'), file)],
    // Every size and offset in order: found only when the key table is read, after the file table.
    ['a key table out of order', () => writeFileSync(file, keysSwapped(good))],
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
      // Found damaged after loading, the index is dropped as one that failed to load is (a warm
      // runtime then rebuilds it), not tried again by every search.
      if (what === 'a key table out of order')
        for (const again of [got, await rt.call('grep', { pattern: 'needle' })])
          assert.equal(again.meta?.index, 'no index: scanned', `${what} (${index})`);
      await rt.close();
    }
  }
});

test('index attack held: an index file changed in place after it was loaded is not trusted to skip', async () => {
  const root = await agedTree({ 'a.txt': 'needle here\n', 'b.txt': 'haystack straw\n' });
  const t = await trio(root);
  // The restarted runtime has its index loaded and in use: its keys are read from the file from now on.
  const first = await t.cold.call('grep', { pattern: 'needle' });
  assert.equal(first.content, (await t.plain.call('grep', { pattern: 'needle' })).content);
  assert.match(String(first.meta?.index), /^served/);
  const [name] = readdirSync(t.cache);
  shiftKeysInPlace(path.join(t.cache, name as string));
  // Keys not asked for before are read from the changed file: a search never answers from them.
  for (const pattern of ['straw', 'haystack', 'plain words', 'needle here']) {
    const got = await t.cold.call('grep', { pattern });
    assert.equal(got.content, (await t.plain.call('grep', { pattern })).content, pattern);
  }
});

test('index attack held: CLI — symlinked root, two builds at once, a root path reused by another tree', async () => {
  const root = await agedTree({ 'a.txt': 'needle here\n' });
  const cache = tempDir('mewcode-attack-cache-');
  const link = path.join(tempDir('mewcode-attack-link-'), 'root');
  symlinkSync(root, link);
  const grep = (cwd: string, extra: string[] = []) =>
    JSON.parse(cli(cwd, cache, ['call', 'grep', '{"pattern":"needle","head_limit":0}', '--json', ...extra]).out);
  const builds = await Promise.all([link, root].map((r) => runCli(['index', r], { env: { XDG_CACHE_HOME: cache } })));
  assert.deepEqual(
    builds.map((b) => b.code),
    [0, 0],
  );
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

test('index attack held: read denials differ between build and search; a warm runtime loads a CLI index via a symlinked cache', async () => {
  const root = await agedTree({ 'a.txt': 'needle here\n', 'secret/s.txt': 'needle secret\n' });
  const cache = tempDir('mewcode-attack-cache-');
  const q = { pattern: 'needle' };
  for (const [builtWith, searchedWith] of [
    [['secret'], []],
    [[], ['secret']],
  ]) {
    const builder = runtimeAt(root, { workers: 1, index: 'build', indexCacheDir: cache, deny: builtWith });
    assert.ok((await builder.searchIndex?.build())?.ok);
    const cold = runtimeAt(root, { workers: 1, index: 'existing', indexCacheDir: cache, deny: searchedWith });
    const plain = runtimeAt(root, { workers: 1, index: 'off', deny: searchedWith });
    const got = await cold.call('grep', q);
    assert.equal(got.content, (await plain.call('grep', q)).content, `built denying ${builtWith}`);
    assert.equal(got.meta?.index, 'served');
  }
  // The CLI builds; a file changes; a warm runtime then loads that index lazily and must see it.
  assert.equal(cli(root, cache, ['index', root]).code, 0);
  writeFileSync(path.join(root, 'hay/f5.txt'), 'needle after the CLI built\n');
  // Through a symlinked cache directory.
  const link = path.join(tempDir('mewcode-attack-link-'), 'cache');
  symlinkSync(path.join(cache, 'mewcode', 'index'), link);
  const warm = runtimeAt(root, { workers: 1, index: 'build', indexCacheDir: link });
  const plain = runtimeAt(root, { workers: 1, index: 'off' });
  const got = await warm.call('grep', q);
  assert.equal(got.content, (await plain.call('grep', q)).content);
  assert.match(String(got.meta?.index), /^served/);
});
