import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { createServer } from 'node:net';
import path from 'node:path';
import { after, test } from 'node:test';
import type { Runtime } from '../../lib/runtime.ts';
import { runtimeAt, tempDir, writeTree } from '../helpers.ts';

const root = tempDir();
writeTree(root, { 'sub/file.txt': 'x\n' });
const rts: Runtime[] = [];
const at = (options: Parameters<typeof runtimeAt>[1] = {}) => {
  const rt = runtimeAt(root, { workers: 0, permissions: { allow: { run: true } }, ...options });
  rts.push(rt);
  return rt;
};
after(() => Promise.all(rts.map((r) => r.close())));
const rt = at();
const bash = (input: Record<string, unknown>, r = rt) => r.call('bash', input);
const hasBwrap = spawnSync('sh', ['-c', 'command -v bwrap']).status === 0;

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

test('bash: the timeout is exact and the whole group dies, background children included', async () => {
  const t0 = Date.now();
  // A duration no other process on a shared machine uses, so pgrep sees only ours.
  const nap = `30.${process.pid}`;
  const r = await bash({ command: `echo started; sleep ${nap} & sleep ${nap}; echo never`, timeout: 500 });
  const ms = Date.now() - t0;
  assert.equal(r.code, 'timeout');
  assert.match(
    r.content,
    /^The command ran past its timeout of 500 ms and was stopped \(every process it started was killed\)\. Output so far:\nstarted\n/,
  );
  assert.ok(ms < 5000, `returned after ${ms} ms`);
  await new Promise((res) => setTimeout(res, 100));
  assert.equal(spawnSync('pgrep', ['-fx', `sleep ${nap}`]).status, 1, 'no sleep survives');
});

test('bash: a background job holding stdout does not hang the call, and is killed when the shell exits', async () => {
  const t0 = Date.now();
  const nap = `31.${process.pid}`;
  const r = await bash({ command: `sleep ${nap} & echo done` });
  assert.equal(r.content, 'exit_code: 0\ndone\n');
  assert.ok(Date.now() - t0 < 3000);
  await new Promise((res) => setTimeout(res, 100));
  assert.equal(spawnSync('pgrep', ['-fx', `sleep ${nap}`]).status, 1);
});

test('bash: stdin is closed and interactive programs get EOF', async () => {
  const r = await bash({ command: 'read x; echo "got:$x:$?"; cat; echo end', timeout: 5000 });
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

test('bash: a flood of output keeps head and tail in bounded memory, and the spill file is complete', async () => {
  const r = await bash({ command: 'yes | head -c 200000000; echo; echo last line', timeout: 120_000 });
  assert.equal(r.isError, false);
  const spill = String(r.meta?.spillPath);
  assert.ok(existsSync(spill));
  assert.equal(statSync(spill).size, 200_000_000 + 11);
  assert.match(r.content, /^exit_code: 0\ny\ny\n/);
  assert.match(
    r.content,
    /\n\[truncated: 200,000,011 bytes of output, showing the first 16,384 and the last 16,384; the whole output is in ".*"; read it with read_file or search it with grep\]\n/,
  );
  assert.ok(r.content.endsWith('y\ny\n\nlast line\n'));
  assert.ok(Buffer.byteLength(r.content) < 40_000);
  rmSync(spill);
});

test('bash: terminal escape sequences are stripped from the output', async () => {
  const r = await bash({ command: `printf '\\033[31mred\\033[0m \\033]0;title\\007ok\\n'` });
  assert.equal(r.content, 'exit_code: 0\nred ok\n');
});

test('bash: 100 timed-out commands with background grandchildren leave no survivors and no zombie children', async () => {
  const marker = `mewcode-survivor-${process.pid}`;
  const runs = Array.from({ length: 100 }, () =>
    bash({ command: `(sleep 300 ${marker} &) ; sleep 300 & exec -a ${marker} sleep 300`, timeout: 50 }),
  );
  const results = await Promise.all(runs);
  assert.ok(results.every((r) => r.code === 'timeout'));
  await new Promise((res) => setTimeout(res, 300));
  const alive = execFileSync('ps', ['-eo', 'stat,args'], { encoding: 'utf8' })
    .split('\n')
    .filter((l) => l.includes(marker) && !l.startsWith('Z') && !l.includes('ps -eo'));
  assert.deepEqual(alive, [], 'survivors');
  const zombies = execFileSync('ps', ['-o', 'stat=', '--ppid', String(process.pid)], { encoding: 'utf8' })
    .split('\n')
    .filter((s) => s.startsWith('Z'));
  assert.deepEqual(zombies, [], 'zombie children of the runtime');
});

test('bash --sandbox: no capabilities as root, / read-only even to root, root writable, no network, parent environment invisible', {
  skip: hasBwrap ? false : 'bubblewrap is not installed (.ci/run installs it)',
}, async () => {
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
    const nap = `300.${process.pid}`;
    const setsid = await sb.call('bash', { command: `setsid sleep ${nap} & echo started`, timeout: 200 });
    assert.equal(setsid.isError, false);
    await new Promise((res) => setTimeout(res, 300));
    assert.equal(spawnSync('pgrep', ['-fx', `sleep ${nap}`]).status, 1, 'a setsid grandchild dies with the sandbox');
    // The sandbox cannot plant an escape: a link to /etc made inside it does not let write_file out.
    assert.equal((await sb.call('bash', { command: 'ln -s /etc etc_link && echo ok' })).content, 'exit_code: 0\nok\n');
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

test('bash: a 1 GB flood runs in bounded memory and the spill file holds all of it', async () => {
  const { execFileSync: run } = await import('node:child_process');
  const { REPO, TSX } = await import('../helpers.ts');
  const out = run(
    process.execPath,
    ['--import', TSX, path.join(REPO, 'test/fixtures/flood.ts'), root, String(1024 ** 3)],
    { encoding: 'utf8', maxBuffer: 1 << 20 },
  );
  const r = JSON.parse(out) as {
    isError: boolean;
    contentBytes: number;
    total: number;
    spillBytes: number;
    maxRssKiB: number;
    spill: string;
  };
  console.log(`bash: 1 GiB flood, peak RSS ${(r.maxRssKiB / 1024).toFixed(1)} MiB, answer ${r.contentBytes} bytes`);
  assert.equal(r.isError, false);
  assert.equal(r.total, 1024 ** 3);
  assert.equal(r.spillBytes, 1024 ** 3);
  assert.ok(r.contentBytes < 40_000);
  assert.ok(r.maxRssKiB / 1024 < 200, `peak RSS ${r.maxRssKiB / 1024} MiB`);
  rmSync(r.spill, { force: true });
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

test('bash --sandbox: 20 timed-out commands whose grandchildren call setsid leave no survivors', {
  skip: hasBwrap ? false : 'bubblewrap is not installed',
}, async () => {
  const sb = at({ sandbox: true });
  const marker = `mewcode-sbx-${process.pid}`;
  const results = await Promise.all(
    Array.from({ length: 20 }, () =>
      sb.call('bash', {
        command: `setsid sleep 300 ${marker} & (setsid nohup sleep 300 ${marker} &) ; sleep 300`,
        timeout: 200,
      }),
    ),
  );
  assert.ok(results.every((r) => r.code === 'timeout'));
  await new Promise((res) => setTimeout(res, 500));
  const alive = execFileSync('ps', ['-eo', 'stat,args'], { encoding: 'utf8' })
    .split('\n')
    .filter((l) => l.includes(marker) && !l.startsWith('Z') && !l.includes('ps -eo'));
  assert.deepEqual(alive, []);
});
