import assert from 'node:assert/strict';
import {
  chownSync,
  linkSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { runtimeAt } from '../helpers/runtime.ts';
import { tempDir, writeTree } from '../helpers/temp.ts';

const setup = (files: Record<string, string | Buffer> = {}, allowWrite: boolean | string[] = true) => {
  const root = tempDir();
  writeTree(root, files);
  const rt = runtimeAt(root, { workers: 0, allowWrite });
  return { root, rt, at: (p: string) => path.join(root, p) };
};
const noTemps = (dir: string) =>
  assert.deepEqual(
    readdirSync(dir).filter((n) => n.endsWith('.mewcode-tmp')),
    [],
  );

test('write_file: creates a file and its missing parent directories', async () => {
  const { rt, at, root } = setup();
  const r = await rt.call('write_file', { file_path: 'a/b/c.txt', content: 'héllo\nworld\n' });
  assert.deepEqual([r.isError, r.content], [false, 'Created "a/b/c.txt" (13 bytes, 2 lines).']);
  assert.equal(readFileSync(at('a/b/c.txt'), 'utf8'), 'héllo\nworld\n');
  noTemps(path.join(root, 'a/b'));
});

test('write_file: replacing a file needs a read first, and then works without another', async () => {
  const { rt, at } = setup({ 'x.txt': 'old\n' });
  const r = await rt.call('write_file', { file_path: 'x.txt', content: 'new\n' });
  assert.equal(r.code, 'not_read');
  assert.match(
    r.content,
    /^"x\.txt" has not been read in this session, so it cannot be changed yet: read it with read_file first/,
  );
  assert.equal(readFileSync(at('x.txt'), 'utf8'), 'old\n');
  await rt.call('read_file', { file_path: 'x.txt', limit: 1 });
  const w = await rt.call('write_file', { file_path: 'x.txt', content: 'new\n' });
  assert.match(
    w.content,
    /^Overwrote "x\.txt" \(4 bytes, 1 lines; was 4 bytes\)\.\n--- a\/x\.txt\n\+\+\+ b\/x\.txt\n@@ -1,1 \+1,1 @@\n-old\n\+new$/,
  );
  const again = await rt.call('write_file', { file_path: 'x.txt', content: 'newer\n' });
  assert.equal(again.isError, false, 'its own write counts as the latest read');
});

test('write_file: a change by someone else since the read is stale, and nothing is written', async () => {
  const { rt, at } = setup({ 'x.txt': 'one\n' });
  await rt.call('read_file', { file_path: 'x.txt' });
  writeFileSync(at('x.txt'), 'two and more\n');
  const r = await rt.call('write_file', { file_path: 'x.txt', content: 'mine\n' });
  assert.equal(r.code, 'stale');
  assert.match(
    r.content,
    /^"x\.txt" changed since it was last read \(4 → 13 bytes; modified .*\); nothing was written\. Read it again with read_file/,
  );
  assert.equal(readFileSync(at('x.txt'), 'utf8'), 'two and more\n');
});

test('write_file: a touch that keeps the content is not stale; a same-size change with the mtime put back is', async () => {
  const { rt, at } = setup({ 'x.txt': 'aaaa\n' });
  await rt.call('read_file', { file_path: 'x.txt' });
  utimesSync(at('x.txt'), new Date(), new Date(Date.now() + 5000)); // a formatter re-saving the same bytes
  assert.equal((await rt.call('write_file', { file_path: 'x.txt', content: 'b\n' })).isError, false);
  await rt.call('read_file', { file_path: 'x.txt' });
  const before = statSync(at('x.txt'));
  writeFileSync(at('x.txt'), 'c\n'); // same size
  utimesSync(at('x.txt'), before.atime, before.mtime); // mtime restored (touch -r); ctime moves anyway
  assert.equal((await rt.call('write_file', { file_path: 'x.txt', content: 'd\n' })).code, 'stale');
});

test('write_file: keeps mode, owner, BOM, CRLF and UTF-16', async () => {
  const { rt, at } = setup({
    'run.sh': '#!/bin/sh\necho hi\n',
    'secret.txt': 'k\n',
    'bom.txt': Buffer.from([0xef, 0xbb, 0xbf, 0x61, 0x0a]),
    'crlf.txt': 'a\r\nb\r\n',
    'u16.txt': Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('a\r\n', 'utf16le')]),
  });
  const { chmodSync } = await import('node:fs');
  chmodSync(at('run.sh'), 0o755);
  chmodSync(at('secret.txt'), 0o600);
  const asRoot = process.getuid?.() === 0;
  if (asRoot) chownSync(at('secret.txt'), 1234, 5678);
  for (const f of ['run.sh', 'secret.txt', 'bom.txt', 'crlf.txt', 'u16.txt'])
    await rt.call('read_file', { file_path: f });
  await rt.call('write_file', { file_path: 'run.sh', content: '#!/bin/sh\necho bye\n' });
  await rt.call('write_file', { file_path: 'secret.txt', content: 'k2\n' });
  const bom = await rt.call('write_file', { file_path: 'bom.txt', content: 'b\n' });
  const crlf = await rt.call('write_file', { file_path: 'crlf.txt', content: 'x\ny\n' });
  const u16 = await rt.call('write_file', { file_path: 'u16.txt', content: 'ü\n' });
  assert.equal(statSync(at('run.sh')).mode & 0o777, 0o755);
  assert.equal(statSync(at('secret.txt')).mode & 0o777, 0o600, 'a 0600 file is not widened');
  if (asRoot) assert.deepEqual([statSync(at('secret.txt')).uid, statSync(at('secret.txt')).gid], [1234, 5678]);
  assert.deepEqual([...readFileSync(at('bom.txt'))], [0xef, 0xbb, 0xbf, 0x62, 0x0a]);
  assert.match(bom.content, /kept BOM\)/);
  assert.equal(readFileSync(at('crlf.txt'), 'latin1'), 'x\r\ny\r\n');
  assert.match(crlf.content, /kept CRLF\)/);
  assert.deepEqual(
    readFileSync(at('u16.txt')),
    Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('ü\r\n', 'utf16le')]),
  );
  assert.match(u16.content, /kept BOM, UTF-16LE, CRLF\)/);
});

test('write_file: writes through a symlink to its target and keeps the link; a link out of the root is refused', async () => {
  const outside = tempDir();
  writeFileSync(path.join(outside, 'target.txt'), 'outside\n');
  const { rt, at } = setup({ 'real.txt': 'inside\n' });
  symlinkSync('real.txt', at('link.txt'));
  symlinkSync(path.join(outside, 'target.txt'), at('out.txt'));
  symlinkSync(path.join(outside, 'missing.txt'), at('dangling.txt'));
  await rt.call('read_file', { file_path: 'link.txt' });
  assert.equal((await rt.call('write_file', { file_path: 'link.txt', content: 'changed\n' })).isError, false);
  assert.equal(readFileSync(at('real.txt'), 'utf8'), 'changed\n');
  assert.ok(lstatSync(at('link.txt')).isSymbolicLink());
  assert.equal((await rt.call('write_file', { file_path: 'out.txt', content: 'x' })).code, 'outside_root');
  assert.equal((await rt.call('write_file', { file_path: 'dangling.txt', content: 'x' })).code, 'outside_root');
  assert.deepEqual(readdirSync(outside), ['target.txt']);
  assert.equal(readFileSync(path.join(outside, 'target.txt'), 'utf8'), 'outside\n');
});

test('write_file: a hardlinked file is replaced, and the other link keeps its bytes', async () => {
  const outside = tempDir();
  const { rt, at } = setup({ 'f.txt': 'shared\n' });
  linkSync(at('f.txt'), path.join(outside, 'h.txt'));
  await rt.call('read_file', { file_path: 'f.txt' });
  await rt.call('write_file', { file_path: 'f.txt', content: 'mine\n' });
  assert.equal(readFileSync(path.join(outside, 'h.txt'), 'utf8'), 'shared\n');
  assert.equal(readFileSync(at('f.txt'), 'utf8'), 'mine\n');
});

test('write_file: .git internals and MewCode settings are protected unless granted by name', async () => {
  const { rt, at, root } = setup({ '.git/config': '[core]\n', '.mewcode/settings.json': '{}' });
  for (const p of ['.git/config', '.git/hooks/pre-commit', '.mewcode/settings.json', '.mewcode/settings.local.json']) {
    const r = await rt.call('write_file', { file_path: p, content: 'x' });
    assert.equal(r.code, 'permission_denied', p);
    assert.match(r.content, /protected path/);
  }
  const granted = runtimeAt(root, { workers: 0, allowWrite: ['.git/hooks'] });
  assert.equal(
    (await granted.call('write_file', { file_path: '.git/hooks/pre-commit', content: '#!/bin/sh\n' })).isError,
    false,
  );
  assert.equal(
    (await granted.call('write_file', { file_path: '.git/config', content: 'x' })).code,
    'permission_denied',
  );
  assert.equal(readFileSync(at('.git/config'), 'utf8'), '[core]\n');
  const plain = runtimeAt(root, { workers: 0, allowWrite: ['src'] });
  assert.match(
    (await plain.call('write_file', { file_path: 'other.txt', content: 'x' })).content,
    /there is no prompt to ask\. Grant it with createRuntime's permissions: \{ allow: \{ write: \["other\.txt"\] \} \}\./,
  );
  assert.equal((await plain.call('write_file', { file_path: 'src/ok.txt', content: 'x' })).isError, false);
  const none = runtimeAt(root, { workers: 0 });
  assert.equal((await none.call('write_file', { file_path: 'z.txt', content: 'x' })).code, 'permission_denied');
});

test('write_file: a path that is a directory, or an oversized content, is refused', async () => {
  const { rt, at } = setup();
  mkdirSync(at('d'));
  assert.equal((await rt.call('write_file', { file_path: 'd', content: 'x' })).code, 'is_directory');
});
