// The slow tier of the lane tests (see test/run.ts): writers killed with SIGKILL at every stage of a
// 24 MB replace, each in a freshly started child process. `npm test` and CI run it; `npm run test:quick`
// leaves it out.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, rmSync, watch, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { lockFileOf } from '../../lib/files/locks.ts';
import { REPO, TSX } from '../helpers/repo.ts';
import { runtimeAt } from '../helpers/runtime.ts';
import { tempDir, writeTree } from '../helpers/temp.ts';

const exited = (c: ChildProcess) =>
  new Promise<void>((r) => (c.exitCode !== null || c.signalCode !== null ? r() : c.once('exit', () => r())));

/**
 * Where in the write the kill lands, each driven by what the writer does rather than a guessed delay:
 * as it starts (its "writing" line), when its temp file appears, when the temp file is written to,
 * and when the temp file is renamed over the original.
 */
const stages = ['writing', 'temp created', 'temp written', 'renamed'] as const;

test('lane: a writer killed mid-write leaves the old or the new bytes, never a mix, and its temp file is swept', async (t) => {
  const root = tempDir();
  const size = 24 * 1024 * 1024;
  writeTree(root, { 'big.txt': 'o'.repeat(size) });
  // A killed writer may die holding its cross-process lock, a file in the OS temp dir; the next
  // writer breaks it, but the last one's would stay.
  t.after(() => rmSync(lockFileOf(path.join(root, 'big.txt')), { force: true }));
  const digest = (b: Buffer) => createHash('sha256').update(b).digest('hex');
  const oldHash = digest(Buffer.from('o'.repeat(size)));
  const newHash = digest(Buffer.from('n'.repeat(size)));
  const seen: Record<string, { old: number; new: number }> = {};
  for (let i = 0; i < 2 * stages.length; i++) {
    const stage = stages[i % stages.length] as (typeof stages)[number];
    const watcher = watch(root);
    const reached = new Promise<void>((resolve) => {
      watcher.on('change', (type, name) => {
        const temp = String(name).endsWith('.mewcode-tmp');
        if (
          (stage === 'temp created' && temp) ||
          (stage === 'temp written' && temp && type === 'change') ||
          (stage === 'renamed' && String(name) === 'big.txt')
        )
          resolve();
      });
    });
    const c = spawn(
      process.execPath,
      ['--import', TSX, path.join(REPO, 'test/fixtures/crash_writer.ts'), root, 'big.txt', String(size), 'n'],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const gone = exited(c);
    const said = new Promise<void>((resolve) => c.stdout.once('data', () => resolve()));
    // If the writer ends before the stage shows (it cannot, short of a failure), there is nothing to kill.
    await Promise.race([stage === 'writing' ? said : reached, gone]);
    c.kill('SIGKILL');
    await gone;
    watcher.close();
    const h = digest(readFileSync(path.join(root, 'big.txt')));
    assert.ok(h === oldHash || h === newHash, `trial ${i} (killed at "${stage}"): the file is a mix`);
    const tally = seen[stage] ?? { old: 0, new: 0 };
    seen[stage] = tally;
    if (h === oldHash) tally.old++;
    else {
      tally.new++;
      writeFileSync(path.join(root, 'big.txt'), 'o'.repeat(size));
    }
  }
  console.log(`lane: crash trials, old/new bytes left by kill stage: ${JSON.stringify(seen)}; 0 mixed`);
  runtimeAt(root, { workers: 0 }); // a new start sweeps what the killed writers left
  assert.deepEqual(
    readdirSync(root).filter((n) => n.endsWith('.mewcode-tmp')),
    [],
  );
});
