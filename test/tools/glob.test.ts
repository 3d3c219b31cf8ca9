import assert from 'node:assert/strict';
import { mkdirSync, symlinkSync, utimesSync } from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import type { Runtime } from '../../lib/runtime/runtime.ts';
import { runtimeAt } from '../helpers/runtime.ts';
import { tempDir, writeTree } from '../helpers/temp.ts';

const root = tempDir();
writeTree(root, {
  '.gitignore': 'node_modules/\n*.log\n/build\ndist/\n',
  'a.ts': '',
  'b.js': '',
  'c.md': '',
  'debug.log': '',
  'src/x.ts': '',
  'src/y.tsx': '',
  'src/lib/z.ts': '',
  'src/lib/w.js': '',
  'src/build/kept.ts': '',
  'src/.hidden.ts': '',
  'src/a..go': '',
  'build/gone.ts': '',
  'node_modules/pkg/index.ts': '',
  'pkg/dist/out.ts': '',
  'pkg/.gitignore': '!keep.log\n',
  'pkg/keep.log': '',
  'pkg/drop.log': '',
  '.github/workflows/ci.yml': '',
  '.github/dependabot.yml': '',
  'file[1].txt': '',
  'file1.txt': '',
  'file2.txt': '',
});
symlinkSync('..', path.join(root, 'src', 'loop'));
symlinkSync('/etc', path.join(root, 'etc_link'));
const old = new Date('2020-01-01T00:00:00Z');
for (const f of ['a.ts', 'src/x.ts', 'src/lib/z.ts']) utimesSync(path.join(root, f), old, old);
utimesSync(path.join(root, 'src/y.tsx'), new Date('2024-01-01'), new Date('2024-01-01'));

const runtimes: Runtime[] = [runtimeAt(root, { workers: 0 }), runtimeAt(root, { workers: 2 })];
after(() => Promise.all(runtimes.map((r) => r.close())));
const [inline, pooled] = runtimes as [Runtime, Runtime];

async function paths(input: Record<string, unknown>) {
  const a = await inline.call('glob', input);
  const b = await pooled.call('glob', input);
  assert.equal(a.content, b.content, 'inline and pooled answers are identical');
  return a.content.split('\n').filter((l) => !l.startsWith('['));
}

const table: [string, Record<string, unknown>, string[]][] = [
  [
    '** matches at any depth, ignore files honoured',
    { pattern: '**/*.ts' },
    ['a.ts', 'src/build/kept.ts', 'src/lib/z.ts', 'src/x.ts'],
  ],
  ['a slash-less pattern matches the top level only', { pattern: '*.ts' }, ['a.ts']],
  ['braces', { pattern: '**/*.{js,tsx}' }, ['b.js', 'src/lib/w.js', 'src/y.tsx']],
  ['classes', { pattern: 'file[12].txt' }, ['file1.txt', 'file2.txt']],
  ['extglob', { pattern: 'src/**/+(x|z).ts' }, ['src/lib/z.ts', 'src/x.ts']],
  ['a literal base directory', { pattern: 'src/lib/*' }, ['src/lib/w.js', 'src/lib/z.ts']],
  [
    'a dot directory named by the pattern',
    { pattern: '.github/**' },
    ['.github/dependabot.yml', '.github/workflows/ci.yml'],
  ],
  ['hidden files only when named', { pattern: 'src/.*.ts' }, ['src/.hidden.ts']],
  ['names with two dots', { pattern: 'src/*..go' }, ['src/a..go']],
  ['negation in a nested .gitignore re-includes', { pattern: 'pkg/*.log' }, ['pkg/keep.log']],
  ['relative to path, shown relative to the root', { pattern: '*.ts', path: 'src' }, ['src/x.ts']],
  [
    'include_ignored lists ignored and hidden files',
    { pattern: '**/*.ts', include_ignored: true },
    [
      'a.ts',
      'build/gone.ts',
      'node_modules/pkg/index.ts',
      'pkg/dist/out.ts',
      'src/.hidden.ts',
      'src/build/kept.ts',
      'src/lib/z.ts',
      'src/x.ts',
    ],
  ],
  ['symlinks are listed, never followed', { pattern: 'etc_link/**' }, ['No files match "etc_link/**" in ".".']],
  ['a symlink itself is a path', { pattern: 'etc_link' }, ['etc_link']],
  [
    'mtime sort is newest first over all matches',
    { pattern: '**/*.{ts,tsx}', sort: 'mtime', limit: 2 },
    ['src/build/kept.ts', 'src/y.tsx'],
  ],
];
for (const [what, input, expected] of table) {
  test(`glob: ${what}`, async () => {
    assert.deepEqual(await paths(input), expected);
  });
}

test('glob: the limit cuts after sorting and the note gives the total', async () => {
  const r = await inline.call('glob', { pattern: '**/*', limit: 3 });
  const lines = r.content.split('\n');
  assert.deepEqual(lines.slice(0, 3), ['a.ts', 'b.js', 'c.md']);
  assert.match(lines[3] ?? '', /^\[truncated: showing 3 of 1\d paths; raise limit or narrow the pattern\]$/);
  assert.equal(r.meta?.shown, 3);
});

test('glob: skipped paths are counted by reason with how to include them', async () => {
  const r = await inline.call('glob', { pattern: '**/*.ts' });
  assert.equal(
    r.content.split('\n').at(-1),
    '[note: skipped 1 directory and 1 file hidden; 3 directories by .gitignore; pass include_ignored: true to include them]',
  );
});

test('glob: no match is not an error, and a slash-less pattern suggests **/', async () => {
  const r = await inline.call('glob', { pattern: '*.go' });
  assert.equal(r.isError, false);
  assert.match(
    r.content,
    /^No files match "\*\.go" in "\."\. A pattern without "\/" matches only the top level; try "\*\*\/\*\.go"\./,
  );
});

test('glob: invalid, absolute and climbing patterns are errors that say why', async () => {
  const bad = await inline.call('glob', { pattern: 'src/[abc' });
  assert.equal(bad.code, 'invalid_args');
  assert.match(bad.content, /^Invalid glob pattern "src\/\[abc": /);
  assert.match((await inline.call('glob', { pattern: '/etc/*' })).content, /is absolute/);
  assert.match((await inline.call('glob', { pattern: '../../etc/*' })).content, /climbs out with "\.\."/);
  assert.equal((await inline.call('glob', { pattern: '*', path: '../' })).code, 'outside_root');
});

test('glob: a path that is a file, or missing, is an error', async () => {
  assert.match(
    (await inline.call('glob', { pattern: '*', path: 'a.ts' })).content,
    /is a file; glob searches a directory/,
  );
  assert.equal((await inline.call('glob', { pattern: '*', path: 'nope' })).code, 'not_found');
});

test('glob: a directory symlink loop is not walked', async () => {
  mkdirSync(path.join(root, 'deep'), { recursive: true });
  const r = await pooled.call('glob', { pattern: '**/loop/**' });
  assert.equal(r.content.split('\n')[0], 'src/loop', 'the link is listed; nothing below it');
  assert.equal(r.meta?.total, 1);
});

test('glob: pattern bombs end quickly with bounded results', async () => {
  const bomb = `${'{a,b}'.repeat(20)}*`;
  const r = await inline.call('glob', { pattern: bomb });
  assert.equal(r.isError, false);
  const deep = await inline.call('glob', { pattern: '**/**/**/**/**/*.ts' });
  assert.deepEqual(deep.content.split('\n').slice(0, 4), ['a.ts', 'src/build/kept.ts', 'src/lib/z.ts', 'src/x.ts']);
});
