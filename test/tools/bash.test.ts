import assert from 'node:assert/strict';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { createServer } from 'node:net';
import path from 'node:path';
import { test } from 'node:test';
import { MAX_COMMAND_BYTES } from '../../lib/tools/bash.ts';
import { killAfter, noSurvivors } from '../helpers/processes.ts';
import { runtimeAt } from '../helpers/runtime.ts';
import { requireTool } from '../helpers/system_tools.ts';
import { tempDir, writeTree } from '../helpers/temp.ts';
import { waitFor } from '../helpers/wait.ts';

const root = tempDir();
writeTree(root, { 'sub/file.txt': 'x\n' });
const at = (options: Parameters<typeof runtimeAt>[1] = {}) =>
  runtimeAt(root, { workers: 0, permissions: { allow: { run: true } }, ...options });
const rt = at();
const bash = (input: Record<string, unknown>, r = rt) => r.call('bash', input);

test('bash: exit_code comes first, stdout and stderr merge in order, leading whitespace is kept', async () => {
  const r = await bash({ command: 'echo "  one"; echo two >&2; echo three; exit 3' });
  assert.deepEqual([r.isError, r.content], [false, 'exit_code: 3\n  one\ntwo\nthree\n']);
  assert.equal(r.meta?.exitCode, 3);
  assert.equal((await bash({ command: 'true' })).content, 'exit_code: 0\n(no output)');
});

test('bash: workdir is inside the root and must exist', async () => {
  assert.equal((await bash({ command: 'pwd', workdir: 'sub' })).content, `exit_code: 0\n${path.join(root, 'sub')}\n`);
  assert.equal((await bash({ command: 'pwd', workdir: 'nope' })).code, 'not_found');
  assert.equal((await bash({ command: 'pwd', workdir: '../..' })).code, 'outside_root');
  assert.match((await bash({ command: 'pwd', workdir: 'sub/file.txt' })).content, /is not a directory/);
});

test('bash: the timeout is exact and every process the command started dies, background children included', async () => {
  // A duration only this test process uses, so the process table shows only ours; an hour, so a
  // survivor cannot pass by ending on its own.
  const nap = `3601.${process.pid}`;
  killAfter(nap);
  // The timeout is the one thing meant to end this call; whatever the command printed before it is
  // the output so far (how much depends on the machine, so it prints nothing; the cancel test below
  // checks the output so far, driven by an event).
  const r = await bash({ command: `sleep ${nap} & sleep ${nap}`, timeout: 500 });
  assert.equal(r.code, 'timeout');
  assert.equal(
    r.content,
    'The command ran past its timeout of 500 ms and was stopped (every process it started was killed). Output so far:\n',
  );
  await noSurvivors(nap);
});

test('bash: a cancelled call stops every process the command started and answers with the output so far', async () => {
  const nap = `3602.${process.pid}`;
  killAfter(nap);
  const flag = path.join(root, `started-${process.pid}`);
  const controller = new AbortController();
  const call = rt.call(
    'bash',
    { command: `echo started; sleep ${nap} & touch ${flag}; sleep ${nap}` },
    { signal: controller.signal },
  );
  // Cancel once the command has really started (its flag file is there), not after a guessed delay.
  await waitFor(() => existsSync(flag), 'the command to start');
  controller.abort();
  const r = await call;
  rmSync(flag, { force: true });
  assert.equal(r.code, 'cancelled');
  assert.equal(r.content, 'The command was cancelled (every process it started was killed). Output so far:\nstarted\n');
  await noSurvivors(nap);
});

test('bash: a background job holding stdout does not hang the call, and is killed when the shell exits', async () => {
  // The job would hold stdout for an hour: the call ending at all is the proof it did not wait for it.
  const nap = `3603.${process.pid}`;
  killAfter(nap);
  const r = await bash({ command: `sleep ${nap} & echo done` });
  assert.equal(r.content, 'exit_code: 0\ndone\n');
  await noSurvivors(nap);
});

test('bash: stdin is closed and interactive programs get EOF', async () => {
  const r = await bash({ command: 'read x; echo "got:$x:$?"; cat; echo end' });
  assert.equal(r.content, 'exit_code: 0\ngot::1\nend\n');
});

test('bash: only allowlisted variables pass, PAGER is cat, secrets never', async () => {
  process.env.MY_SECRET_TOKEN = 'hunter2';
  process.env.LD_PRELOAD_TEST = 'x';
  try {
    const r = await bash({ command: 'echo "[$MY_SECRET_TOKEN][$PAGER][$HOME]"; env | grep -c SECRET || true' });
    assert.equal(r.content, `exit_code: 0\n[][cat][${process.env.HOME}]\n0\n`);
    const granted = at({ permissions: { allow: { run: true, env: ['MY_SECRET_*'] } } });
    assert.equal(
      (await granted.call('bash', { command: 'echo "[$MY_SECRET_TOKEN]"' })).content,
      'exit_code: 0\n[hunter2]\n',
    );
  } finally {
    delete process.env.MY_SECRET_TOKEN;
    delete process.env.LD_PRELOAD_TEST;
  }
});

test('bash: terminal escape sequences are stripped from the output', async () => {
  const r = await bash({ command: `printf '\\033[31mred\\033[0m \\033]0;title\\007ok\\n'` });
  assert.equal(r.content, 'exit_code: 0\nred ok\n');
});

test('bash --sandbox: no capabilities as root, / read-only even to root, root writable, no network, parent environment invisible', async () => {
  requireTool('bwrap');
  process.env.MY_SECRET_TOKEN = 'hunter2';
  try {
    const sb = at({ sandbox: true });
    const caps = await sb.call('bash', { command: 'grep CapEff /proc/self/status' });
    assert.equal(caps.content, 'exit_code: 0\nCapEff:\t0000000000000000\n');
    const remount = await sb.call('bash', {
      command: 'mount -o remount,rw / 2>&1; touch /etc/mewcode-escape 2>&1; echo rc=$?',
    });
    assert.match(remount.content, /rc=1\n$/);
    assert.ok(!existsSync('/etc/mewcode-escape'));
    const write = await sb.call('bash', { command: 'echo inside > made.txt && cat made.txt' });
    assert.equal(write.content, 'exit_code: 0\ninside\n');
    assert.equal(readFileSync(path.join(root, 'made.txt'), 'utf8'), 'inside\n');
    // A server listening on the host's loopback is unreachable from the sandbox's own network namespace.
    const server = createServer((s) => s.end('hello\n'));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    try {
      const probe = `(exec 3<>/dev/tcp/127.0.0.1/${port} && cat <&3) 2>/dev/null; echo rc=$?; tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' '`;
      assert.match(
        (await rt.call('bash', { command: probe })).content,
        /^exit_code: 0\nhello\nrc=0\n/,
        'reachable without the sandbox',
      );
      assert.equal((await sb.call('bash', { command: probe })).content, 'exit_code: 0\nrc=1\nlo\n');
    } finally {
      server.close();
    }
    const secret = await sb.call('bash', {
      command: 'echo "[$MY_SECRET_TOKEN]"; cat /proc/$PPID/environ 2>/dev/null | tr "\\0" "\\n" | grep -c SECRET; true',
    });
    assert.equal(secret.content, 'exit_code: 0\n[]\n0\n');
    const nap = `3604.${process.pid}`;
    killAfter(nap);
    const setsid = await sb.call('bash', { command: `setsid sleep ${nap} & echo started` });
    assert.equal(setsid.content, 'exit_code: 0\nstarted\n');
    await noSurvivors(nap); // a setsid grandchild dies with the sandbox
    // The sandbox cannot plant an escape: a link to /etc made inside it does not let write_file out.
    const link = await sb.call('bash', { command: 'ln -s /etc etc_link && echo ok' });
    assert.match(link.content, /^exit_code: 0\nok\n/);
    // The journal names the link it does not record (never following it).
    assert.deepEqual(
      link.meta?.notRecorded?.map((m) => m.path),
      ['etc_link'],
    );
    const writer = at({ sandbox: true, allowWrite: true });
    assert.equal(
      (await writer.call('write_file', { file_path: 'etc_link/mewcode-x', content: 'x' })).code,
      'outside_root',
    );
    assert.ok(!existsSync('/etc/mewcode-x'));
    writeFileSync(path.join(root, 'made.txt'), '');
  } finally {
    delete process.env.MY_SECRET_TOKEN;
  }
});

test('bash --sandbox: when bubblewrap cannot start, the runtime refuses to start instead of running unsandboxed', () => {
  const saved = process.env.PATH;
  process.env.PATH = '/nonexistent';
  try {
    assert.throws(
      () => runtimeAt(root, { workers: 0, sandbox: true }),
      /--sandbox was asked for, but bubblewrap \(bwrap\) is not installed; .*Refusing to run commands unsandboxed\./,
    );
  } finally {
    process.env.PATH = saved;
  }
});

test('bash: a command with a NUL byte, or longer than one argument can be, is refused as invalid arguments, saying why', async () => {
  const nul = await bash({ command: 'echo a\0b > nul.txt' });
  assert.equal(nul.code, 'invalid_args');
  assert.match(nul.content, /- command: command holds a NUL byte, which no command line can carry .*printf '\\0'/);
  // The longest command that fits one argument (MAX_ARG_STRLEN, 128 KiB with the script's first line) runs.
  const fits = `: ${'x'.repeat(MAX_COMMAND_BYTES - 2)}`;
  assert.equal((await bash({ command: fits })).content, 'exit_code: 0\n(no output)');
  const over = await bash({ command: `${fits}x; touch over.txt` });
  assert.equal(over.code, 'invalid_args');
  assert.match(
    over.content,
    /- command: command is 131,078 bytes, more than the 131,061 one command line can carry \(the system's limit on one argument, 128 KiB\): write the script to a file with write_file and run that file/,
  );
  // Counted in bytes, as the kernel counts them: a character of three bytes counts three.
  assert.equal((await bash({ command: `: ${'€'.repeat(MAX_COMMAND_BYTES / 3)}` })).code, 'invalid_args');
  assert.ok(!existsSync(path.join(root, 'nul.txt')) && !existsSync(path.join(root, 'over.txt')));
});
