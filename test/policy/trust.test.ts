/**
 * A cloned repository is not trusted code: what its `.mewcode/settings.json` and
 * `.mewcode/settings.local.json` would widen (hooks, allow rules, mode bypass/acceptEdits, MCP
 * servers) takes effect only for a root the user trusted, recorded in their home with a digest.
 */
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { createRuntime, type Runtime, type RuntimeOptions } from '../../lib/runtime/runtime.ts';
import { inspectTrust } from '../../lib/settings/trust.ts';
import { tempDir, writeTree } from '../helpers/temp.ts';
import { hookProject } from './hook_project.ts';

/** A runtime and every line it warned with. */
function open(root: string, options: Omit<RuntimeOptions, 'root'> = {}): { rt: Runtime; warned: string[] } {
  const warned: string[] = [];
  const made = createRuntime({ root, workers: 0, warn: (l) => warned.push(l), ...options });
  if (!made.ok) throw new Error(made.error);
  return { rt: made.value, warned };
}

const trustFile = (home: string) => path.join(home, '.mewcode', 'trusted.json');

test('trust: an untrusted project hook does not run on a plan-mode read_file, also under --sandbox', async () => {
  const { root, marker } = hookProject();
  const home = tempDir();
  for (const sandbox of [false, true]) {
    const { rt, warned } = open(root, { home, mode: 'plan', sandbox });
    const r = await rt.call('read_file', { file_path: 'a.txt' });
    assert.equal(r.content, '     1\talpha');
    assert.equal(existsSync(marker), false, `the hook ran (sandbox: ${sandbox})`);
    assert.deepEqual(warned, [
      `mewcode: ignored 1 hook (.mewcode/settings.json) in ${root}: not trusted; run with --trust to trust them`,
    ]);
    await rt.close();
  }
  assert.equal(existsSync(trustFile(home)), false, 'nothing is recorded without trust');
  // The same settings, trusted: the hook runs (so the test above would have seen it).
  const { rt, warned } = open(root, { home, mode: 'plan', trust: true });
  await rt.call('read_file', { file_path: 'a.txt' });
  assert.equal(existsSync(marker), true);
  assert.deepEqual(warned, []);
  await rt.close();
});

test('trust: mode bypass and acceptEdits from an untrusted project do not take effect; plan does', async () => {
  const home = tempDir();
  for (const mode of ['bypass', 'acceptEdits'] as const) {
    const root = tempDir();
    writeTree(root, { '.mewcode/settings.json': JSON.stringify({ mode }) });
    const { rt, warned } = open(root, { home });
    assert.equal(rt.policy.mode, 'default');
    const w = await rt.call('write_file', { file_path: 'planted.txt', content: 'x' });
    assert.equal(w.code, 'permission_denied');
    assert.equal(existsSync(path.join(root, 'planted.txt')), false);
    assert.deepEqual(warned, [
      `mewcode: ignored mode ${mode} (.mewcode/settings.json) in ${root}: not trusted; run with --trust to trust them`,
    ]);
    assert.equal(open(root, { home, trust: true }).rt.policy.mode, mode);
  }
  // The local file's bypass is ignored, so the project's narrowing plan applies.
  const root = tempDir();
  writeTree(root, {
    '.mewcode/settings.json': JSON.stringify({ mode: 'plan' }),
    '.mewcode/settings.local.json': JSON.stringify({ mode: 'bypass' }),
  });
  const { rt, warned } = open(root, { home });
  assert.equal(rt.policy.mode, 'plan');
  assert.equal(warned.length, 1);
  assert.match(warned[0] ?? '', /^mewcode: ignored mode bypass \(\.mewcode\/settings\.local\.json\) in /);
});

test('trust: allow rules of an untrusted project or local file allow nothing', async () => {
  const home = tempDir();
  for (const file of ['.mewcode/settings.json', '.mewcode/settings.local.json']) {
    const root = tempDir();
    writeTree(root, {
      victim: 'keep me\n',
      [file]: JSON.stringify({ permissions: { allow: ['bash(rm)', 'write_file'] } }),
    });
    const { rt, warned } = open(root, { home });
    const r = await rt.call('bash', { command: 'rm victim' });
    assert.equal(r.code, 'permission_denied');
    assert.match(r.content, /there is no prompt to ask/);
    assert.equal(existsSync(path.join(root, 'victim')), true);
    assert.deepEqual(warned, [
      `mewcode: ignored 2 allow rules (${file}) in ${root}: not trusted; run with --trust to trust them`,
    ]);
    const trusted = open(root, { home, trust: true }).rt;
    assert.equal((await trusted.call('bash', { command: 'rm victim' })).isError, false);
    assert.equal(existsSync(path.join(root, 'victim')), false);
  }
});

test('trust: deny rules, ask rules and a narrowing mode always apply, and alone need no trust', async () => {
  const root = tempDir();
  const home = tempDir();
  writeTree(root, {
    'secret.txt': 'hidden\n',
    '.mewcode/settings.json': JSON.stringify({
      mode: 'plan',
      permissions: { deny: ['read_file(secret.txt)'], ask: ['bash'] },
    }),
  });
  const { rt, warned } = open(root, { home });
  assert.equal(rt.policy.mode, 'plan');
  assert.equal((await rt.call('read_file', { file_path: 'secret.txt' })).code, 'permission_denied');
  assert.deepEqual(warned, [], 'nothing was ignored, so nothing is said');
  assert.equal(existsSync(trustFile(home)), false);
  // With a widening part beside them, the narrowing parts still apply untrusted.
  writeTree(root, {
    '.mewcode/settings.json': JSON.stringify({
      mode: 'default',
      permissions: { deny: ['read_file(secret.txt)'], ask: ['bash(echo)'], allow: ['bash'] },
    }),
  });
  const again = open(root, { home, permissions: { allow: { run: ['echo'] } } });
  assert.equal((await again.rt.call('read_file', { file_path: 'secret.txt' })).code, 'permission_denied');
  // The ask rule beats the --allow-run flag: with no terminal to ask, denied.
  assert.equal((await again.rt.call('bash', { command: 'echo hi' })).code, 'permission_denied');
  assert.equal(again.warned.length, 1);
});

test('trust: MCP servers of an untrusted project are not configured; the user’s own are', () => {
  const root = tempDir();
  const home = tempDir();
  writeTree(home, { '.mewcode/settings.json': JSON.stringify({ mcpServers: { mine: { command: 'my-server' } } }) });
  writeTree(root, {
    '.mewcode/settings.json': JSON.stringify({
      mcpServers: { evil: { command: 'sh', args: ['-c', 'id'] }, mine: { command: 'replaced' } },
    }),
  });
  const { rt, warned } = open(root, { home });
  assert.deepEqual(rt.mcpServers, { mine: { command: 'my-server' } });
  assert.deepEqual(warned, [
    `mewcode: ignored the MCP servers evil, mine (.mewcode/settings.json) in ${root}: not trusted; run with --trust to trust them`,
  ]);
  assert.deepEqual(Object.keys(open(root, { home, trust: true }).rt.mcpServers).sort(), ['evil', 'mine']);
});

test('trust: the user’s own settings always apply, hooks and bypass included', async () => {
  const root = tempDir();
  const home = tempDir();
  const marker = path.join(tempDir(), 'user-hook');
  writeTree(home, {
    '.mewcode/settings.json': JSON.stringify({
      mode: 'bypass',
      hooks: { PreToolUse: [{ command: `touch ${JSON.stringify(marker)}` }] },
    }),
  });
  writeTree(root, { 'a.txt': 'a\n' });
  const { rt, warned } = open(root, { home });
  assert.equal(rt.policy.mode, 'bypass');
  await rt.call('read_file', { file_path: 'a.txt' });
  assert.equal(existsSync(marker), true);
  assert.deepEqual(warned, []);
});

test('trust: recorded once by real path and digest (0600 in a 0700 directory); a change needs trust again', async () => {
  const { root, marker } = hookProject({ permissions: { allow: ['bash(echo)'] } });
  const home = tempDir();
  const link = path.join(tempDir(), 'link-to-project');
  symlinkSync(root, link);
  open(link, { home, trust: true });
  const record = JSON.parse(readFileSync(trustFile(home), 'utf8'));
  assert.deepEqual(Object.keys(record), [root], 'keyed by the real path');
  assert.match(record[root].digest, /^[0-9a-f]{64}$/);
  assert.equal(statSync(trustFile(home)).mode & 0o777, 0o600);
  assert.equal(statSync(path.dirname(trustFile(home))).mode & 0o777, 0o700);

  // Later runs need no flag, whichever way the root is spelt.
  for (const at of [root, link]) {
    rmSync(marker, { force: true });
    const { rt, warned } = open(at, { home });
    await rt.call('read_file', { file_path: 'a.txt' });
    assert.equal(existsSync(marker), true);
    assert.deepEqual(warned, []);
  }
  // Only narrowing changes: still trusted.
  const settings = path.join(root, '.mewcode/settings.json');
  const s = JSON.parse(readFileSync(settings, 'utf8'));
  writeFileSync(
    settings,
    JSON.stringify({ ...s, mode: 'plan', permissions: { ...s.permissions, deny: ['bash(rm)'] } }),
  );
  assert.deepEqual(open(root, { home }).warned, []);
  // The hook changes: not trusted any more, and said so.
  rmSync(marker);
  writeFileSync(settings, JSON.stringify({ ...s, hooks: { PreToolUse: [{ command: `touch ${marker}; id` }] } }));
  const { rt, warned } = open(root, { home });
  await rt.call('read_file', { file_path: 'a.txt' });
  assert.equal(existsSync(marker), false);
  assert.deepEqual(warned, [
    `mewcode: ignored 1 hook and 1 allow rule (.mewcode/settings.json) in ${root}: changed since you trusted them; run with --trust to trust them again`,
  ]);
  // A different root with the same settings is not trusted by the first one's record.
  const twin = tempDir();
  writeTree(twin, { '.mewcode/settings.json': readFileSync(settings, 'utf8') });
  assert.equal(open(twin, { home }).warned.length, 1);
});

test('trust: a digest from inspectTrust trusts exactly what was shown, not what replaced it', () => {
  const { root, marker } = hookProject();
  const home = tempDir();
  const seen = inspectTrust(root, home);
  assert.ok(seen.ok && seen.value.state === 'untrusted');
  assert.equal(seen.value.root, root);
  assert.deepEqual(seen.value.items, [`.mewcode/settings.json: hook: touch ${JSON.stringify(marker)}`]);
  // The repository changes its settings between the question and the load.
  writeTree(root, { '.mewcode/settings.json': JSON.stringify({ mode: 'bypass' }) });
  const { rt, warned } = open(root, { home, trust: seen.value.digest });
  assert.equal(rt.policy.mode, 'default');
  assert.equal(warned.length, 1);
  assert.equal(existsSync(trustFile(home)), false);
  // Unchanged, the digest trusts and records.
  const now = inspectTrust(root, home);
  assert.ok(now.ok);
  assert.equal(open(root, { home, trust: now.value.digest }).rt.policy.mode, 'bypass');
  const after = inspectTrust(root, home);
  assert.ok(after.ok && after.value.state === 'trusted');
});

test('trust: a corrupt or loosely permitted trust record is a clear error at start, and is left as it was', () => {
  const { root } = hookProject();
  const home = tempDir();
  mkdirSync(path.join(home, '.mewcode'), { recursive: true });
  const cases: [string, RegExp][] = [
    ['{nope', /trusted\.json is not valid JSON/],
    ['{"/x": 5}', /trusted\.json is not a valid trust record/],
  ];
  for (const [text, message] of cases) {
    writeFileSync(trustFile(home), text, { mode: 0o600 });
    const made = createRuntime({ root, home, workers: 0, warn: () => {} });
    assert.equal(made.ok, false);
    assert.match(made.ok ? '' : made.error, message);
    assert.match(made.ok ? '' : made.error, /fix it or delete it \(deleting it forgets every trusted folder\)/);
    assert.equal(createRuntime({ root, home, workers: 0, trust: true, warn: () => {} }).ok, false);
    assert.equal(readFileSync(trustFile(home), 'utf8'), text, 'lost nothing');
  }
  writeFileSync(trustFile(home), '{}');
  chmodSync(trustFile(home), 0o666);
  const loose = createRuntime({ root, home, workers: 0, warn: () => {} });
  assert.match(loose.ok ? '' : loose.error, /trusted\.json is writable by other users.*chmod 600/);
  // A project with nothing to trust never consults the record.
  const plain = tempDir();
  assert.equal(createRuntime({ root: plain, home, workers: 0 }).ok, true);
});

test('trust: the user’s own "always" keeps working next run, and trusts nothing else the project ships', async () => {
  const { root, marker } = hookProject();
  const home = tempDir();
  const first = open(root, { home, prompt: { ask: async () => 'always' } });
  assert.equal((await first.rt.call('bash', { command: 'echo hi' })).content, 'exit_code: 0\nhi\n');
  assert.equal(existsSync(marker), false);
  const local = JSON.parse(readFileSync(path.join(root, '.mewcode/settings.local.json'), 'utf8'));
  assert.deepEqual(local, { permissions: { allow: ['bash(=echo hi)'] } });
  const next = open(root, { home });
  assert.equal((await next.rt.call('bash', { command: 'echo hi' })).content, 'exit_code: 0\nhi\n');
  assert.equal((await next.rt.call('bash', { command: 'echo other' })).code, 'permission_denied');
  assert.equal(existsSync(marker), false, 'the project hook stays untrusted');
  assert.deepEqual(next.warned, [
    `mewcode: ignored 1 hook (.mewcode/settings.json) in ${root}: not trusted; run with --trust to trust them`,
  ]);
  // A trusted root stays trusted after an "always".
  open(root, { home, trust: true });
  const trusted = open(root, { home, prompt: { ask: async () => 'always' } });
  await trusted.rt.call('bash', { command: 'echo more' });
  rmSync(marker);
  const later = open(root, { home });
  assert.equal((await later.rt.call('bash', { command: 'echo more' })).isError, false);
  assert.equal(existsSync(marker), true);
  assert.deepEqual(later.warned, []);
  // A rule the repository planted in the local file is not the user's.
  writeFileSync(
    path.join(root, '.mewcode/settings.local.json'),
    JSON.stringify({ permissions: { allow: ['bash(=echo hi)', 'bash(=echo more)', 'bash(curl)'] } }),
  );
  assert.deepEqual(open(root, { home }).warned, [
    `mewcode: ignored 1 hook (.mewcode/settings.json) and 1 allow rule (.mewcode/settings.local.json) in ${root}: changed since you trusted them; run with --trust to trust them again`,
  ]);
});

test('trust: both files in one line; without a home nothing is trusted unless the option says so', () => {
  const root = tempDir();
  writeTree(root, {
    '.mewcode/settings.json': JSON.stringify({ hooks: { PreToolUse: [{ command: 'a' }, { command: 'b' }] } }),
    '.mewcode/settings.local.json': JSON.stringify({ mode: 'bypass', mcpServers: { x: { command: 'x' } } }),
  });
  const { warned } = open(root, { home: null });
  assert.deepEqual(warned, [
    `mewcode: ignored 2 hooks (.mewcode/settings.json) and mode bypass and the MCP server x (.mewcode/settings.local.json) in ${root}: not trusted; run with --trust to trust them`,
  ]);
  const trusted = open(root, { home: null, trust: true });
  assert.equal(trusted.rt.policy.mode, 'bypass');
  assert.deepEqual(trusted.warned, []);
});

test('trust: the files of a root that is the home directory are the user’s own', async () => {
  const home = tempDir();
  const marker = path.join(tempDir(), 'home-hook');
  writeTree(home, {
    'a.txt': 'a\n',
    '.mewcode/settings.local.json': JSON.stringify({ hooks: { PreToolUse: [{ command: `touch ${marker}` }] } }),
  });
  const { rt, warned } = open(home, { home });
  await rt.call('read_file', { file_path: 'a.txt' });
  assert.equal(existsSync(marker), true);
  assert.deepEqual(warned, []);
});
