import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { createGate, type PathKind } from '../../lib/policy/path_gate.ts';
import { runtimeAt } from '../helpers/runtime.ts';
import { tempDir, writeTree } from '../helpers/temp.ts';

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
  const g = createGate({ root });
  assert.ok(g.ok);
  return g.value;
})();

type Expect = { ok: string } | { code: string; message?: RegExp };
// Each case: the attack or edge it covers, the case, the path, read or write, and the verdict.
const cases: [string, string, string, PathKind, Expect][] = [
  [
    'escape with ..',
    'parent escape',
    '../../etc/passwd',
    'read',
    {
      code: 'outside_root',
      message: /^Cannot read "\.\.\/\.\.\/etc\/passwd": ".*\/etc\/passwd" is outside the root "/,
    },
  ],
  ['escape with ..', 'escape through a subdirectory', 'sub/../../x', 'read', { code: 'outside_root' }],
  ['escape with ..', 'escape on write', '../x', 'write', { code: 'outside_root', message: /^Cannot write "\.\.\/x"/ }],
  ['absolute path', 'absolute outside', '/etc/passwd', 'read', { code: 'outside_root' }],
  ['absolute path', 'absolute inside', path.join(root, 'sub/key'), 'read', { ok: 'sub/key' }],
  ['sibling prefix (r-evil beside r)', 'relative', '../r-evil/x', 'read', { code: 'outside_root' }],
  ['sibling prefix (r-evil beside r)', 'absolute', path.join(evil, 'x'), 'read', { code: 'outside_root' }],
  ['sibling prefix (r-evil beside r)', 'through a symlink', 'evillink/x', 'read', { code: 'outside_root' }],
  ['dots that are not ..', 'two dots inside a name', 'a..go', 'read', { ok: 'a..go' }],
  ['dots that are not ..', 'leading two dots', '..a.go', 'read', { ok: '..a.go' }],
  ['dots that are not ..', 'three dots', '...', 'read', { ok: '...' }],
  ['dots that are not ..', 'dots before an extension', '.env..bak', 'write', { ok: '.env..bak' }],
  ['dots that are not ..', 'dots in a directory name', 'foo..bar/x.ts', 'read', { ok: 'foo..bar/x.ts' }],
  [
    'symlinked file',
    'symlinked file to outside, read',
    'link',
    'read',
    { code: 'outside_root', message: /resolves through a symlink to ".*outside\/passwd", outside the root/ },
  ],
  ['symlinked file', 'symlinked file to outside, write', 'link', 'write', { code: 'outside_root' }],
  ['symlinked file', 'symlink inside the root is followed', 'inner_link', 'read', { ok: 'sub/key' }],
  ['symlinked parent directory', 'a file under it', 'dirlink/passwd', 'read', { code: 'outside_root' }],
  ['symlinked parent directory', 'a new file under it', 'dirlink/new.txt', 'write', { code: 'outside_root' }],
  ['dangling symlink', 'dangling symlink to outside, write', 'dangling', 'write', { code: 'outside_root' }],
  ['dangling symlink', 'dangling symlink to outside, read', 'dangling', 'read', { code: 'outside_root' }],
  ['symlink loop', 'the link itself', 'loop_a', 'read', { code: 'io', message: /symlink loop/ }],
  ['symlink loop', 'below it', 'loop_a/x', 'write', { code: 'io', message: /symlink loop/ }],
  ['symlink to / or to the root', 'symlink to /', 'rootlink/etc/passwd', 'read', { code: 'outside_root' }],
  ['symlink to / or to the root', 'symlink to the root itself', 'self/a.txt', 'read', { ok: 'a.txt' }],
  ['other spellings of a path', 'doubled slashes', './sub//key', 'read', { ok: 'sub/key' }],
  ['other spellings of a path', 'dot segments', 'sub/./key', 'read', { ok: 'sub/key' }],
  ['other spellings of a path', 'trailing slash', 'sub/', 'read', { ok: 'sub' }],
  ['other spellings of a path', 'case is significant on Linux', 'SUB/key', 'read', { ok: 'SUB/key' }],
  ['NUL byte', 'inside a name', 'a\0b', 'read', { code: 'invalid_args', message: /NUL byte/ }],
  ['over the length limits', '256-byte name', 'n'.repeat(256), 'write', { code: 'io', message: /too long/ }],
  ['over the length limits', '6,000-character path', 'd/'.repeat(3000), 'read', { code: 'io', message: /too long/ }],
  ['control characters in names', 'newline in a name', 'new\nline', 'read', { ok: 'new\nline' }],
  ['control characters in names', 'bidi override in a name', 'rlo\u202etxt.exe', 'read', { ok: 'rlo\u202etxt.exe' }],
  [
    'control characters in names',
    'escape codes in an outside name are escaped',
    '../\u001b[2Jx\u202e',
    'read',
    { code: 'outside_root', message: /"\.\.\/\\u001b\[2Jx\\u202e"/ },
  ],
  ['empty, dot and tilde', 'empty path', '', 'read', { code: 'invalid_args', message: /empty/ }],
  ['empty, dot and tilde', 'dot is the root', '.', 'read', { ok: '.' }],
  ['empty, dot and tilde', 'tilde is not expanded', '~/.ssh/id_rsa', 'read', { ok: '~/.ssh/id_rsa' }],
  ['special file', 'a FIFO', 'fifo', 'read', { code: 'not_a_file', message: /named pipe/ }],
];

for (const [attack, what, input, kind, expected] of cases) {
  test(`path gate, ${attack}: ${what} (${kind} ${JSON.stringify(input).slice(0, 40)})`, () => {
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

test('path gate: /proc and device files are refused even when the root is /', () => {
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

test('path gate: a root given through a symlink accepts paths spelled through it', () => {
  const alias = path.join(outer, 'alias');
  symlinkSync(root, alias);
  const g = createGate({ root: alias });
  assert.ok(g.ok);
  assert.equal(g.value.root, root);
  const r = g.value.check(path.join(alias, 'sub/key'), 'read');
  assert.ok(r.ok);
  assert.equal(r.value, path.join(root, 'sub/key'));
});

test('path gate: extra read roots are readable but never writable', () => {
  const spill = path.join(outer, 'spill');
  mkdirSync(spill);
  writeFileSync(path.join(spill, 'out.txt'), 'x');
  const g = createGate({ root, extraReadRoots: [spill] });
  assert.ok(g.ok);
  assert.ok(g.value.check(path.join(spill, 'out.txt'), 'read').ok);
  const w = g.value.check(path.join(spill, 'out.txt'), 'write');
  assert.ok(!w.ok && w.error.code === 'outside_root');
});

test('path gate: a missing or non-directory root is a clear error', () => {
  const missing = createGate({ root: path.join(outer, 'nope') });
  assert.ok(!missing.ok && /does not exist/.test(missing.error.message));
  const file = createGate({ root: path.join(root, 'a.txt') });
  assert.ok(!file.ok && /is not a directory/.test(file.error.message));
});

test('path gate and policy: a denied path is refused for reading and writing, itself and at any depth', async () => {
  const rt = runtimeAt(root, { workers: 0, deny: ['secrets'], permissions: { allow: { write: true } } });
  try {
    for (const [tool, input] of [
      ['read_file', { file_path: 'secrets' }],
      ['read_file', { file_path: 'secrets/pub/x' }],
      ['write_file', { file_path: 'secrets/new', content: 'x' }],
    ] as const) {
      const r = await rt.call(tool, input);
      assert.equal(r.code, 'permission_denied', `${tool} ${JSON.stringify(input)}`);
    }
    assert.ok(!existsSync(path.join(root, 'secrets/new')));
  } finally {
    await rt.close();
  }
});
