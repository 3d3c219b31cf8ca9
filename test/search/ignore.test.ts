import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { test } from 'node:test';
import { IgnoreRules } from '../../lib/search/ignore.ts';
import { type SkipReason, walk } from '../../lib/search/walk.ts';
import { requireTool } from '../helpers/system_tools.ts';
import { tempDir, writeTree } from '../helpers/temp.ts';

/** Every file the walker yields with ignore rules on and hidden files included. */
function walked(root: string, base?: string, start = '') {
  const files: string[] = [];
  const skipped: [string, SkipReason][] = [];
  walk(
    { root, useIgnore: true, hidden: true, maxDepth: Number.POSITIVE_INFINITY, ...(base ? { ignoreBase: base } : {}) },
    [start],
    { file: (e) => void files.push(e.rel), skipped: (rel, _d, why) => void skipped.push([rel, why]) },
  );
  return { files, skipped };
}

// git is the reference; missing, these tests fail naming the package instead of an ENOENT.
const git = (args: string[], cwd: string) => execFileSync(requireTool('git'), args, { cwd, encoding: 'utf8' });
const gitFiles = (root: string) =>
  git(['ls-files', '-co', '--exclude-standard'], root).split('\n').filter(Boolean).sort();

test('ignore: the walker keeps exactly the files git keeps (negation, anchors, directory-only, nested overrides)', () => {
  const root = tempDir();
  writeTree(root, {
    '.gitignore': [
      '*.log',
      '!important.log',
      '/build',
      'tmp/',
      'docs/**/*.draft',
      '\\#hash',
      'trailing\\ ',
      'a/**/b',
    ].join('\n'),
    'app.log': '',
    'important.log': '',
    'build/x.js': '',
    'src/build/kept.js': '',
    'tmp/t.txt': '',
    'src/tmp/t.txt': '',
    'tmp.txt': '',
    'docs/a/b/c.draft': '',
    'docs/c.md': '',
    '#hash': '',
    'a/x/y/b': '',
    'a/b': '',
    'pkg/.gitignore': ['!*.log', 'local.txt', '/only-here.txt', 'sub/'].join('\n'),
    'pkg/trace.log': '',
    'pkg/local.txt': '',
    'pkg/only-here.txt': '',
    'pkg/deep/only-here.txt': '',
    'pkg/sub/file': '',
    'pkg/deep/sub/file': '',
    'pkg/deep/.gitignore': '!local.txt\n',
    'pkg/deep/local.txt': '',
    'pkg/deep/other.txt': '',
    'node_modules/keep/me.js': '',
  });
  git(['init', '-q'], root);
  assert.deepEqual(walked(root).files.sort(), gitFiles(root));
});

test('ignore: .ignore overrides .gitignore and .mewcodeignore overrides both, per directory', () => {
  const root = tempDir();
  writeTree(root, {
    '.gitignore': 'secret.txt\ngen/\n',
    '.ignore': '!secret.txt\nnotes.md\n',
    '.mewcodeignore': '!notes.md\nbig.bin\n',
    'secret.txt': '',
    'notes.md': '',
    'big.bin': '',
    'gen/x.ts': '',
    'keep.ts': '',
  });
  const { files, skipped } = walked(root);
  assert.deepEqual(files, ['.gitignore', '.ignore', '.mewcodeignore', 'keep.ts', 'notes.md', 'secret.txt']);
  assert.deepEqual(skipped, [
    ['big.bin', '.mewcodeignore'],
    ['gen', '.gitignore'],
  ]);
});

test('ignore: rules of parent directories apply to a search started below them', () => {
  const root = tempDir();
  writeTree(root, { '.gitignore': '*.log\n/top-only\n', 'sub/a.log': '', 'sub/a.txt': '', 'sub/top-only': '' });
  assert.deepEqual(walked(`${root}/sub`, root).files, ['a.txt', 'top-only']);
  assert.deepEqual(
    walked(`${root}/sub`).files,
    ['a.log', 'a.txt', 'top-only'],
    'without a base only the walk root’s rules apply',
  );
});

test('ignore: .git/info/exclude is the lowest layer', () => {
  const root = tempDir();
  writeTree(root, { 'x.txt': '', 'y.txt': '', '.gitignore': '!y.txt\n' });
  git(['init', '-q'], root);
  writeTree(root, { '.git/info/exclude': 'x.txt\ny.txt\n' });
  assert.deepEqual(walked(root).files, ['.gitignore', 'y.txt']);
  assert.deepEqual(walked(root).files, gitFiles(root));
  assert.equal(IgnoreRules.decide(new IgnoreRules(root).stackFor(''), 'x.txt', false), '.git/info/exclude');
});
