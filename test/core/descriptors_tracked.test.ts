import assert from 'node:assert/strict';
import { constants, fstatSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import {
  closeFd,
  closeLeft,
  DIR_ONLY,
  endTracking,
  openExact,
  openIn,
  openTracked,
  trackOpens,
} from '../../lib/core/descriptors.ts';
import { tempDir, writeTree } from '../helpers/temp.ts';

const dir = tempDir();
writeTree(dir, { 'a.txt': 'a', 'sub/b.txt': 'b' });

const isOpen = (fd: number) => {
  try {
    fstatSync(fd);
    return true;
  } catch {
    return false;
  }
};
const ok = <T>(r: { ok: boolean; value?: T }) => {
  assert.ok(r.ok);
  return r.value as T;
};

test('the opens of a tracked run that were not closed through closeFd are the ones closeLeft closes', () => {
  const before = ok(openExact(path.join(dir, 'a.txt'), constants.O_RDONLY));
  const left = trackOpens();
  try {
    const file = ok(openExact(path.join(dir, 'a.txt'), constants.O_RDONLY));
    const sub = ok(openExact(path.join(dir, 'sub'), DIR_ONLY));
    const inSub = ok(openIn(sub, 'b.txt', constants.O_RDONLY));
    const plain = openTracked(path.join(dir, 'a.txt'), constants.O_RDONLY);
    closeFd(file);
    assert.deepEqual([...left].sort(), [sub, inSub, plain].sort());
    // A refused open adds nothing.
    assert.equal(openIn(sub, 'missing', constants.O_RDONLY).ok, false);
    assert.equal(left.size, 3);
  } finally {
    endTracking();
  }
  const still = [...left];
  closeLeft(left);
  for (const fd of still) assert.equal(isOpen(fd), false, `descriptor ${fd} left open`);
  assert.equal(left.size, 0);
  // What was open before tracking began is not the run's.
  assert.equal(isOpen(before), true);
  closeFd(before);
});

test('nothing is tracked outside a run', () => {
  const left = trackOpens();
  endTracking();
  const fd = ok(openExact(path.join(dir, 'a.txt'), constants.O_RDONLY));
  assert.equal(left.size, 0);
  closeFd(fd);
});

// A close the tracking does not see leaves a number in the set that the process may hand out again
// (to another request's open on a libuv thread), which a stopped run's cleanup would then close:
// the search's files that a watched shard reaches close only through closeFd.
test('the search code a shard runs closes descriptors only through closeFd', () => {
  const searchDir = path.join(import.meta.dirname, '../../lib/search');
  const offenders = readdirSync(searchDir)
    .filter((f) => f.endsWith('.ts'))
    .filter((f) => /\bcloseSync\(|\bopenSync\(/.test(readFileSync(path.join(searchDir, f), 'utf8')));
  assert.deepEqual(offenders, []);
});
