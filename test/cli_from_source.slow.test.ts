/**
 * bin/mewcode.mjs runs the TypeScript sources when dist/ is stale (or MEWCODE_FROM_SOURCE=1), through
 * tsx registered in its own thread only. The read lane's workers run pool_worker.ts: they did not
 * know '.ts' and failed to start, so the first search needing one failed (before: the process ended
 * with an uncaught error). Both kinds of worker are started here: the standby worker a one-shot
 * starts for a pattern that could backtrack without bound, and the pool of `--workers 2`.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { CLEAN_ENV, runProgram } from './helpers/cli.ts';
import { REPO } from './helpers/repo.ts';
import { tempDir, writeTree } from './helpers/temp.ts';

const BIN = path.join(REPO, 'bin/mewcode.mjs');
const FROM_SOURCE = { ...CLEAN_ENV, MEWCODE_FROM_SOURCE: '1' };

test('bin from source: a search on the standby worker and on a pool of two finds its matches', {
  timeout: 120_000,
}, async () => {
  const root = tempDir();
  const files: Record<string, string> = { 'a.txt': 'aaab\n', 'b.txt': 'xyz\n' };
  for (let i = 0; i < 30; i++) files[`d${i}/f.txt`] = `needle ${i}\n`;
  writeTree(root, files);
  const standby = await runProgram(process.execPath, [BIN, 'grep', '(a+)+b', '.'], { env: FROM_SOURCE, cwd: root });
  assert.equal(standby.code, 0, standby.err);
  assert.match(standby.out, /a\.txt:aaab/);
  const pooled = await runProgram(process.execPath, [BIN, '--workers', '2', 'grep', '--count', 'needle', '.'], {
    env: FROM_SOURCE,
    cwd: root,
  });
  assert.equal(pooled.code, 0, pooled.err);
  assert.equal(pooled.out.trim().split('\n').length, 30, pooled.out);
});
