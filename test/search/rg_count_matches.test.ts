/**
 * Count with only_matching counts matches, as rg -c -o does (max_count still limits lines): compared
 * with a live rg on real files — several matches on a line, case folding, alternations, overlapping
 * candidates, empty matches beside real ones, and -m cutting a file's lines.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { after, test } from 'node:test';
import { requireTool, runtimeAt, tempDir, writeTree } from '../helpers.ts';

const root = tempDir();
writeTree(root, {
  'a.txt': 'needle needle\nneedle\nx\nneedle a NEEDLE b needle\n',
  'b.txt': 'ab\nab\nb b b\n',
  'c.txt': 'nothing here\n',
  'd.txt': 'aaaa aaa\n',
});
const rt = runtimeAt(root, { workers: 0 });
after(async () => {
  await rt.close();
  rmSync(root, { recursive: true, force: true });
});

function rg(args: string[]): string[] {
  const r = spawnSync('rg', ['--no-config', '--sort', 'path', '-c', '-o', ...args, '.'], {
    cwd: root,
    encoding: 'utf8',
  });
  assert.ok(r.status === 0 || r.status === 1, r.stderr);
  return r.stdout
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => l.replace(/^\.\//, ''));
}

async function ours(input: Record<string, unknown>): Promise<string[]> {
  const r = await rt.call('grep', { output_mode: 'count', only_matching: true, head_limit: 0, ...input });
  assert.equal(r.isError, false, r.content);
  return r.content.startsWith('No ') ? [] : r.content.split('\n').filter((l) => l !== '' && !l.startsWith('['));
}

const cases: [string, Record<string, unknown>, string[]][] = [
  ['a literal', { pattern: 'needle' }, ['needle']],
  ['-i', { pattern: 'needle', case_insensitive: true }, ['-i', 'needle']],
  ['-m 1', { pattern: 'needle', max_count: 1 }, ['-m', '1', 'needle']],
  ['-m 2 -i', { pattern: 'NEEDLE', max_count: 2, case_insensitive: true }, ['-m', '2', '-i', 'NEEDLE']],
  ['an alternation', { pattern: 'needle|b' }, ['needle|b']],
  ['empty matches beside real ones', { pattern: 'b|$' }, ['b|$']],
  ['non-overlapping repeats', { pattern: 'aa' }, ['aa']],
  ['a class', { pattern: '[ab]+' }, ['[ab]+']],
];

for (const [what, input, args] of cases) {
  test(`grep count with only_matching counts matches as rg -c -o does: ${what}`, async () => {
    requireTool('rg');
    const mine = await ours(input);
    assert.deepEqual(mine, rg(args));
    assert.ok(mine.length > 0);
  });
}
