/**
 * Folder trust from the command line: an untrusted project's hook does not run and its MCP servers
 * are not started; `--trust` trusts and records; on a terminal (a real pseudo-terminal from
 * util-linux `script`) the question is asked and its answer decides.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { runCli } from '../helpers/cli.ts';
import { startModel } from '../helpers/fake_model.ts';
import { tempDir, writeTree } from '../helpers/temp.ts';
import { assertTerminal, onTerminal as cliOnTerminal } from '../helpers/terminal.ts';
import { hookProject } from './hook_project.ts';

/** Runs the CLI without a terminal, as a user whose home is `home` (async: a model server may live in this process). */
const cli = (args: string[], home: string) => runCli(args, { env: { HOME: home } });

test('trust CLI: an untrusted hook does not run on a plan-mode read under --sandbox; --trust runs it and is recorded', async () => {
  const { root, marker } = hookProject();
  const home = tempDir();
  const read = ['--root', root, '--mode', 'plan', '--sandbox', 'read', 'a.txt'];
  const untrusted = await cli(read, home);
  assert.equal(existsSync(marker), false, 'the hook ran');
  assert.deepEqual(untrusted, {
    code: 0,
    out: '     1\talpha\n',
    err: `mewcode: ignored 1 hook (.mewcode/settings.json) in ${root}: not trusted; run with --trust to trust them\n`,
  });
  const trusted = await cli(['--trust', ...read], home);
  assert.deepEqual([trusted.code, trusted.err], [0, '']);
  assert.equal(existsSync(marker), true);
  assert.deepEqual(Object.keys(JSON.parse(readFileSync(path.join(home, '.mewcode/trusted.json'), 'utf8'))), [root]);
  rmSync(marker);
  const later = await cli(read, home);
  assert.deepEqual([later.code, later.err], [0, '']);
  assert.equal(existsSync(marker), true, 'trusted once is trusted on later runs');
  // --trust is accepted by every command, and named in the help.
  const help = await cli(['--help'], home);
  assert.match(help.out, /--trust +trust this folder's \.mewcode settings/);
});

test('trust CLI: the MCP servers of an untrusted project are not started by an agent run', async () => {
  const root = tempDir();
  const home = tempDir();
  const marker = path.join(tempDir(), 'server-started');
  writeTree(root, {
    '.mewcode/settings.json': JSON.stringify({
      mcpServers: { evil: { command: 'sh', args: ['-c', `touch ${JSON.stringify(marker)}`] } },
    }),
  });
  const model = await startModel([{ text: 'done' }, { text: 'done' }]);
  const agent = ['--root', root, ...model.openaiFlags, '--model', 'm', 'run', 'hello'];
  const untrusted = await cli(agent, home);
  assert.equal(untrusted.code, 0, untrusted.err);
  assert.equal(existsSync(marker), false, 'the server was started');
  assert.equal(
    untrusted.err,
    `mewcode: ignored the MCP server evil (.mewcode/settings.json) in ${root}: not trusted; run with --trust to trust them\nmewcode: 1 turn, 5 input tokens, 9 output tokens\n`,
  );
  // Trusted, the command is started (it is no MCP server, so it is reported and the run goes on).
  const trusted = await cli(['--trust', ...agent], home);
  assert.equal(trusted.code, 0, trusted.err);
  assert.equal(existsSync(marker), true);
  assert.match(trusted.err, /the MCP server "evil" did not start/);
});

/** The CLI on a pseudo-terminal; `answer` is typed once the question is on the screen. */
const onTerminal = (args: string[], home: string, answer: string) =>
  cliOnTerminal(args, { env: { HOME: home }, answers: [answer] });

test('trust CLI: on a terminal the question lists what would widen, and only "y" trusts', async () => {
  // A missing pseudo-terminal fails the test rather than skipping it: a green run must have asked.
  assertTerminal();
  const { root, marker } = hookProject();
  const home = tempDir();
  const read = ['--root', root, '--mode', 'plan', 'read', 'a.txt'];
  const no = await onTerminal(read, home, 'n');
  assert.equal(no.code, 0, no.screen);
  assert.ok(no.screen.includes(`mewcode: the settings in ${root}/.mewcode would widen what MewCode may do:`));
  assert.ok(no.screen.includes(`  .mewcode/settings.json: hook: touch ${JSON.stringify(marker)}`), no.screen);
  assert.ok(no.screen.includes(`(recorded in ${home}/.mewcode/trusted.json until they change)? [y/N] › `));
  assert.match(no.screen, /mewcode: ignored 1 hook \(\.mewcode\/settings\.json\) in .*: not trusted/);
  assert.equal(existsSync(marker), false);
  assert.equal(existsSync(path.join(home, '.mewcode/trusted.json')), false);
  const yes = await onTerminal(read, home, 'y');
  assert.equal(yes.code, 0, yes.screen);
  assert.equal(existsSync(marker), true, yes.screen);
  assert.ok(!yes.screen.includes('mewcode: ignored'), yes.screen);
  // Recorded: the next run on a terminal asks nothing.
  rmSync(marker);
  const again = await onTerminal(read, home, 'n');
  assert.ok(!again.screen.includes('[y/N]'), again.screen);
  assert.equal(existsSync(marker), true);
});
