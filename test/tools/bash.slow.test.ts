// The slow tier of the bash tests (see test/run.ts): output floods of 200 MB and 1 GB, a hundred
// timed-out commands, twenty sandboxes stopped. `npm test` and CI run them; `npm run test:quick`
// leaves them out.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { killAfter, noSurvivors } from '../helpers/processes.ts';
import { REPO, TSX } from '../helpers/repo.ts';
import { removeSpills, runtimeAt } from '../helpers/runtime.ts';
import { requireTool } from '../helpers/system_tools.ts';
import { tempDir, writeTree } from '../helpers/temp.ts';
import { waitFor } from '../helpers/wait.ts';

const root = tempDir();
writeTree(root, { 'sub/file.txt': 'x\n' });
const at = (options: Parameters<typeof runtimeAt>[1] = {}) =>
  runtimeAt(root, { workers: 0, permissions: { allow: { run: true } }, ...options });
const rt = at();
const bash = (input: Record<string, unknown>) => rt.call('bash', input);

test('bash: a flood of output keeps head and tail in bounded memory, and the spill file is complete', async () => {
  const r = await bash({ command: 'yes | head -c 200000000; echo; echo last line', timeout: 600_000 });
  try {
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
  } finally {
    removeSpills(r); // 200 MB in the OS temp dir otherwise, on every run
  }
});

test('bash: a 1 GB flood runs in bounded memory and the spill file holds all of it', () => {
  // The child measures its spill file and deletes it; its temp dir is ours, so even a child that
  // dies half-way leaves nothing behind.
  const tmp = tempDir('mewcode-flood-');
  const out = execFileSync(
    process.execPath,
    ['--import', TSX, path.join(REPO, 'test/fixtures/flood.ts'), root, String(1024 ** 3)],
    { encoding: 'utf8', maxBuffer: 1 << 20, env: { ...process.env, TMPDIR: tmp } },
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
  assert.ok(r.spill.startsWith(tmp), r.spill);
  assert.ok(!existsSync(r.spill), 'the child removed its spill file');
  assert.ok(r.contentBytes < 40_000);
  assert.ok(r.maxRssKiB / 1024 < 200, `peak RSS ${r.maxRssKiB / 1024} MiB`);
});

test('bash: 100 timed-out commands with background grandchildren leave no survivors and no zombie children', async () => {
  // Every sleeper carries this duration (an hour), so the process table shows ours and only ours.
  const nap = `3611.${process.pid}`;
  killAfter(nap);
  const runs = Array.from({ length: 100 }, () =>
    bash({ command: `(sleep ${nap} &) ; sleep ${nap} & echo started; exec sleep ${nap}`, timeout: 50 }),
  );
  const results = await Promise.all(runs);
  assert.ok(results.every((r) => r.code === 'timeout'));
  // How many got as far as their grandchildren before the timeout depends on the machine's load;
  // none of them may survive either way.
  const started = results.filter((r) => r.content.endsWith('\nstarted\n')).length;
  console.log(`bash: ${started} of 100 timed-out commands had started their background sleeps`);
  await noSurvivors(nap);
  const zombies = execFileSync('ps', ['-o', 'stat=', '--ppid', String(process.pid)], { encoding: 'utf8' })
    .split('\n')
    .filter((s) => s.startsWith('Z'));
  assert.deepEqual(zombies, [], 'zombie children of the runtime');
});

test('bash --sandbox: 20 commands stopped while their setsid grandchildren run leave no survivors', async () => {
  requireTool('bwrap');
  const sb = at({ sandbox: true });
  const nap = `3612.${process.pid}`;
  killAfter(nap);
  const flags = Array.from({ length: 20 }, (_, i) => path.join(root, `sbx-started-${process.pid}-${i}`));
  const controllers = flags.map(() => new AbortController());
  // The lane runs them one after the other; each is stopped once its flag file shows that the sandbox
  // is up and its grandchildren have left the session. Not by a short timeout: whether that lands
  // before or after bubblewrap has set the sandbox up depends on the machine's load, and stopping
  // bubblewrap while it is still setting up is another case — it binds the sandbox to its parent
  // (--die-with-parent) only once set up, so the sandbox can outlive the call (a lib/exec issue).
  const results = Promise.all(
    flags.map((flag, i) =>
      sb.call(
        'bash',
        { command: `setsid sleep ${nap} & (setsid nohup sleep ${nap} &) ; touch ${flag}; sleep ${nap}` },
        { signal: controllers[i]?.signal },
      ),
    ),
  );
  for (const [i, flag] of flags.entries()) {
    await waitFor(() => existsSync(flag), `sandboxed command ${i} to start`);
    controllers[i]?.abort();
  }
  assert.deepEqual(
    (await results).map((r) => r.code),
    flags.map(() => 'cancelled'),
  );
  await noSurvivors(nap);
});
