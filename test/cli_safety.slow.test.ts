/**
 * Nothing reaches a model unless a task was clearly given: with a key and a base URL pointing at a
 * loopback model that counts requests, a typo, `help` and per-command help ask it nothing; `run`,
 * `-p`, a quoted task and piped stdin do.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runCli } from './helpers/cli.ts';
import { startModel } from './helpers/fake_model.ts';
import { tempDir } from './helpers/temp.ts';

const root = tempDir();
const model = await startModel(Array.from({ length: 8 }, () => ({ text: 'done' })));
const KEYED = { OPENAI_API_KEY: 'k', ANTHROPIC_API_KEY: 'k', HOME: root };
const AT = ['--root', root, ...model.openaiFlags, '--model', 'm'];

const noTask: [string[], number, RegExp][] = [
  [['grpe', 'hello'], 2, /^mewcode: "grpe" is not a command\. Did you mean "grep"\?/],
  [['hlep'], 2, /Did you mean "help"\?/],
  [
    ['frobnicate'],
    2,
    /"frobnicate" is not a command\. Commands: .*To give the agent a task, quote it or say run: mewcode run frobnicate\n$/,
  ],
  [['fix', 'the', 'bug'], 2, /"fix" is not a command\..*mewcode run fix the bug/],
  [['help'], 0, /^$/],
  [['help', 'grep'], 0, /^$/],
  [['grep', '--help'], 0, /^$/],
  [['help', 'nope'], 2, /"nope" is not a command/],
];
for (const [words, code, err] of noTask) {
  test(`cli safety: ${JSON.stringify(words)} with a key and a base URL asks the model nothing (exit ${code})`, async () => {
    const before = model.requests.length;
    const r = await runCli([...AT, ...words], { env: KEYED, cwd: root });
    assert.equal(r.code, code, r.err);
    assert.match(r.err, err);
    assert.equal(model.requests.length, before, 'no request reached the model');
  });
}

test('cli safety: help, help <command> and <command> --help print on stdout', async () => {
  const general = await runCli(['help'], { cwd: root });
  assert.match(general.out, /^mewcode — /);
  const grep = await runCli(['help', 'grep'], { cwd: root });
  assert.equal((await runCli(['grep', '--help'], { cwd: root })).out, grep.out);
  assert.match(grep.out, /^mewcode grep /);
  assert.match(grep.out, /-A, --after N/);
  assert.match((await runCli(['help', 'edit'], { cwd: root })).out, /--old TEXT/);
});

const tasks: [string, string[], string?][] = [
  ['run <task…>', ['run', 'say', 'hi']],
  ['-p <task>', ['-p', 'say hi']],
  ['a quoted task with spaces', ['say hi']],
  ['a task on stdin', [], 'say hi'],
];
for (const [what, words, input] of tasks) {
  test(`cli safety: ${what} is a task, and reaches the model`, async () => {
    const before = model.requests.length;
    const r = await runCli([...AT, ...words], { env: KEYED, cwd: root, ...(input ? { input } : {}) });
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /done/);
    assert.equal(model.requests.length, before + 1);
  });
}
