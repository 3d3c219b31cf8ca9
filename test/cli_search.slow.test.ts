/**
 * The CLI's grep and glob against live ripgrep and fd on the same tree: the flags users type mean the
 * same and print the same lines; only results reach stdout; a pipe gets everything, uncoloured.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { MEWCODE, runCli, runProgram } from './helpers/cli.ts';
import { rg } from './helpers/rg.ts';
import { requireTool } from './helpers/system_tools.ts';
import { tempDir, writeTree } from './helpers/temp.ts';
import { onTerminal as cliOnTerminal } from './helpers/terminal.ts';

const root = tempDir();
writeTree(root, {
  '.gitignore': 'ignored.txt\n',
  'ignored.txt': 'needle ignored\n',
  '.hidden/h.txt': 'needle hidden\n',
  'a.ts': 'one\nneedle one\ntwo\nneed to pin\nthree needle needle\nfour\n',
  'b.js': 'needle b\nx.y\naxb\n',
  'sub/c.ts': 'needle c\npin c\n',
  'sub/d.md': '# title\nneedle d\nplain\n',
  'vendor/v.ts': 'needle vendor\n',
  Makefile: 'needle make\n',
  'bin.dat': Buffer.from('needle\0binary\n'),
});
// fd honours .gitignore only inside a git repository; ripgrep and MewCode either way.
execFileSync('git', ['init', '-q'], { cwd: root });

// The same arguments to both, piped: rg's own defaults decide paths, line numbers and headings. rg
// is given `.` when the arguments name no path (with none it would read its stdin, a pipe here).
const rgOut = (args: string[]) => {
  const last = args.at(-1);
  const named = last !== undefined && args.length > 1 && existsSync(path.join(root, last));
  const r = rg(root, ['--sort', 'path', ...args], named ? { paths: [] } : {});
  return { status: r.status, out: r.out.replace(/\0\.\//g, '\0') }; // -0: the paths after a NUL too
};

const cases: string[][] = [
  ['-A', '1', 'needle'],
  ['-B', '1', 'pin'],
  ['-C', '1', 'two'],
  ['-e', 'needle', '-e', 'pin'],
  ['-w', 'need'],
  ['-F', '-w', '-e', 'x.y', '-e', 'pin'],
  ['-v', 'needle', '-g', '*.md'],
  ['-t', 'ts', 'needle'],
  ['-T', 'ts', 'needle'],
  ['-t', 'make', 'needle'],
  ['-m', '1', 'needle'],
  ['-o', 'need\\w+'],
  ['--hidden', 'needle'],
  ['--no-ignore', 'needle'],
  ['-u', 'needle'],
  ['-uu', 'needle'],
  ['-g', '*.ts', '-g', '!sub/**', 'needle'],
  ['-g', '!vendor', '-g', '!*.md', 'needle'],
  ['-l', 'needle'],
  ['-c', 'needle'],
  ['-i', 'NEEDLE', '-g', '*.js'],
  ['-F', 'x.y'],
  ['-e', '-ish', '-e', 'axb'],
  ['-n', '-A', '1', 'needle'],
  ['-n', '-H', 'pin', 'a.ts'],
  ['pin', 'a.ts'],
  ['-c', 'needle', 'a.ts'],
  ['-n', '--heading', '-C', '1', 'needle'],
  ['-N', '-I', 'needle'],
  ['--no-heading', '-n', 'needle', 'sub'],
  ['-S', 'NEEDLE'],
  ['-S', 'needle', '-g', '*.md'],
  ['-x', 'needle b'],
  ['-n', '--passthru', 'pin'],
  ['--files-without-match', 'needle'],
  ['--files'],
  ['--files', '-t', 'ts'],
  ['-r', '[$0]', 'pin'],
  ['-n', '-r', '<$1>', 'p(i)n'],
  ['-t', 'all', '-l', 'needle'],
  ['--count-matches', 'needle'],
  ['-0', '-l', 'needle'],
  ['--trim', 'needle'],
  ['-q', 'needle'],
  ['-m', '0', 'needle'],
  ['-j', '2', '--no-mmap', '--crlf', '--sort', 'path', '-n', 'needle'],
];
for (const args of cases) {
  test(`cli grep: ${args.join(' ')} prints what rg prints`, async () => {
    requireTool('rg');
    const ours = await runCli(['grep', ...args], { cwd: root });
    const theirs = rgOut(args);
    assert.equal(ours.out, theirs.out, ours.err);
    // rg 13 exits 0 after --files-without-match when any file matched; rg 14 when a path printed, as MewCode.
    if (!args.includes('--files-without-match')) assert.equal(ours.code, theirs.status);
    else assert.equal(ours.code, ours.out === '' ? 1 : 0);
  });
}

const fdCases: string[][] = [
  ['-e', 'ts'],
  ['-H', '-e', 'txt'],
  ['-I', '-e', 'txt'],
  ['-e', 'md', '-e', 'js'],
];
for (const args of fdCases) {
  test(`cli glob: ${args.join(' ')} lists what fd lists`, async () => {
    const fdCommand = requireTool('fd');
    const ours = await runCli(['glob', ...args], { cwd: root });
    const fd = spawnSync(fdCommand, ['--type', 'f', ...args], { cwd: root, encoding: 'utf8' });
    assert.equal(ours.out, `${fd.stdout.split('\n').filter(Boolean).sort().join('\n')}\n`, ours.err);
    assert.equal(ours.code, 0);
  });
}

// A pattern without "/" matches a name at any depth, as `fd -g` (the glob tool itself matches it at
// the top level only); one with "/" is matched against the whole path, as `fd -g --full-path`.
const fdGlobCases: [string[], string[]][] = [
  [['*.ts'], ['-g', '*.ts']],
  [['*.{md,js}'], ['-g', '*.{md,js}']],
  [
    ['-H', '*.txt'],
    ['-H', '-g', '*.txt'],
  ],
  [
    ['*.ts', 'sub'],
    ['-g', '*.ts', 'sub'],
  ],
];
for (const [ours, theirs] of fdGlobCases) {
  test(`cli glob: ${ours.join(' ')} lists what fd ${theirs.join(' ')} lists`, async () => {
    const fd = spawnSync(requireTool('fd'), ['--type', 'f', ...theirs], { cwd: root, encoding: 'utf8' });
    const listed = await runCli(['glob', ...ours], { cwd: root });
    assert.equal(listed.out, `${fd.stdout.split('\n').filter(Boolean).sort().join('\n')}\n`, listed.err);
    assert.match(listed.out, /\//, 'deeper files are listed');
  });
}

test('cli glob: a pattern with "/" is matched against the path, as the tool matches it', async () => {
  const listed = await runCli(['glob', 'sub/*.ts'], { cwd: root });
  assert.deepEqual([listed.code, listed.out], [0, 'sub/c.ts\n']);
});

test('cli grep: notes go to stderr in the CLI’s words; `grep -l | xargs wc -l` sees only paths', async () => {
  const r = await runCli(['grep', '-l', 'needle'], { cwd: root });
  assert.equal(r.out, 'Makefile\na.ts\nb.js\nsub/c.ts\nsub/d.md\nvendor/v.ts\n');
  assert.match(
    r.err,
    /^\[note: skipped .*; pass --include-ignored \(or --hidden, --no-ignore\) to search them\]\n\[note: skipped 1 binary file that may match; pass -a to search it as text\]\n$/,
  );
  assert.doesNotMatch(r.err, /include_ignored|head_limit/);
  // A real shell pipe: "$0" is node, "$@" the CLI's arguments to node.
  const piped = await runProgram('sh', ['-c', '"$0" "$@" grep -l needle | xargs wc -l', process.execPath, ...MEWCODE], {
    cwd: root,
  });
  assert.equal(piped.code, 0, piped.err);
  assert.match(piped.out, /^ +1 Makefile\n +6 a\.ts\n/);
  assert.match(piped.out, / 16 total\n$/);
  const none = await runCli(['grep', 'zzz'], { cwd: root });
  assert.deepEqual([none.code, none.out], [1, '']);
  assert.match(none.err, /^No matches for "zzz" in "\."/);
});

test('cli grep: a pipe gets every line, past the model’s 256 KiB budget, with no spill file', async () => {
  const big = tempDir();
  const lines = Array.from({ length: 20_000 }, (_, i) => `needle ${String(i).padStart(5, '0')} ${'x'.repeat(20)}`);
  writeTree(big, { 'big.txt': `${lines.join('\n')}\n` });
  const r = await runCli(['grep', 'needle'], { cwd: big });
  assert.equal(r.code, 0);
  assert.equal(r.err, '');
  const out = r.out.split('\n').filter(Boolean);
  assert.equal(out.length, 20_000);
  assert.equal(out.at(-1), `big.txt:${lines.at(-1)}`, 'piped, rg prints no line number');
  const cut = await runCli(['grep', 'needle', '--head-limit', '3'], { cwd: big });
  assert.equal(cut.out.split('\n').filter(Boolean).length, 3);
  assert.match(cut.err, /^\[truncated: showing the first 3 results; more exist; raise --head-limit \(0 for all\)/);
});

const ESC = '\x1b[';
test('cli grep: --color always paints path, line number and match as rg does; never and pipes stay plain', async () => {
  const always = await runCli(['grep', '-n', '--color', 'always', 'pin', 'sub'], { cwd: root });
  assert.equal(always.out, `${ESC}35msub/c.ts${ESC}39m:${ESC}32m2${ESC}39m:${ESC}1m${ESC}31mpin${ESC}39m${ESC}22m c\n`);
  assert.equal((await runCli(['grep', '--color', 'never', 'pin', 'sub'], { cwd: root })).out, 'sub/c.ts:pin c\n');
  assert.equal((await runCli(['grep', 'pin', 'sub'], { cwd: root })).out, 'sub/c.ts:pin c\n');
  assert.equal((await runCli(['grep', '--color', 'sometimes', 'pin'], { cwd: root })).code, 2);
});

test('cli grep: on a terminal it is coloured unless NO_COLOR', async () => {
  const onTerminal = async (env: Record<string, string>) => {
    const r = await cliOnTerminal(['grep', 'pin', 'sub'], { cwd: root, env });
    assert.equal(r.code, 0, r.screen);
    return r.screen;
  };
  assert.ok((await onTerminal({})).includes(`${ESC}35msub/c.ts${ESC}39m`));
  assert.equal(await onTerminal({ NO_COLOR: '1' }), 'sub/c.ts\n2:pin c\n');
});

/** rg on a pseudo-terminal, as the CLI is run there (test/helpers/terminal.ts). */
function rgOnTerminal(args: string[]): string {
  const quoted = [requireTool('rg'), '--no-config', ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  const r = spawnSync('script', ['-qfec', quoted, '/dev/null'], { cwd: root, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout.replace(/\r/g, '');
}

for (const args of [['needle'], ['-C', '1', 'needle'], ['needle', 'a.ts'], ['-l', 'needle'], ['-c', 'needle']]) {
  test(`cli grep on a terminal: ${args.join(' ')} is laid out as rg lays it out there (heading, line numbers)`, async () => {
    // Notes go to stderr, which shares the terminal: left out, as rg prints none.
    const ours = await cliOnTerminal(['grep', '--color', 'never', '--no-messages', ...args], { cwd: root });
    assert.equal(ours.screen, rgOnTerminal(['--sort', 'path', '--color', 'never', ...args]));
  });
}

test('cli grep and glob: hints name the CLI’s flags; an unknown type is a usage error', async () => {
  const cut = await runCli(['glob', '-e', 'ts', '--limit', '1'], { cwd: root });
  assert.deepEqual([cut.code, cut.out], [0, 'a.ts\n']);
  assert.match(cut.err, /raise --limit/);
  assert.doesNotMatch(cut.err, /raise limit/);
  const type = await runCli(['grep', '-t', 'cobol', 'x'], { cwd: root });
  assert.deepEqual([type.code, type.out], [2, '']);
  assert.match(type.err, /^mewcode: Unknown type "cobol" for -t\. Types: .*\bts\b/);
});
