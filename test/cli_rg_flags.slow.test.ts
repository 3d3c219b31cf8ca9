/**
 * The flags issue 36 left for last, checked against a live rg 13 on the same real files: -a (binary
 * files searched as text), -r for any pattern (empty matches, groups, -o), and flags that undo each
 * other (the later wins). Slow tier: each case runs the CLI and rg once.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runCli } from './helpers/cli.ts';
import { RG_CONTENT, rg } from './helpers/rg.ts';
import { runtimeAt } from './helpers/runtime.ts';
import { tempDir, writeTree } from './helpers/temp.ts';

/** Files with NUL bytes: small ones, a UTF-16 one, one whose NUL lies past the first 256 KiB read. */
function binaryTree(): string {
  const root = tempDir('mewcode-rg-text-');
  const filler = Buffer.alloc(300 * 1024, 'filler line\n');
  writeTree(root, {
    'a.txt': 'text foo\nnothing\n',
    'bin1.dat': Buffer.from('foo one\nbar\0baz foo\n\x01\x02 ctl\nfoo three\n'),
    'bin2.dat': Buffer.from('\0\x01head\nfoo\n'),
    'none.dat': Buffer.from('zzz\0yyy\n'),
    'big.dat': Buffer.concat([Buffer.from('foo first\n'), filler, Buffer.from('mid\0foo after\n'), filler]),
    'wide.txt': Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('foo\0wide\nother\n', 'utf16le')]),
  });
  return root;
}

const textCases: [string[], boolean][] = [
  [['-a', 'foo'], false],
  [['-a', '-n', 'foo'], false],
  [['-a', '-c', 'foo'], false],
  [['-a', '-l', 'foo'], false],
  [['-a', '--count-matches', 'o'], false],
  [['-a', '-n', '-C', '1', 'baz'], false],
  [['-a', '-o', 'ba.'], false],
  [['-a', 'r.b'], false],
  [['-a', '-n', '-v', 'foo', 'bin1.dat'], true],
  [['-a', '-n', 'foo', 'bin1.dat'], true],
  [['-a', '-c', 'foo', 'big.dat'], true],
  [['-a', '--passthru', 'baz', 'bin1.dat'], true],
  [['-a', '--files-without-match', 'foo'], false],
  [['-a', 'zzz', 'bin2.dat'], true],
];
for (const [args, named] of textCases) {
  test(`cli grep -a answers as rg 13 -a: ${args.join(' ')}`, async () => {
    const root = binaryTree();
    const ours = await runCli(['grep', ...args], { cwd: root });
    const theirs = rg(root, ['--sort', 'path', ...args], named ? { paths: [] } : {});
    assert.equal(ours.out, theirs.out, ours.err);
    assert.equal(ours.code, theirs.status);
  });
}

test('the grep tool: binary "text" prints what rg -a -n -H prints, and its note says how to ask for it', async () => {
  const root = binaryTree();
  const rt = runtimeAt(root, { workers: 0 });
  const r = await rt.call('grep', { pattern: 'foo', binary: 'text', head_limit: 0 });
  assert.equal(`${r.content}\n`, rg(root, [...RG_CONTENT, '-a', 'foo']).out);
  const skipped = await rt.call('grep', { pattern: 'foo', head_limit: 0 });
  assert.match(
    skipped.content,
    /\[note: skipped 4 binary files that may match; pass binary: "text" to search them as text\]$/,
  );
});

test('cli grep: --binary and -uuu (rg: -uu --binary) are refused with the reason, not searched as something else', async () => {
  const root = binaryTree();
  for (const args of [
    ['--binary', 'foo'],
    ['-uuu', 'foo'],
  ]) {
    const r = await runCli(['grep', ...args], { cwd: root });
    assert.equal(r.code, 2);
    assert.equal(r.out, '');
    assert.match(r.err, /--binary is not supported: rg --binary reads a NUL byte as a line end/);
  }
});

/** Lines for -r: several matches a line, empty matches, groups that take no part. */
function replaceTree(): string {
  const root = tempDir('mewcode-rg-replace-');
  writeTree(root, {
    'r.txt': 'bab\nfoo=1 bar=22\nxyz\naaa\n',
    's.txt': 'Foo foo FOO\nfoofoo bar\nx.y x+y\n',
    'd/t.txt': 'text foo\n',
  });
  return root;
}

const replaceCases: string[][] = [
  ['-r', 'X', 'a*'],
  ['-r', '[$0]', 'a*'],
  ['-r', 'X', 'x*'],
  ['-o', '-r', 'X', 'a*'],
  ['-r', '<$1>', '(a|b)+'],
  // biome-ignore lint/suspicious/noTemplateCurlyInString: rg's replacement syntax, not a template
  ['-r', '${k}=${v}', '(?P<k>\\w+)=(?P<v>\\d+)'],
  ['-r', '$k$v', '(?P<k>\\w+)=(?P<v>\\d+)'],
  ['-r', '$$', '='],
  ['-r', '$1x', '(\\w)'],
  // biome-ignore lint/suspicious/noTemplateCurlyInString: rg's replacement syntax, not a template
  ['-r', '${1}x', '(\\w)'],
  ['-o', '-r', '<$2>', '(\\w)(\\w)?'],
  ['-r', 'X', '^'],
  ['-r', 'X', '$'],
  ['-r', 'X', '\\b'],
  ['-r', 'X', ''],
  ['-v', '-r', 'X', 'a'],
  ['-c', '-r', 'X', 'a'],
  ['-r', '$9', 'a'],
  ['-r', '$', 'a'],
  ['-r', '${', 'a'],
  // biome-ignore lint/suspicious/noTemplateCurlyInString: rg's replacement syntax, not a template
  ['-r', '${}', 'a'],
  // biome-ignore lint/suspicious/noTemplateCurlyInString: rg's replacement syntax, not a template
  ['-r', '${a b}', 'a'],
  ['-r', '$0$0', 'b+|a'],
  ['-i', '-r', '[$0]', 'foo'],
  ['-w', '-r', '<$0>', 'foo'],
  ['-F', '-r', '$0!', 'x.y'],
  ['-e', 'fo+', '-e', 'ba(r)', '-r', '<$1>'],
  ['-C', '1', '-r', 'Z', 'bar'],
  ['-m', '1', '-i', '-r', 'Z', 'foo'],
  ['--passthru', '-r', 'Z', 'ba.'],
  ['-j', '1', '-r', '<$1>', '(o+)'],
  ['-o', '-r', '<$1>', '(o+)'],
];
for (const args of replaceCases) {
  test(`cli grep -r answers as rg 13: ${args.join(' ')}`, async () => {
    const root = replaceTree();
    const ours = await runCli(['grep', '-n', ...args], { cwd: root });
    const theirs = rg(root, ['--sort', 'path', '-n', ...args]);
    assert.equal(ours.out, theirs.out, ours.err);
    assert.equal(ours.code, theirs.status);
  });
}

test('cli grep -r: a pattern that could backtrack is replaced by its worker, with no pool too; --json shows the lines as found', async () => {
  const root = replaceTree();
  for (const workers of ['0', '2']) {
    const args = ['-n', '-r', '<$1|$2>', '(\\w+)=(\\d+)|(x)+'];
    const ours = await runCli(['grep', '--workers', workers, ...args], { cwd: root });
    assert.equal(ours.out, rg(root, ['--sort', 'path', ...args]).out, ours.err);
  }
  const json = await runCli(['grep', '--json', '-r', 'X', 'foo', 's.txt'], { cwd: root });
  assert.match(json.out, /"lines":\{"text":"Foo foo FOO\\n"\}/);
});

test('cli grep -r with -U is refused: rg replaces a match over several lines in one piece', async () => {
  const r = await runCli(['grep', '-U', '-r', 'X', 'o\\nf', 's.txt'], { cwd: replaceTree() });
  assert.equal(r.code, 2);
  assert.match(r.err, /-r with -U is not supported/);
});

/** Flags that undo each other: case, layout, walk, mode, binary, in both orders. */
function pairsTree(): string {
  const root = tempDir('mewcode-rg-pairs-');
  writeTree(root, {
    'a.txt': 'Foo foo\nFOO only\n  indented foo\nf.o dot\n',
    'b.txt': 'nothing here\n',
    '.hid.txt': 'foo hidden\n',
    '.ignore': 'ig.txt\n',
    'ig.txt': 'foo ignored\n',
    'bin.dat': Buffer.from('foo\0bin\n'),
  });
  return root;
}

const pairCases: string[][] = [
  ['-i', '-s', 'FOO'],
  ['-s', '-i', 'FOO'],
  ['-S', '-i', 'Foo'],
  ['-i', '-S', 'Foo'],
  ['-s', '-S', 'foo'],
  ['-S', '-s', 'foo'],
  ['-F', '--no-fixed-strings', 'f.o'],
  ['--no-fixed-strings', '-F', 'f.o'],
  ['-n', '-N', 'foo'],
  ['-N', '-n', 'foo'],
  ['-H', '-I', 'foo', 'a.txt'],
  ['-I', '-H', 'foo', 'a.txt'],
  ['--heading', '--no-heading', 'foo'],
  ['--no-heading', '--heading', 'foo'],
  ['--trim', '--no-trim', 'indented'],
  ['--no-trim', '--trim', 'indented'],
  ['--hidden', '--no-hidden', 'foo'],
  ['--no-hidden', '--hidden', 'foo'],
  ['--no-ignore', '--ignore', 'foo'],
  ['--ignore', '--no-ignore', 'foo'],
  ['-u', '--ignore', 'foo'],
  ['-a', '--no-text', 'foo'],
  ['--no-text', '-a', 'foo'],
  ['-l', '-c', 'foo'],
  ['-c', '-l', 'foo'],
  ['-c', '--count-matches', 'o'],
  ['--count-matches', '-c', 'o'],
  ['-l', '--files-without-match', 'foo'],
  ['--files-without-match', '-l', 'foo'],
  ['-c', '--files-without-match', 'foo'],
  ['--color=always', '--color=never', 'foo'],
];
for (const args of pairCases) {
  test(`cli grep: the later of two flags wins, as rg 13: ${args.join(' ')}`, async () => {
    const root = pairsTree();
    const named = args.at(-1) === 'a.txt';
    const ours = await runCli(['grep', ...args], { cwd: root });
    const theirs = rg(root, ['--sort', 'path', ...args], named ? { paths: [] } : {});
    assert.equal(ours.out, theirs.out, ours.err);
    // rg 13 exits 0 after --files-without-match when any file matched (see cli_search.slow.test.ts).
    if (!args.includes('--files-without-match')) assert.equal(ours.code, theirs.status);
  });
}

test('cli grep: --color never then always colours, as the later one says', async () => {
  const root = pairsTree();
  const pair = await runCli(['grep', '--color=never', '--color=always', 'foo', 'a.txt'], { cwd: root });
  const alone = await runCli(['grep', '--color=always', 'foo', 'a.txt'], { cwd: root });
  assert.equal(pair.out, alone.out);
  assert.ok(pair.out.includes('\u001b['), 'coloured');
});
