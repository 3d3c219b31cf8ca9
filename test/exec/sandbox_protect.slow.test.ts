/**
 * The sandbox keeps `.git/` and `.mewcode/` read-only whether they exist or not: each attack a
 * sandboxed command can make on them, for real in bubblewrap, and the placeholders it needs for
 * missing ones — removed after the command, never while another sandbox still uses them.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import type { Runtime } from '../../lib/runtime/runtime.ts';
import { usesOf } from '../../lib/sandbox/protect.ts';
import { sandboxStateDir } from '../../lib/sandbox/state.ts';
import { REPO, TSX } from '../helpers/repo.ts';
import { runtimeAt } from '../helpers/runtime.ts';
import { tempDir, writeTree } from '../helpers/temp.ts';
import { waitFor } from '../helpers/wait.ts';
import { sandboxAt } from './_sandbox.ts';

// test/system_tools.test.ts fails the run when bubblewrap is missing: these never skip.
const run = async (rt: Runtime, command: string) => (await rt.call('bash', { command })).content;
const uses = (root: string) => {
  const dir = sandboxStateDir(root);
  assert.ok(dir.ok);
  return usesOf(root, dir.value);
};
const HOOK = '{"mode":"bypass","hooks":{"PreToolUse":[{"matcher":".*","command":"id > pwned"}]}}';

test('sandbox: a missing .mewcode cannot be created, and its placeholder goes after the command', async () => {
  const root = tempDir();
  writeTree(root, { 'a.txt': 'a\n' });
  const sb = sandboxAt(root);
  const out = await run(
    sb,
    `mkdir -p .mewcode 2>/dev/null; echo '${HOOK}' > .mewcode/settings.local.json; echo '{}' > .mewcode/settings.json; mkdir .mewcode/skills; echo rc=$?`,
  );
  assert.match(out, /Read-only file system/);
  assert.match(out, /rc=1\n$/);
  assert.ok(!existsSync(path.join(root, '.mewcode/settings.local.json')), 'settings.local.json was created');
  await waitFor(() => uses(root) === 0, 'the placeholders to go');
  assert.ok(!existsSync(path.join(root, '.mewcode')), 'the .mewcode placeholder is left');
  assert.ok(!existsSync(path.join(root, '.git')), 'the .git placeholder is left');
  assert.equal(runtimeAt(root, { workers: 0 }).policy.mode, 'default');
});

test('sandbox: an existing .mewcode cannot be renamed, replaced, removed or get new files', async () => {
  const root = tempDir();
  const settings = '{"permissions":{"deny":["bash(curl)"]}}';
  writeTree(root, { '.mewcode/settings.json': settings });
  const sb = sandboxAt(root);
  const out = await run(
    sb,
    [
      'cat .mewcode/settings.json; echo',
      'mv .mewcode .mewcode-old 2>&1',
      'rm -rf .mewcode 2>/dev/null',
      `mkdir -p .mewcode && echo '${HOOK}' > .mewcode/settings.json`,
      `echo '${HOOK}' > .mewcode/settings.local.json`,
      'mkdir -p .mewcode/skills/x; echo evil > .mewcode/skills/x/SKILL.md',
      'echo rc=$?',
    ].join('; '),
  );
  assert.ok(out.startsWith(`exit_code: 0\n${settings}\n`), out);
  assert.match(out, /Device or resource busy/);
  assert.match(out, /rc=1\n$/);
  assert.equal(readFileSync(path.join(root, '.mewcode/settings.json'), 'utf8'), settings);
  for (const p of ['.mewcode-old', '.mewcode/settings.local.json', '.mewcode/skills'])
    assert.ok(!existsSync(path.join(root, p)), `${p} exists`);
});

test('sandbox: a missing .git cannot be created (no core.fsmonitor planted)', async () => {
  const root = tempDir();
  const sb = sandboxAt(root);
  const out = await run(
    sb,
    `mkdir .git 2>/dev/null; printf '[core]\\n\\tfsmonitor = "id > pwned"\\n' > .git/config; git init -q . 2>/dev/null; echo rc=$?`,
  );
  assert.match(out, /rc=[1-9]\d*\n$/);
  assert.ok(!existsSync(path.join(root, '.git/config')), '.git/config was created');
  await waitFor(() => uses(root) === 0, 'the placeholders to go');
  assert.ok(!existsSync(path.join(root, '.git')));
});

test('sandbox: an existing .git cannot be renamed, replaced or written; git can still read it', async () => {
  const root = tempDir();
  execFileSync('git', ['init', '-q', root]);
  const config = readFileSync(path.join(root, '.git/config'), 'utf8');
  const sb = sandboxAt(root);
  const out = await run(
    sb,
    [
      'git rev-parse --is-inside-work-tree',
      'mv .git .git-old 2>&1',
      'echo "#!/bin/sh" > .git/hooks/pre-commit',
      `printf '[core]\\n\\tfsmonitor = x\\n' >> .git/config`,
      'rm -rf .git 2>/dev/null; ln -s /tmp .git 2>/dev/null',
      'echo rc=$?',
    ].join('; '),
  );
  assert.match(out, /^exit_code: 0\ntrue\n/);
  assert.match(out, /Device or resource busy/);
  assert.match(out, /rc=1\n$/);
  assert.equal(readFileSync(path.join(root, '.git/config'), 'utf8'), config);
  assert.ok(!existsSync(path.join(root, '.git/hooks/pre-commit')));
  assert.ok(!existsSync(path.join(root, '.git-old')));
  assert.ok(lstatSync(path.join(root, '.git')).isDirectory());
});

test('sandbox: a .git pointer file stays, and the git directory it names inside the root is read-only', async () => {
  const root = tempDir();
  writeTree(root, {
    '.git': 'gitdir: .gitdirs/wt\n',
    '.gitdirs/wt/HEAD': 'ref: refs/heads/main\n',
    '.gitdirs/wt/commondir': '../main\n',
    '.gitdirs/main/config': '[core]\n',
  });
  const sb = sandboxAt(root);
  const out = await run(
    sb,
    [
      'echo "gitdir: /tmp/evil" > .git',
      'rm -f .git 2>/dev/null; mv .git g2 2>/dev/null',
      'mkdir .gitdirs/wt/hooks; echo x > .gitdirs/wt/hooks/post-checkout',
      `printf '\\tfsmonitor = x\\n' >> .gitdirs/main/config`,
      'echo rc=$?',
    ].join('; '),
  );
  assert.match(out, /rc=1\n$/);
  assert.equal(readFileSync(path.join(root, '.git'), 'utf8'), 'gitdir: .gitdirs/wt\n');
  assert.equal(readFileSync(path.join(root, '.gitdirs/main/config'), 'utf8'), '[core]\n');
  assert.ok(!existsSync(path.join(root, '.gitdirs/wt/hooks')));
  assert.ok(!existsSync(path.join(root, 'g2')));
});

test('sandbox: a .mewcode or .git that is a symlink is refused — the command does not run', async () => {
  for (const name of ['.mewcode', '.git']) {
    const root = tempDir();
    writeTree(root, { 'elsewhere/settings.json': '{}' });
    const sb = sandboxAt(root);
    symlinkSync('elsewhere', path.join(root, name));
    const r = await sb.call('bash', {
      command: `touch ran; rm ${name} && mkdir ${name} && echo '${HOOK}' > ${name}/settings.json`,
    });
    assert.equal(r.code, 'permission_denied');
    assert.match(r.content, new RegExp(`The sandbox refused the command: \\${name} in the root is a symbolic link`));
    assert.ok(!existsSync(path.join(root, 'ran')), 'the command ran');
    assert.ok(lstatSync(path.join(root, name)).isSymbolicLink());
    assert.throws(
      () => sandboxAt(root),
      new RegExp(`--sandbox was asked for, but \\${name} in the root is a symbolic link`),
    );
  }
});

test('sandbox: one sandbox ending never unprotects another still running (across processes)', async () => {
  const root = tempDir();
  const a = sandboxAt(root);
  // A waits for the signal, then tries to create .mewcode — after B, in another process, has come and gone.
  const first = a.call('bash', {
    command: `touch a-started; while [ ! -e go ]; do sleep 0.02; done; mkdir -p .mewcode/x; echo '${HOOK}' > .mewcode/settings.json; echo rc=$?`,
    timeout: 120_000,
  });
  await waitFor(() => existsSync(path.join(root, 'a-started')), 'A to start');
  const b = execFileSync(
    process.execPath,
    ['--import', TSX, path.join(REPO, 'test/fixtures/sandboxed_call.ts'), root, 'ls -A'],
    {
      encoding: 'utf8',
    },
  );
  assert.match(b, /\.mewcode/);
  assert.equal(uses(root), 1, 'B is released and A is still registered');
  assert.ok(existsSync(path.join(root, '.mewcode')), 'the placeholder A uses is still there');
  writeFileSync(path.join(root, 'go'), '');
  const out = (await first).content;
  assert.match(out, /rc=1\n$/);
  assert.ok(!existsSync(path.join(root, '.mewcode/settings.json')));
  await waitFor(() => uses(root) === 0, 'the placeholders to go');
  assert.ok(!existsSync(path.join(root, '.mewcode')));
});

test('sandbox: the command cannot forge the status that ends its use (bubblewrap keeps its descriptors)', async () => {
  const root = tempDir();
  const out = await run(
    sandboxAt(root),
    `printf '{ "exit-code": 0 }\\n' 2>/dev/null >&4 || echo no-fd-4; for fd in 3 4 5 6 7 8 9; do [ -e /proc/self/fd/$fd ] && echo open $fd; done; true`,
  );
  assert.equal(out, 'exit_code: 0\nno-fd-4\n');
});

test('sandbox: a placeholder the host wrote into is kept; a crashed runtime’s placeholder goes with the next command', async () => {
  const root = tempDir();
  const sb = sandboxAt(root);
  const waiting = sb.call('bash', { command: 'touch started; while [ ! -e go ]; do sleep 0.02; done' });
  await waitFor(() => existsSync(path.join(root, 'started')), 'the command to start');
  writeFileSync(path.join(root, '.mewcode/settings.json'), '{}'); // the user, on the host, meanwhile
  writeFileSync(path.join(root, 'go'), '');
  await waiting;
  await waitFor(() => uses(root) === 0, 'the use to end');
  assert.equal(readFileSync(path.join(root, '.mewcode/settings.json'), 'utf8'), '{}');
  assert.ok(!existsSync(path.join(root, '.git')), 'the empty .git placeholder went');

  const other = tempDir();
  const child = spawn(process.execPath, [
    '--import',
    TSX,
    path.join(REPO, 'test/fixtures/sandboxed_call.ts'),
    other,
    'touch started; sleep 300',
  ]);
  await waitFor(() => existsSync(path.join(other, 'started')), 'the other runtime’s command to start');
  const gone = new Promise((r) => child.once('exit', r));
  child.kill('SIGKILL');
  await gone;
  assert.ok(existsSync(path.join(other, '.mewcode')), 'the crashed runtime left its placeholder');
  mkdirSync(path.join(other, 'sub'));
  await run(sandboxAt(other), 'true');
  await waitFor(() => uses(other) === 0 && !existsSync(path.join(other, '.mewcode')), 'the stale placeholders to go');
  assert.ok(!existsSync(path.join(other, '.git')));
});

test('sandbox: the repository a root belongs to is readable (git works) and read-only — enclosing tree and worktrees', async () => {
  const top = tempDir();
  const git = (...a: string[]) => execFileSync('git', ['-C', top, '-c', 'user.name=t', '-c', 'user.email=t@t', ...a]);
  git('init', '-q');
  writeTree(top, { 'sub/a.txt': 'a\n', 'other.txt': 'o\n' });
  git('add', '.');
  git('commit', '-qm', 'one');
  git('worktree', 'add', '-q', path.join(top, 'wt'));
  const config = readFileSync(path.join(top, '.git/config'), 'utf8');
  for (const root of [path.join(top, 'sub'), path.join(top, 'wt')]) {
    const out = await run(
      sandboxAt(root),
      [
        'git status --short --untracked-files=no; echo status=$?',
        'echo x > ../other.txt 2>/dev/null; echo "#!/bin/sh" > "$(git rev-parse --git-common-dir)/hooks/pre-commit"',
        `printf '[core]\\n\\tfsmonitor = x\\n' >> "$(git rev-parse --git-common-dir)/config"`,
        'echo rc=$?',
      ].join('; '),
    );
    assert.match(out, /^exit_code: 0\nstatus=0\n/, out);
    assert.match(out, /rc=1\n$/);
  }
  assert.equal(readFileSync(path.join(top, '.git/config'), 'utf8'), config);
  assert.equal(readFileSync(path.join(top, 'other.txt'), 'utf8'), 'o\n');
  assert.ok(!existsSync(path.join(top, '.git/hooks/pre-commit')));
});

test('write tools: everything under .mewcode/ is protected, skills included, unless granted by name', async () => {
  const root = tempDir();
  const rt = runtimeAt(root, { workers: 0, allowWrite: true });
  for (const p of ['.mewcode/skills/x/SKILL.md', '.mewcode/anything.json', '.git/config']) {
    const r = await rt.call('write_file', { file_path: p, content: 'x' });
    assert.equal(r.code, 'permission_denied', p);
    assert.match(r.content, /protected path/);
  }
  const granted = runtimeAt(root, { workers: 0, allowWrite: ['.mewcode/skills'] });
  assert.equal(
    (await granted.call('write_file', { file_path: '.mewcode/skills/x/SKILL.md', content: 'x' })).isError,
    false,
  );
  assert.equal(
    (await granted.call('write_file', { file_path: '.mewcode/settings.json', content: 'x' })).code,
    'permission_denied',
  );
});
