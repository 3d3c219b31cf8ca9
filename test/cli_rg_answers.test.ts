/**
 * Answers that differed from rg 13 on the same real files, checked against a live rg: the CLI's bytes
 * and exit code, and for the searcher's own bugs the grep tool's lines too (the model's format is
 * rg's `-n --with-filename --no-heading`): -U -o over lines, -m N with -A, a directory symlink given
 * as the path, -m 0, a search that searched nothing, a binary file given by name. -a, -r and flag
 * pairs are in cli_rg_flags.slow.test.ts.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { symlinkSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { runCli } from './helpers/cli.ts';
import { RG_CONTENT, rg } from './helpers/rg.ts';
import { runtimeAt } from './helpers/runtime.ts';
import { requireTool } from './helpers/system_tools.ts';
import { tempDir, writeTree } from './helpers/temp.ts';

function tree(): string {
  const root = tempDir('mewcode-rg-answers-');
  writeTree(root, {
    'm.txt': 'abc\ndef\nxyz ab\ncd\n',
    'mm.txt': 'a1\na2\nb\nc\na3\nd\ne\nf\n',
    'd/b.txt': 'xfoo\n',
    'bin.dat': Buffer.from('foo\0bar\n'),
  });
  symlinkSync('d', path.join(root, 'link'));
  return root;
}

/** The CLI and rg, same arguments, piped; rg given `.` when the arguments name no path. */
async function bothSay(root: string, args: string[], named: boolean) {
  const ours = await runCli(['grep', ...args], { cwd: root });
  const theirs = rg(root, ['--sort', 'path', ...args], named ? { paths: [] } : {});
  return { ours, theirs };
}

const cases: [string[], boolean][] = [
  [['-n', '-U', '-o', 'c\\nd', 'm.txt'], true],
  [['-n', '-U', '-o', 'b\\w*\\n\\w'], false],
  [['-n', '-m', '1', '-A', '3', 'a', 'mm.txt'], true],
  [['-n', '-m', '2', '-A', '3', 'a', 'mm.txt'], true],
  [['-n', '-m', '1', '-C', '1', 'a', 'mm.txt'], true],
  [['foo', 'link'], true],
  [['-n', 'foo', 'link/b.txt'], true],
  [['-m', '0', 'a'], false],
  [['foo', 'bin.dat'], true],
];
for (const [args, named] of cases) {
  test(`cli grep answers as rg 13: ${args.join(' ')}`, async () => {
    const { ours, theirs } = await bothSay(tree(), args, named);
    assert.equal(ours.out, theirs.out, ours.err);
    assert.equal(ours.code, theirs.status);
  });
}

test('the grep tool: -U -o and -m with -A print the lines rg prints (the model’s format is rg’s -n -H)', async () => {
  const root = tree();
  const rt = runtimeAt(root, { workers: 0 });
  const asked: [Record<string, unknown>, string[]][] = [
    [{ pattern: 'b\\w*\\n\\w', multiline: true, only_matching: true }, ['-U', '-o', 'b\\w*\\n\\w']],
    [{ pattern: 'a', max_count: 1, after: 3, path: 'mm.txt' }, ['-m', '1', '-A', '3', 'a', 'mm.txt']],
  ];
  for (const [input, args] of asked) {
    const r = await rt.call('grep', { ...input, glob: '!*.dat' });
    const named = args.at(-1) === 'mm.txt';
    const theirs = rg(root, [...RG_CONTENT, '-g', '!*.dat', ...args], named ? { paths: [] } : {});
    assert.equal(`${r.content}\n`, theirs.out, JSON.stringify(input));
  }
});

test('cli grep: a directory symlink given as the path shows under its own name, to the model too', async () => {
  const root = tree();
  const r = await runtimeAt(root, { workers: 0 }).call('grep', { pattern: 'foo', path: 'link' });
  assert.equal(r.content, 'link/b.txt:1:xfoo');
});

test('cli grep: a search of the default path that searched no file says so and exits 2, as rg', async () => {
  const root = tempDir('mewcode-nothing-');
  writeTree(root, { '.hidden.txt': 'foo\n', 'a.md': 'foo\n' });
  const ours = await runCli(['grep', 'foo', '-g', '*.ts'], { cwd: root });
  // No path, and stdin not a pipe (rg would search a pipe): rg searches its current directory.
  const theirs = spawnSync(requireTool('rg'), ['--no-config', 'foo', '-g', '*.ts'], {
    cwd: root,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  assert.deepEqual([ours.code, ours.out], [theirs.status, theirs.stdout]);
  assert.equal(theirs.status, 2);
  assert.match(theirs.stderr, /^No files were searched/);
  assert.match(ours.err, /No files were searched/);
  // A path given: nothing found, exit 1 and no such line, as rg.
  const given = await runCli(['grep', 'foo', '-g', '*.ts', '.'], { cwd: root });
  assert.equal(given.code, rg(root, ['foo', '-g', '*.ts']).status);
  assert.doesNotMatch(given.err, /No files were searched/);
});
