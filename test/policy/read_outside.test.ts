import assert from 'node:assert/strict';
import { existsSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { createGate } from '../../lib/policy/path_gate.ts';
import { runCli } from '../helpers/cli.ts';
import { runtimeAt } from '../helpers/runtime.ts';
import { tempDir, writeTree } from '../helpers/temp.ts';

// The root r, a granted directory x beside it, a sibling xy whose name extends x's, and a secret.
const outer = tempDir();
const root = path.join(outer, 'r');
const granted = path.join(outer, 'x');
writeTree(outer, {
  'r/a.txt': 'a',
  'x/f.txt': 'hello from x\n',
  'x/sub/g.txt': 'hello from sub\n',
  'x/key.pem': 'hello from a key\n',
  'x/hidden.txt': 'hello hidden\n',
  'xy/f.txt': 'sibling\n',
  'secret/s.txt': 'hello secret\n',
});
symlinkSync(path.join(outer, 'secret/s.txt'), path.join(granted, 'link.txt'));
symlinkSync(path.join(outer, 'secret'), path.join(granted, 'dirlink'));
symlinkSync(granted, path.join(outer, 'alias')); // a granted path given through a symlink

const gateWith = (grants: string[]) => {
  const g = createGate({ root, readGrants: grants });
  assert.ok(g.ok);
  return g.value;
};

// Each case: what it attacks or shows, the path, and the verdict (ok: the real path it resolves to).
const cases: [string, string, { ok: string } | { code: string }][] = [
  ['a file below the granted path', path.join(granted, 'f.txt'), { ok: path.join(granted, 'f.txt') }],
  ['a file deeper below it', path.join(granted, 'sub/g.txt'), { ok: path.join(granted, 'sub/g.txt') }],
  ['the granted directory itself', granted, { ok: granted }],
  ['a sibling whose name extends the grant (x → xy)', path.join(outer, 'xy/f.txt'), { code: 'outside_root' }],
  ['.. out of the grant', `${granted}/../secret/s.txt`, { code: 'outside_root' }],
  ['relative to the root, out of the grant', '../x/../secret/s.txt', { code: 'outside_root' }],
  ['a symlink in the grant to a file outside it', path.join(granted, 'link.txt'), { code: 'outside_root' }],
  ['a directory symlink in the grant to outside it', path.join(granted, 'dirlink/s.txt'), { code: 'outside_root' }],
  ['relative to the root, into the grant', '../x/f.txt', { ok: path.join(granted, 'f.txt') }],
  // As for the root: a path is first checked as written, and another spelling of the grant is not it.
  ['the grant spelled through another symlink', path.join(outer, 'alias/f.txt'), { code: 'outside_root' }],
];

for (const [what, input, expected] of cases) {
  test(`path gate, --allow-read=x outside the root: ${what}`, () => {
    const r = gateWith([granted]).check(input, 'read', { grants: true });
    if ('ok' in expected) {
      assert.ok(r.ok, r.ok ? '' : r.error.message);
      assert.equal(r.value, expected.ok);
    } else assert.equal(r.ok ? r.value : r.error.code, expected.code);
  });
}

test('path gate: a grant outside the root opens reads only when asked for, and never writes', () => {
  const g = gateWith([granted]);
  const f = path.join(granted, 'f.txt');
  assert.ok(g.check(f, 'read', { grants: true }).ok);
  const unasked = g.check(f, 'read');
  assert.equal(unasked.ok ? 'ok' : unasked.error.code, 'outside_root');
  const write = g.check(f, 'write', { grants: true });
  assert.equal(write.ok ? 'ok' : write.error.code, 'outside_root');
});

test('path gate: a grant given through a symlink is resolved as the root is, both spellings read', () => {
  const g = gateWith([path.join(outer, 'alias')]);
  for (const p of [path.join(outer, 'alias/f.txt'), path.join(granted, 'f.txt')]) {
    const r = g.check(p, 'read', { grants: true });
    assert.ok(r.ok, p);
    assert.equal(r.value, path.join(granted, 'f.txt'));
  }
  const out = g.check(path.join(outer, 'alias/link.txt'), 'read', { grants: true });
  assert.equal(out.ok ? 'ok' : out.error.code, 'outside_root');
});

test('runtime: --allow-read=x lets the read tools read x outside the root; writes, bash and a bare grant do not', async () => {
  const rt = runtimeAt(root, { workers: 0, permissions: { allow: { read: [granted], write: true, run: true } } });
  const read = await rt.call('read_file', { file_path: path.join(granted, 'f.txt') });
  assert.equal(read.isError, false, read.content);
  assert.match(read.content, /hello from x/);
  const grep = await rt.call('grep', { pattern: 'hello', path: granted, output_mode: 'files_with_matches' });
  assert.deepEqual(
    grep.content.split('\n').sort(),
    [
      path.join(granted, 'hidden.txt'),
      path.join(granted, 'f.txt'),
      path.join(granted, 'key.pem'),
      path.join(granted, 'sub/g.txt'),
    ].sort(),
  );
  const glob = await rt.call('glob', { pattern: '**/*.txt', path: granted });
  assert.match(glob.content, /sub\/g\.txt/);
  const write = await rt.call('write_file', { file_path: path.join(granted, 'new.txt'), content: 'x' });
  assert.equal(write.code, 'outside_root');
  assert.ok(!existsSync(path.join(granted, 'new.txt')));
  const bash = await rt.call('bash', { command: 'pwd', workdir: granted });
  assert.equal(bash.code, 'outside_root');
  const bare = runtimeAt(root, { workers: 0, permissions: { allow: { read: true } } });
  const refused = await bare.call('read_file', { file_path: path.join(granted, 'f.txt') });
  assert.equal(refused.code, 'outside_root');
});

test('runtime: denials keep their hold below a granted path outside the root, in reads and in searches', async () => {
  const home = tempDir();
  const rules = ['read_file(secret/**)', `read_file(${path.join(granted, 'key.pem')})`];
  writeTree(home, { '.mewcode/settings.json': JSON.stringify({ permissions: { deny: rules } }) });
  const rt = runtimeAt(root, {
    workers: 0,
    home,
    permissions: { allow: { read: [granted] }, deny: { read: [path.join(granted, 'hidden.txt')] } },
  });
  for (const f of ['hidden.txt', 'key.pem']) {
    const r = await rt.call('read_file', { file_path: path.join(granted, f) });
    assert.equal(r.code, 'permission_denied', f);
  }
  const grep = await rt.call('grep', { pattern: 'hello', path: granted, output_mode: 'files_with_matches' });
  assert.equal(
    grep.content,
    `${path.join(granted, 'f.txt')}\n${path.join(granted, 'sub/g.txt')}\n[note: skipped 2 files denied by the permissions]`,
  );
  const glob = await rt.call('glob', { pattern: '*', path: granted });
  assert.doesNotMatch(glob.content, /hidden|key\.pem/);
});

test('runtime: a deny rule whose glob could match outside the root skips the whole walk there, not the reads by name', async () => {
  const home = tempDir();
  writeTree(home, { '.mewcode/settings.json': JSON.stringify({ permissions: { deny: ['grep(**/*.pem)'] } }) });
  const rt = runtimeAt(root, { workers: 0, home, permissions: { allow: { read: [granted] } } });
  const grep = await rt.call('grep', { pattern: 'hello', path: granted, output_mode: 'files_with_matches' });
  assert.equal(grep.isError, false, grep.content);
  assert.doesNotMatch(grep.content, /key\.pem|f\.txt/);
  assert.match(grep.content, /denied by the permissions/);
  const pem = await rt.call('read_file', { file_path: path.join(granted, 'key.pem') });
  assert.equal(pem.code, 'permission_denied');
  const txt = await rt.call('read_file', { file_path: path.join(granted, 'f.txt') });
  assert.equal(txt.isError, false, txt.content);
});

test('mewcode read and grep: --allow-read=DIR reads a file outside the root', async () => {
  const f = path.join(granted, 'f.txt');
  const read = await runCli(['read', f, '--root', root, `--allow-read=${granted}`]);
  assert.equal(read.code, 0, read.err);
  assert.match(read.out, /hello from x/);
  const grep = await runCli(['grep', 'hello', f, '--root', root, `--allow-read=${granted}`]);
  assert.deepEqual([grep.code, grep.out], [0, 'hello from x\n']);
  const refused = await runCli(['read', f, '--root', root]);
  assert.equal(refused.code, 1);
  assert.match(refused.err, /is outside the root/);
});
