/**
 * createRuntime's `permissions` option: checked, so a mistake is an error naming where it is rather
 * than a grant that covers nothing; and a refusal names what lifts it in the caller's words — the
 * option for a library's caller, the flags for the command line — while `meta.policy.grants` keeps
 * the flags as data.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CLI_WORDING } from '../../lib/cli/wording.ts';
import { createRuntime, type RuntimeOptions } from '../../lib/runtime/runtime.ts';
import { runCli } from '../helpers/cli.ts';
import { runtimeAt } from '../helpers/runtime.ts';
import { tempDir, writeTree } from '../helpers/temp.ts';

const root = tempDir();
writeTree(root, { 'a.txt': 'a\n', '.git/config': '[core]\n' });

// Each case: the mistake, the options, and the error it must be.
const mistakes: [string, unknown, RegExp][] = [
  [
    'a list of rules as allow',
    { allow: ['bash(git status)'] },
    /^permissions\.allow is a list of rules; rules such as "bash\(git status\)" go in a settings file's permissions\.allow \(\.mewcode\/settings\.json\)/,
  ],
  ['an ask list', { ask: ['bash(git push)'] }, /^permissions\.ask is not an option: .*ask rules go in a settings file/],
  [
    'an unknown kind',
    { allow: { exec: true } },
    /^permissions\.allow\.exec: there is no kind "exec"; the kinds are read, write, run, net, env$/,
  ],
  [
    'a string for a list',
    { allow: { run: 'git' } },
    /^permissions\.allow\.run must be true, false or a list of non-empty strings, not "git"$/,
  ],
  [
    'a rule where programs belong',
    { allow: { run: ['git', 'bash(npm test)'] } },
    /^permissions\.allow\.run lists "bash\(npm test\)", which is a rule, not a program name/,
  ],
  [
    'a rule where paths belong',
    { deny: { read: ['*(secrets/**)'] } },
    /^permissions\.deny\.read lists "\*\(secrets\/\*\*\)", which is a rule, not a path/,
  ],
  [
    'an empty path',
    { deny: { write: [''] } },
    /^permissions\.deny\.write must be true, false or a list of non-empty strings/,
  ],
  ['not an object', ['read'], /^permissions\.0 is not an option|^the permissions option must be an object/],
];

for (const [what, permissions, message] of mistakes) {
  test(`createRuntime: permissions with ${what} is an error, not a silent deny`, () => {
    const made = createRuntime({ root, home: null, workers: 0, permissions } as RuntimeOptions);
    assert.ok(!made.ok, 'the runtime must not be made');
    assert.match(made.error, message);
  });
}

test('createRuntime: the shorthands are checked too, and good grants pass', async () => {
  const bad = createRuntime({ root, home: null, workers: 0, allowWrite: 'src' } as unknown as RuntimeOptions);
  assert.deepEqual(bad, { ok: false, error: 'allowWrite must be true, false or a list of paths, not "src"' });
  const rt = runtimeAt(root, {
    workers: 0,
    permissions: { allow: { run: ['git'], read: true }, deny: { net: false } },
  });
  assert.equal((await rt.call('read_file', { file_path: 'a.txt' })).isError, false);
});

test('a refusal names the permissions option for a library caller, the flags for the CLI, and keeps the flags as data', async () => {
  const rt = runtimeAt(root, { workers: 0 });
  const lib = await rt.call('write_file', { file_path: 'b.txt', content: 'x' });
  assert.equal(lib.code, 'permission_denied');
  assert.equal(
    lib.content,
    `Permission needed: write_file wants to write "b.txt", and there is no prompt to ask. Grant it with createRuntime's permissions: { allow: { write: ["b.txt"] } }.`,
  );
  assert.deepEqual(lib.meta?.policy?.grants, ['--allow-write=b.txt']);
  const cli = await rt.call('write_file', { file_path: 'b.txt', content: 'x' }, { wording: CLI_WORDING });
  assert.match(cli.content, /and there is no terminal to ask\. Run again with --allow-write=b\.txt\.$/);
  const run = await rt.call('bash', { command: 'echo $(date)' });
  assert.match(run.content, /Grant it with createRuntime's permissions: \{ allow: \{ run: true \} \}\.$/);
  const writer = runtimeAt(root, { workers: 0, allowWrite: true });
  const git = await writer.call('write_file', { file_path: '.git/config', content: 'x' });
  assert.match(
    git.content,
    /Grant it explicitly with createRuntime's permissions: \{ allow: \{ write: \["\.git\/config"\] \} \} if that is really intended\.$/,
  );
});

test('mewcode call: a refusal names the flag', async () => {
  const r = await runCli(['call', 'write_file', JSON.stringify({ file_path: 'b.txt', content: 'x' }), '--root', root]);
  assert.equal(r.code, 1);
  assert.match(r.err, /there is no terminal to ask\. Run again with --allow-write=b\.txt\./);
});
