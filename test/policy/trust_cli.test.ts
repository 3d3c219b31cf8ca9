/**
 * Folder trust from the command line: an untrusted project's hook does not run and its MCP servers
 * are not started; `--trust` trusts and records; on a terminal (a real pseudo-terminal from
 * util-linux `script`) the question is asked and its answer decides.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import { startModel } from '../agent/fake_model.ts';
import { MEWCODE, runProgram } from '../cli_run.ts';
import { tempDir, writeTree } from '../helpers.ts';

const closers: (() => Promise<void>)[] = [];
after(() => Promise.all(closers.map((c) => c())));

/** The environment of a user whose home is `home`, with no model keys. */
const envFor = (home: string) => ({
  ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(ANTHROPIC|OPENAI)_/.test(k))),
  HOME: home,
});

/** Runs the CLI without a terminal (async: a model server may live in this process). */
const cli = (args: string[], home: string) =>
  runProgram(process.execPath, [...MEWCODE, ...args], { env: envFor(home) });

function hookProject() {
  const root = tempDir();
  const marker = path.join(tempDir(), 'hook-ran');
  writeTree(root, {
    'a.txt': 'alpha\n',
    '.mewcode/settings.json': JSON.stringify({
      hooks: { PreToolUse: [{ command: `touch ${JSON.stringify(marker)}` }] },
    }),
  });
  return { root, marker };
}

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
  closers.push(model.close);
  const agent = [
    '--root',
    root,
    '--provider',
    'openai',
    '--base-url',
    `${model.url}/v1`,
    '--model',
    'm',
    'run',
    'hello',
  ];
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

/** util-linux `script` that can open a pseudo-terminal here (a container may have no /dev/pts). */
const HAS_SCRIPT = spawnSync('script', ['-qec', 'true', '/dev/null'], { stdio: 'ignore' }).status === 0;

/** Runs the CLI on a pseudo-terminal; `answer` is typed once the question is on the screen. */
function onTerminal(args: string[], home: string, answer: string): Promise<{ code: number | null; screen: string }> {
  const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  const command = [process.execPath, ...MEWCODE, ...args].map(q).join(' ');
  return new Promise((resolve) => {
    const child = spawn('script', ['-qfec', command, '/dev/null'], {
      env: { ...envFor(home), SHELL: '/bin/sh' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let screen = '';
    let typed = false;
    child.stdout.on('data', (c) => {
      screen += c;
      if (!typed && screen.includes('[y/N] › ')) {
        typed = true;
        child.stdin.write(`${answer}\n`);
      }
    });
    child.on('close', (code) => {
      child.stdin.destroy();
      resolve({ code, screen });
    });
  });
}

test('trust CLI: on a terminal the question lists what would widen, and only "y" trusts', async () => {
  // A missing pseudo-terminal fails the test rather than skipping it: a green run must have asked.
  assert.ok(HAS_SCRIPT, 'util-linux script (Debian package bsdutils) must be able to open a pseudo-terminal');
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
