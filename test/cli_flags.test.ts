/**
 * The flag table: one meaning per short letter per command, checked through the real parser (as
 * ripgrep checks its own table), and the help and docs/cli.md list every flag the table has.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { parseCli } from '../lib/cli/args.ts';
import { COMMAND_SHORTS, type Command, FLAGS, type Flag, type FlagSpec, shortsOf, takes } from '../lib/cli/flags.ts';
import { commandHelp, HELP } from '../lib/cli/help.ts';
import { RG_REFUSED } from '../lib/cli/rg_refused.ts';
import { runCli } from './helpers/cli.ts';
import { REPO } from './helpers/repo.ts';
import { tempDir, writeTree } from './helpers/temp.ts';

const commands = Object.keys(COMMAND_SHORTS) as Command[];
const word = (c: Command) => (c === 'agent' ? 'run' : c);

test('cli flags: within each command a short letter names one flag, and a flag has at most one letter', () => {
  for (const c of commands) {
    const shorts = Object.entries(shortsOf(c));
    const flags = shorts.map(([, f]) => f);
    assert.equal(new Set(flags).size, flags.length, `${c}: a flag with two letters`);
    for (const [letter, flag] of shorts) {
      assert.ok(takes(c, flag), `${c}: -${letter} names --${flag}, which ${c} does not take`);
      // Through the real parser: the letter sets that flag and nothing else.
      const spec = FLAGS[flag] as FlagSpec;
      const argv = [word(c), `-${letter}`, ...(spec.type === 'string' ? ['1'] : [])];
      const values = parseCli(
        flag === 'help' ? argv : [...argv, ...(c === 'agent' && flag !== 'prompt' ? ['x y'] : [])],
      ).values;
      assert.deepEqual(Object.keys({ ...values }), [flag], `${c}: -${letter}`);
    }
  }
});

test('cli flags: grep has ripgrep’s letters; -A is after-context there and --allow-all elsewhere', () => {
  const grep = shortsOf('grep');
  const expected: Record<string, Flag> = {
    A: 'after',
    B: 'before',
    C: 'context',
    e: 'regexp',
    w: 'word-regexp',
    v: 'invert-match',
    t: 'type',
    T: 'type-not',
    m: 'max-count',
    o: 'only-matching',
    g: 'glob',
    u: 'unrestricted',
    i: 'ignore-case',
    F: 'fixed-strings',
    l: 'files-with-matches',
    c: 'count',
  };
  for (const [letter, flag] of Object.entries(expected)) assert.equal(grep[letter], flag, `-${letter}`);
  assert.deepEqual([shortsOf('glob').e, shortsOf('glob').H, shortsOf('glob').I], ['extension', 'hidden', 'no-ignore']);
  assert.equal(shortsOf('call').A, 'allow-all');
  assert.equal(shortsOf('call').v, 'verbose');
  assert.deepEqual({ ...parseCli(['grep', '-A', '2', 'x']).values }, { after: '2' });
  assert.deepEqual(
    { ...parseCli(['grep', '--allow-all', '-g', 'a', '-g', '!b', 'x']).values },
    {
      'allow-all': true,
      glob: ['a', '!b'],
    },
  );
});

test('cli flags: every flag is in the help of each command that takes it, and in docs/cli.md', () => {
  const cliGuide = readFileSync(path.join(REPO, 'docs', 'cli.md'), 'utf8');
  for (const flag of Object.keys(FLAGS) as Flag[]) {
    const only = (FLAGS[flag] as FlagSpec).commands;
    if (!flag.startsWith('allow-') && !flag.startsWith('deny-')) {
      for (const c of only ?? ['grep' as const])
        assert.match(commandHelp(c), new RegExp(`--${flag}\\b`), `${c} --help`);
      if (!only) assert.match(HELP, new RegExp(`--${flag}\\b`), '--help');
    } else assert.match(HELP, new RegExp(`--${flag}\\b`), '--help');
    assert.ok(new RegExp(`--${flag}\\b`).test(cliGuide), `docs/cli.md names --${flag}`);
  }
  for (const c of commands) {
    for (const [letter, flag] of Object.entries(COMMAND_SHORTS[c]))
      assert.match(commandHelp(c), new RegExp(`-${letter}, --${flag}\\b`), `${c} --help shows -${letter}`);
  }
});

test('cli flags: `grep -A 2 x .` is after-context in the real program', async () => {
  const root = tempDir();
  writeTree(root, { 'a.txt': 'x\none\ntwo\nthree\n' });
  const r = await runCli(['grep', '-A', '2', 'x', '.'], { cwd: root });
  assert.deepEqual(r, { code: 0, out: 'a.txt:x\na.txt-one\na.txt-two\n', err: '' });
});

test('cli flags: each rg flag grep refuses says why, is none grep takes, and is a row of docs/cli.md', () => {
  const guide = readFileSync(path.join(REPO, 'docs', 'cli.md'), 'utf8');
  const rows = guide
    .slice(guide.indexOf('<!-- Refused rg flags'))
    .split('\n')
    .filter((l) => l.startsWith('| `'))
    .map((l) => [...(l.split(' | ')[0] as string).matchAll(/`(-[^`]+)`/g)].map((m) => m[1]));
  const table = RG_REFUSED.map((r) => [...(r.short ? [`-${r.short}`] : []), ...r.long.map((l) => `--${l}`)]);
  assert.deepEqual(rows, table, 'docs/cli.md lists RG_REFUSED, in order');
  for (const flags of table)
    for (const flag of flags) {
      assert.ok(!(flag.replace(/^-+/, '') in shortsOf('grep')), `${flag} is one of grep's own letters`);
      const name = flag.slice(2);
      assert.ok(!(flag.startsWith('--') && name in FLAGS && takes('grep', name as Flag)), `${flag} is one of grep's`);
      assert.throws(() => parseCli(['grep', flag, 'x']), new RegExp(`^Error: ripgrep's ${flag} is not supported: `));
    }
});

test('cli flags: a mistyped flag names the nearest flag the command takes', () => {
  assert.throws(() => parseCli(['grep', '--hiden', 'x']), /Unknown flag --hiden\. Did you mean --hidden\?/);
  assert.throws(() => parseCli(['grep', '--contxt', '1', 'x']), /Did you mean --context\?/);
  assert.throws(() => parseCli(['read', 'a', '--ofset', '2']), /Did you mean --offset\?/);
  assert.throws(
    () => parseCli(['grep', '--zzzzzz', 'x']),
    /^Error: Unknown flag --zzzzzz\. See mewcode grep --help\.$/,
  );
});
