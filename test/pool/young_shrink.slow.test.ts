/**
 * The heap trim's mark does what it is for, in V8 itself: after a burst grew the young generation,
 * a real runtime's default mark and trim give it back (without the mark, the trim's collection left
 * it at its grown size: V8 shrinks it only after a quiet window ended by an earlier collection).
 * In a child process of its own (test/fixtures/young_shrink.ts), waiting for the trim's hook.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { test } from 'node:test';
import { REPO, TSX } from '../helpers/repo.ts';
import { tempDir, writeTree } from '../helpers/temp.ts';

test('heap trim: a burst-grown young generation shrinks at the default idle trim', { timeout: 120_000 }, () => {
  const root = tempDir();
  writeTree(root, { 'a.ts': '// TODO one\n', 'b.ts': 'none\n' });
  const r = spawnSync(process.execPath, ['--import', TSX, path.join(REPO, 'test/fixtures/young_shrink.ts'), root], {
    encoding: 'utf8',
  });
  assert.equal(r.status, 0, r.stderr);
  const got = JSON.parse(r.stdout) as { isError: boolean; before: number; after: number; marks: number; trims: number };
  assert.equal(got.isError, false);
  assert.deepEqual([got.marks, got.trims], [1, 1], 'one mark, then the trim');
  assert.ok(got.before > 4 * 1048576, `the burst grew the young generation (${got.before} bytes)`);
  assert.ok(got.after < got.before / 2, `the trim shrank it: ${got.before} → ${got.after} bytes`);
});
