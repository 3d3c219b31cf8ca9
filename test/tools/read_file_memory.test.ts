import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { closeSync, ftruncateSync, openSync, writeSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { REPO, TSX } from '../helpers/repo.ts';
import { tempDir } from '../helpers/temp.ts';

const LIMIT_MIB = 150;

test(`read_file: windows of a 3 GB sparse file and a 50 MB line are read in under ${LIMIT_MIB} MB of peak RSS`, () => {
  const root = tempDir();
  const big = path.join(root, 'big.log');
  const fd = openSync(big, 'w');
  const head = Array.from({ length: 100_000 }, (_, i) => `entry ${i + 1} ${'x'.repeat(40)}`).join('\n');
  writeSync(fd, `${head}\n`);
  ftruncateSync(fd, 3 * 1024 ** 3); // the rest is a hole: 3 GB on paper, nothing on disk
  closeSync(fd);
  const wide = path.join(root, 'wide.txt');
  const wfd = openSync(wide, 'w');
  const block = 'y'.repeat(1024 * 1024);
  for (let i = 0; i < 50; i++) writeSync(wfd, block);
  writeSync(wfd, '\nafter the long line\n');
  closeSync(wfd);

  const inputs = [
    { file_path: 'big.log' },
    { file_path: 'big.log', offset: 90_000, limit: 5 },
    { file_path: 'wide.txt' },
  ];
  const stdout = execFileSync(
    process.execPath,
    ['--import', TSX, path.join(REPO, 'test/fixtures/read_big.ts'), root, JSON.stringify(inputs)],
    {
      cwd: REPO,
      encoding: 'utf8',
    },
  );
  const { results, maxRssKiB } = JSON.parse(stdout) as {
    results: { isError: boolean; lines: number; first: string; last: string }[];
    maxRssKiB: number;
  };
  const [headRead, midRead, wideRead] = results;
  assert.deepEqual(headRead, {
    isError: false,
    lines: 2001,
    first: `     1\tentry 1 ${'x'.repeat(40)}`,
    last: '[truncated: showing lines 1-2000 of a 3,221,225,472-byte file; continue with offset=2001]',
  });
  assert.equal(midRead?.first, ` 90000\tentry 90000 ${'x'.repeat(40)}`);
  assert.equal(
    midRead?.last,
    '[truncated: showing lines 90000-90004 of a 3,221,225,472-byte file; continue with offset=90005]',
  );
  assert.equal(wideRead?.lines, 2);
  assert.match(wideRead?.first ?? '', /^ {5}1\ty{2000} … \[truncated: line 1 has 52428800 characters;/);
  assert.equal(wideRead?.last, '     2\tafter the long line');
  const peakMiB = maxRssKiB / 1024;
  console.log(`read_file peak RSS: ${peakMiB.toFixed(1)} MiB`);
  assert.ok(peakMiB < LIMIT_MIB, `peak RSS ${peakMiB.toFixed(1)} MiB`);
});
