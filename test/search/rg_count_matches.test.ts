/**
 * Count with only_matching counts matches, as rg -c -o does (max_count still limits lines): compared
 * with a live rg on real files — several matches on a line, case folding, alternations, overlapping
 * candidates, empty matches beside real ones, and -m cutting a file's lines.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { rg } from '../helpers/rg.ts';
import { runtimeAt } from '../helpers/runtime.ts';
import { requireTool } from '../helpers/system_tools.ts';
import { tempDir, writeTree } from '../helpers/temp.ts';

const root = tempDir();
writeTree(root, {
  'a.txt': 'needle needle\nneedle\nx\nneedle a NEEDLE b needle\n',
  'b.txt': 'ab\nab\nb b b\n',
  'c.txt': 'nothing here\n',
  'd.txt': 'aaaa aaa\n',
});
const rt = runtimeAt(root, { workers: 0 });

const rgCounts = (args: string[]): string[] => rg(root, ['--sort', 'path', '-c', '-o', ...args]).lines;

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
    assert.deepEqual(mine, rgCounts(args));
    assert.ok(mine.length > 0);
  });
}
