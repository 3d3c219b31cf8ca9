import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { test } from 'node:test';
import { walk } from '../../lib/search/walk.ts';
import { rg } from '../helpers/rg.ts';
import { runtimeAt } from '../helpers/runtime.ts';
import { requireTool } from '../helpers/system_tools.ts';
import { tempDir, writeTree } from '../helpers/temp.ts';

// Ignore precedence and hidden files as ripgrep decides them, checked against a live rg (and git and
// fd for a glob whose literal base is inside an ignored directory).
const root = tempDir();
writeTree(root, {
  '.ignore': '*.log\n',
  'sub/.gitignore': '!keep.log\n',
  'sub/keep.log': 'needle\n',
  'sub/other.log': 'needle\n',
  'a.txt': 'needle\n',
  '.gitignore': '!.env\n/dist/\n',
  '.env': 'needle\n',
  '.prettierrc.ts': 'needle\n',
  'b.ts': 'needle\n',
  'dist/file1.js': 'needle\n',
  '.hid/c.ts': 'needle\n',
  'deep/.ignore': '!x.log\n',
  'deep/x.log': 'needle\n',
});
const rt = runtimeAt(root, { workers: 1 });

const rgFiles = (...args: string[]) => rg(root, ['--files', '--no-require-git', ...args]).lines.sort();

test('ignore as rg: an .ignore outranks a deeper .gitignore; a deeper .ignore outranks a shallower one; !.env makes .env searched', () => {
  const files: string[] = [];
  walk({ root, useIgnore: true, hidden: false, maxDepth: Number.POSITIVE_INFINITY }, [''], {
    file: (e) => void files.push(e.rel),
  });
  assert.deepEqual(files.sort(), rgFiles());
  assert.ok(files.includes('.env') && !files.includes('sub/keep.log') && files.includes('deep/x.log'));
});

test("ignore as rg: grep's glob searches the hidden and ignored files it names, not hidden or ignored directories", async () => {
  const r = await rt.call('grep', { pattern: 'needle', glob: '*.ts', output_mode: 'files_with_matches' });
  assert.equal(r.isError, false, r.content);
  assert.deepEqual(
    r.content.split('\n').filter((l) => !l.startsWith('[note')),
    rgFiles('-g', '*.ts'),
  );
  const logs = await rt.call('grep', { pattern: 'needle', glob: '*.log', output_mode: 'files_with_matches' });
  assert.deepEqual(
    logs.content.split('\n').filter((l) => !l.startsWith('[note')),
    rgFiles('-g', '*.log'),
  );
  const all = await rt.call('grep', { pattern: 'needle', output_mode: 'files_with_matches' });
  assert.deepEqual(
    all.content.split('\n').filter((l) => !l.startsWith('[note')),
    rgFiles(),
  );
});

test('ignore as git and fd: a glob whose literal base is inside an ignored directory lists nothing', async () => {
  const r = await rt.call('glob', { pattern: 'dist/*' });
  assert.equal(r.isError, false, r.content);
  assert.doesNotMatch(r.content, /file1\.js/);
  const gitBin = requireTool('git');
  const repo = tempDir();
  try {
    writeTree(repo, { '.gitignore': '/dist/\n', 'dist/file1.js': '' });
    execFileSync(gitBin, ['init', '-q', '.'], { cwd: repo });
    assert.equal(
      execFileSync(gitBin, ['ls-files', '-o', '--exclude-standard', 'dist/*'], { cwd: repo, encoding: 'utf8' }),
      '',
    );
    const fd = spawnSync(requireTool('fd'), ['--glob', '--full-path', `${repo}/dist/*`], {
      cwd: repo,
      encoding: 'utf8',
    });
    assert.equal(fd.stdout, '');
  } finally {
    rmSync(repo, { recursive: true, force: true });
  }
  // Named as the path itself, an ignored directory is searched, as rg searches a path it is given.
  const named = await rt.call('glob', { pattern: '*', path: 'dist' });
  assert.match(named.content, /file1\.js/);
});

test('ignore as rg: a** not followed by / is a*, so a**/b ignores a/b and not a/x/b (the listed difference from git)', () => {
  const dir = tempDir();
  writeTree(dir, { '.gitignore': 'a**/b\n', 'a/b': '', 'a/x/b': '', 'ab/c': '' });
  const files: string[] = [];
  walk({ root: dir, useIgnore: true, hidden: false, maxDepth: Number.POSITIVE_INFINITY }, [''], {
    file: (e) => void files.push(e.rel),
  });
  const theirs = rg(dir, ['--files', '--no-require-git']).lines.sort();
  assert.deepEqual(files.sort(), theirs);
  assert.deepEqual(theirs, ['a/x/b', 'ab/c']);
});
