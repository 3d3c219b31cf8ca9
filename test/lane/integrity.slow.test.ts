import assert from 'node:assert/strict';
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { acquireFileLock, lockFileOf } from '../../lib/files/locks.ts';
import { REPO, TSX } from '../helpers/repo.ts';
import { runtimeAt } from '../helpers/runtime.ts';
import { tempDir, writeTree } from '../helpers/temp.ts';

const child = (script: string, args: string[]) =>
  spawn(process.execPath, ['--import', TSX, path.join(REPO, 'test/fixtures', script), ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
const exited = (c: ChildProcess) =>
  new Promise<number | null>((r) =>
    c.exitCode !== null || c.signalCode !== null ? r(c.exitCode) : c.on('exit', (code) => r(code)),
  );
const firstLine = (c: ChildProcess) =>
  new Promise<string>((resolve, reject) => {
    c.stdout?.once('data', (d: Buffer) => resolve(d.toString()));
    c.once('close', (code, signal) => reject(new Error(`the child exited (${code ?? signal}) before its first line`)));
  });

test('lane: three external writers x 200 locked increments plus lane edits lose no update', async () => {
  const root = tempDir();
  writeTree(root, { 'counter.txt': '0\n' });
  const file = path.join(root, 'counter.txt');
  const rt = runtimeAt(root, { workers: 0, allowWrite: true });
  const writers = [0, 1, 2].map(() => child('counter_writer.ts', [file, '200']));
  const done = Promise.all(writers.map(exited));
  let running = true;
  void done.then(() => {
    running = false;
  });
  let ours = 0;
  let stale = 0;
  const other: string[] = [];
  while (running || ours < 20) {
    const r = await rt.call('read_file', { file_path: 'counter.txt' });
    const n = Number(/\t(\d+)/.exec(r.content)?.[1]);
    const e = await rt.call('edit_file', { file_path: 'counter.txt', old_string: `${n}`, new_string: `${n + 1}` });
    if (!e.isError) ours++;
    else if (e.code === 'stale') stale++;
    else other.push(`${e.code}: ${e.content}`);
  }
  assert.deepEqual(await done, [0, 0, 0]);
  assert.deepEqual(other, []);
  const final = Number(readFileSync(file, 'utf8'));
  console.log(`lane: ${ours} lane increments, ${stale} reported stale, final ${final}`);
  assert.equal(final, 600 + ours, 'every increment, theirs and ours, is in the file');
});

test('lane: ENOSPC on a small tmpfs leaves the original intact and no temp file', async (t) => {
  if (process.getuid?.() !== 0) return t.skip('needs root to mount a tmpfs');
  const mnt = tempDir();
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=256k', 'tmpfs', mnt]);
  } catch (e) {
    return t.skip(`cannot mount a tmpfs here: ${(e as Error).message.split('\n')[0]}`);
  }
  try {
    writeFileSync(path.join(mnt, 'keep.txt'), 'precious\n'.repeat(1000));
    const rt = runtimeAt(mnt, { workers: 0, allowWrite: true });
    await rt.call('read_file', { file_path: 'keep.txt' });
    const r = await rt.call('write_file', { file_path: 'keep.txt', content: 'x'.repeat(1024 * 1024) });
    assert.equal(r.code, 'io');
    assert.match(r.content, /no space left on device; the original file is intact/);
    assert.equal(readFileSync(path.join(mnt, 'keep.txt'), 'utf8'), 'precious\n'.repeat(1000));
    assert.deepEqual(readdirSync(mnt), ['keep.txt']);
    // apply_patch: the first file is written, the second hits ENOSPC, and the first is put back.
    writeFileSync(path.join(mnt, 'small.txt'), 'a\n');
    await rt.call('read_file', { file_path: 'small.txt' });
    await rt.call('read_file', { file_path: 'keep.txt' });
    const big = `+${'y'.repeat(1000)}\n`.repeat(400);
    const p = await rt.call('apply_patch', {
      patch: `*** Begin Patch\n*** Update File: small.txt\n-a\n+b\n*** Add File: huge.txt\n${big}*** End Patch`,
    });
    assert.equal(p.code, 'io');
    assert.match(p.content, /no space left on device.*Every file of the patch was left as it was\.$/);
    assert.equal(readFileSync(path.join(mnt, 'small.txt'), 'utf8'), 'a\n');
    assert.deepEqual(readdirSync(mnt).sort(), ['keep.txt', 'small.txt']);
  } finally {
    execFileSync('umount', [mnt]);
  }
});

test('lane: 1,000 writes racing a symlink swap write nothing outside the root', async () => {
  const root = tempDir();
  const outside = tempDir();
  const target = path.join(outside, 'target.txt');
  writeFileSync(target, 'untouched\n');
  writeTree(root, { 'victim.txt': 'start\n' });
  const rt = runtimeAt(root, { workers: 0, allowWrite: true });
  const swapper = child('swapper.ts', [root, target]);
  await firstLine(swapper);
  const outcomes = new Map<string, number>();
  try {
    for (let i = 0; i < 1000; i++) {
      await rt.call('read_file', { file_path: 'victim.txt' });
      const r = await rt.call('write_file', { file_path: 'victim.txt', content: `mine ${i}\n` });
      const key = r.isError ? (r.code ?? 'error') : 'written';
      outcomes.set(key, (outcomes.get(key) ?? 0) + 1);
    }
  } finally {
    swapper.kill('SIGKILL');
    await exited(swapper);
  }
  console.log(`lane: swap race over 1000 writes: ${JSON.stringify(Object.fromEntries(outcomes))}`);
  assert.equal(readFileSync(target, 'utf8'), 'untouched\n');
  assert.deepEqual(readdirSync(outside), ['target.txt']);
});

test('lane: write calls run one at a time in request order, each seeing the one before', async () => {
  const root = tempDir();
  const rt = runtimeAt(root, { workers: 0, allowWrite: true });
  const calls = Array.from({ length: 10 }, (_, i) =>
    rt.call('write_file', { file_path: 'order.txt', content: `${i}\n` }),
  );
  const results = await Promise.all(calls);
  assert.equal(results[0]?.content, 'Created "order.txt" (2 bytes, 1 lines).');
  for (let i = 1; i < 10; i++)
    assert.match(
      results[i]?.content ?? '',
      new RegExp(`\\n-${i - 1}\\n\\+${i}$`),
      `call ${i} replaced call ${i - 1}'s content`,
    );
  assert.equal(readFileSync(path.join(root, 'order.txt'), 'utf8'), '9\n');
});

test('lane: two runtimes of one process editing the same file are serialised; the loser is stale', async () => {
  const root = tempDir();
  writeTree(root, { 'shared.txt': 'x\n' });
  const a = runtimeAt(root, { workers: 0, allowWrite: true });
  const b = runtimeAt(root, { workers: 0, allowWrite: true });
  await a.call('read_file', { file_path: 'shared.txt' });
  await b.call('read_file', { file_path: 'shared.txt' });
  const [ra, rb] = await Promise.all([
    a.call('edit_file', { file_path: 'shared.txt', old_string: 'x', new_string: 'from a' }),
    b.call('edit_file', { file_path: 'shared.txt', old_string: 'x', new_string: 'from b' }),
  ]);
  assert.deepEqual([ra?.isError, rb?.code], [false, 'stale']);
  assert.equal(readFileSync(path.join(root, 'shared.txt'), 'utf8'), 'from a\n');
});

test('lane: a lock left by a dead process is broken; a live one makes the writer wait', async () => {
  const real = realpathSync(tempDir());
  const file = lockFileOf(path.join(real, 'x'));
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(
    file,
    JSON.stringify({ pid: 999_999_999, host: (await import('node:os')).hostname(), at: Date.now(), path: 'x' }),
  );
  const got = await acquireFileLock(path.join(real, 'x'), 60_000); // breaking it needs no wait: a generous net
  assert.ok(got.ok, 'a dead owner’s lock is broken');
  const second = await acquireFileLock(path.join(real, 'x'), 200); // held by us throughout: meant to run out
  assert.ok(!second.ok && second.error?.pid === process.pid, 'a live lock holds');
  if (got.ok) got.value();
  assert.ok(!existsSync(file));
  assert.ok(path.dirname(file).startsWith(tmpdir()), 'lock files never land in the user’s tree');
});
