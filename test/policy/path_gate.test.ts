import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { createGate, type PathKind } from '../../lib/policy/path_gate.ts';
import { tempDir, writeTree } from '../helpers.ts';

// One outer directory holds the root, a sibling whose name extends the root's, and outside files.
const outer = tempDir();
const root = path.join(outer, 'r');
const evil = path.join(outer, 'r-evil');
const outside = path.join(outer, 'outside');
writeTree(root, {
  'a.txt': 'a',
  'a..go': 'x',
  '..a.go': 'x',
  '...': 'x',
  '.env..bak': 'x',
  'foo..bar/x.ts': 'x',
  'sub/key': 'k',
  'secrets/pub/x': 's',
  'secrets/top': 's',
});
writeTree(evil, { x: 'evil' });
writeTree(outside, { passwd: 'root:x:0:0' });
symlinkSync(path.join(outside, 'passwd'), path.join(root, 'link'));
symlinkSync(outside, path.join(root, 'dirlink'));
symlinkSync(path.join(outside, 'missing'), path.join(root, 'dangling'));
symlinkSync(path.join(root, 'loop_b'), path.join(root, 'loop_a'));
symlinkSync(path.join(root, 'loop_a'), path.join(root, 'loop_b'));
symlinkSync('/', path.join(root, 'rootlink'));
symlinkSync('.', path.join(root, 'self'));
symlinkSync(evil, path.join(root, 'evillink'));
symlinkSync('sub/key', path.join(root, 'inner_link'));
execFileSync('mkfifo', [path.join(root, 'fifo')]);
const weird = ['new\nline', 'rlo\u202etxt.exe', 'ansi\u001b[31mred'];
for (const w of weird) writeFileSync(path.join(root, w), 'x');

const gate = (() => {
  const g = createGate({ root, deny: ['secrets'] });
  assert.ok(g.ok);
  return g.value;
})();

type Expect = { ok: string } | { code: string; message?: RegExp };
const cases: [string, string, string, PathKind, Expect][] = [
  [
    'P-1',
    'parent escape',
    '../../etc/passwd',
    'read',
    {
      code: 'outside_root',
      message: /^Cannot read "\.\.\/\.\.\/etc\/passwd": ".*\/etc\/passwd" is outside the root "/,
    },
  ],
  ['P-1', 'escape through a subdirectory', 'sub/../../x', 'read', { code: 'outside_root' }],
  ['P-1', 'escape on write', '../x', 'write', { code: 'outside_root', message: /^Cannot write "\.\.\/x"/ }],
  ['P-2', 'absolute outside', '/etc/passwd', 'read', { code: 'outside_root' }],
  ['P-2', 'absolute inside', path.join(root, 'sub/key'), 'read', { ok: 'sub/key' }],
  ['P-3', 'denied directory itself (equal path)', 'secrets', 'read', { code: 'permission_denied' }],
  ['P-3', 'below a denied directory, at any depth', 'secrets/pub/x', 'read', { code: 'permission_denied' }],
  ['P-3', 'denied on write too', 'secrets/new', 'write', { code: 'permission_denied' }],
  ['P-4', 'sibling prefix', '../r-evil/x', 'read', { code: 'outside_root' }],
  ['P-4', 'sibling prefix, absolute', path.join(evil, 'x'), 'read', { code: 'outside_root' }],
  ['P-4', 'symlink to a sibling prefix', 'evillink/x', 'read', { code: 'outside_root' }],
  ['P-5', 'two dots inside a name', 'a..go', 'read', { ok: 'a..go' }],
  ['P-5', 'leading two dots', '..a.go', 'read', { ok: '..a.go' }],
  ['P-5', 'three dots', '...', 'read', { ok: '...' }],
  ['P-5', 'dots before an extension', '.env..bak', 'write', { ok: '.env..bak' }],
  ['P-5', 'dots in a directory name', 'foo..bar/x.ts', 'read', { ok: 'foo..bar/x.ts' }],
  [
    'P-6',
    'symlinked file to outside, read',
    'link',
    'read',
    { code: 'outside_root', message: /resolves through a symlink to ".*outside\/passwd", outside the root/ },
  ],
  ['P-6', 'symlinked file to outside, write', 'link', 'write', { code: 'outside_root' }],
  ['P-6', 'symlink inside the root is followed', 'inner_link', 'read', { ok: 'sub/key' }],
  ['P-7', 'symlinked parent directory', 'dirlink/passwd', 'read', { code: 'outside_root' }],
  ['P-7', 'new file under a symlinked parent', 'dirlink/new.txt', 'write', { code: 'outside_root' }],
  ['P-8', 'dangling symlink to outside, write', 'dangling', 'write', { code: 'outside_root' }],
  ['P-8', 'dangling symlink to outside, read', 'dangling', 'read', { code: 'outside_root' }],
  ['P-9', 'symlink loop', 'loop_a', 'read', { code: 'io', message: /symlink loop/ }],
  ['P-9', 'symlink loop below', 'loop_a/x', 'write', { code: 'io', message: /symlink loop/ }],
  ['P-10', 'symlink to /', 'rootlink/etc/passwd', 'read', { code: 'outside_root' }],
  ['P-10', 'symlink to the root itself', 'self/a.txt', 'read', { ok: 'a.txt' }],
  ['P-15', 'doubled slashes', './sub//key', 'read', { ok: 'sub/key' }],
  ['P-15', 'dot segments', 'sub/./key', 'read', { ok: 'sub/key' }],
  ['P-15', 'trailing slash', 'sub/', 'read', { ok: 'sub' }],
  ['P-15', 'case is significant on Linux', 'SUB/key', 'read', { ok: 'SUB/key' }],
  ['P-18', 'NUL byte', 'a\0b', 'read', { code: 'invalid_args', message: /NUL byte/ }],
  ['P-19', '256-byte name', 'n'.repeat(256), 'write', { code: 'io', message: /too long/ }],
  ['P-19', '6,000-character path', 'd/'.repeat(3000), 'read', { code: 'io', message: /too long/ }],
  ['P-20', 'newline in a name', 'new\nline', 'read', { ok: 'new\nline' }],
  ['P-20', 'bidi override in a name', 'rlo\u202etxt.exe', 'read', { ok: 'rlo\u202etxt.exe' }],
  [
    'P-20',
    'escape codes in an outside name are escaped',
    '../\u001b[2Jx\u202e',
    'read',
    { code: 'outside_root', message: /"\.\.\/\\u001b\[2Jx\\u202e"/ },
  ],
  ['P-22', 'empty path', '', 'read', { code: 'invalid_args', message: /empty/ }],
  ['P-22', 'dot is the root', '.', 'read', { ok: '.' }],
  ['P-22', 'tilde is not expanded', '~/.ssh/id_rsa', 'read', { ok: '~/.ssh/id_rsa' }],
  ['P-17', 'a FIFO', 'fifo', 'read', { code: 'not_a_file', message: /named pipe/ }],
];

for (const [id, what, input, kind, expected] of cases) {
  test(`sandbox ${id}: ${what} (${kind} ${JSON.stringify(input).slice(0, 40)})`, () => {
    const r = gate.check(input, kind);
    if ('ok' in expected) {
      assert.ok(r.ok, r.ok ? '' : r.error.message);
      assert.equal(gate.display(r.value), expected.ok);
    } else {
      assert.ok(!r.ok, `expected ${expected.code}, got ${r.ok ? r.value : ''}`);
      assert.equal(r.error.code, expected.code, r.error.message);
      if (expected.message) assert.match(r.error.message, expected.message);
      assert.ok(
        !/[\n\u202e]/.test(r.error.message) && !r.error.message.includes('\u001b'),
        'messages never carry raw control characters',
      );
    }
  });
}

test('sandbox: /proc and device files are refused even when the root is /', () => {
  const g = createGate({ root: '/' });
  assert.ok(g.ok);
  for (const p of [
    '/proc/self/environ',
    '/proc/self/mem',
    '/proc/self/root/etc/shadow',
    `/proc/${process.ppid}/environ`,
    '/sys/kernel/notes',
  ]) {
    const r = g.value.check(p, 'read');
    assert.ok(!r.ok && r.error.code === 'permission_denied', p);
  }
  for (const p of ['/dev/null', '/dev/zero', '/dev/urandom']) {
    const r = g.value.check(p, 'read');
    assert.ok(!r.ok && r.error.code === 'not_a_file', p);
    assert.match(r.ok ? '' : r.error.message, /character device, not a regular file/);
  }
  assert.ok(g.value.check('/etc/hostname', 'read').ok, 'ordinary files follow the normal rules');
});

test('sandbox: a root given through a symlink accepts paths spelled through it', () => {
  const alias = path.join(outer, 'alias');
  symlinkSync(root, alias);
  const g = createGate({ root: alias });
  assert.ok(g.ok);
  assert.equal(g.value.root, root);
  const r = g.value.check(path.join(alias, 'sub/key'), 'read');
  assert.ok(r.ok);
  assert.equal(r.value, path.join(root, 'sub/key'));
});

test('sandbox: extra read roots are readable but never writable', () => {
  const spill = path.join(outer, 'spill');
  mkdirSync(spill);
  writeFileSync(path.join(spill, 'out.txt'), 'x');
  const g = createGate({ root, extraReadRoots: [spill] });
  assert.ok(g.ok);
  assert.ok(g.value.check(path.join(spill, 'out.txt'), 'read').ok);
  const w = g.value.check(path.join(spill, 'out.txt'), 'write');
  assert.ok(!w.ok && w.error.code === 'outside_root');
});

test('sandbox: a missing or non-directory root is a clear error', () => {
  const missing = createGate({ root: path.join(outer, 'nope') });
  assert.ok(!missing.ok && /does not exist/.test(missing.error.message));
  const file = createGate({ root: path.join(root, 'a.txt') });
  assert.ok(!file.ok && /is not a directory/.test(file.error.message));
});
