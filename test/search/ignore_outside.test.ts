/**
 * Ignore files from outside the walked tree, compared with the real git (`git ls-files`, `git
 * check-ignore`) and the real rg (`rg --files`) on real repositories: a monorepo package as the root,
 * a linked worktree (`git worktree add`), the global excludes file (`core.excludesFile`, its XDG
 * default), `.ignore` and `.rgignore` at several levels, a symlinked `info/exclude`; and what is not
 * read although a tree asks for it. git and rg run with a temporary HOME (never the real one's config).
 */
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { chownSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import type { GitUser } from '../../lib/search/ignore.ts';
import { excludesFileIn } from '../../lib/search/ignore_outer.ts';
import { type SkipReason, walk } from '../../lib/search/walk.ts';
import { runtimeAt } from '../helpers/runtime.ts';
import { requireTool } from '../helpers/system_tools.ts';
import { tempDir, writeTree } from '../helpers/temp.ts';

/** An environment for git and rg: a temporary HOME, no XDG_CONFIG_HOME unless given, no global config of ours. */
function envWith(home: string, xdg?: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: home };
  for (const k of ['XDG_CONFIG_HOME', 'GIT_CONFIG_GLOBAL', 'GIT_CONFIG_SYSTEM', 'GIT_DIR', 'GIT_WORK_TREE'])
    delete env[k];
  if (xdg) env.XDG_CONFIG_HOME = xdg;
  return env;
}

const git = (cwd: string, env: NodeJS.ProcessEnv, ...args: string[]) =>
  execFileSync(requireTool('git'), args, { cwd, env, encoding: 'utf8' });
const lines = (s: string) => s.split('\n').filter(Boolean).sort();
/** What git lists in `cwd`, relative to it: kept files (tracked and untracked), or the ignored ones. */
const gitKept = (cwd: string, env: NodeJS.ProcessEnv) => lines(git(cwd, env, 'ls-files', '-co', '--exclude-standard'));
const gitIgnored = (cwd: string, env: NodeJS.ProcessEnv) =>
  lines(git(cwd, env, 'ls-files', '-oi', '--exclude-standard', '--directory')).map((l) => l.replace(/\/$/, ''));
function rgFiles(cwd: string, env: NodeJS.ProcessEnv): string[] {
  const r = spawnSync(requireTool('rg'), ['--no-config', '--files', '--hidden', '-g', '!.git'], {
    cwd,
    env,
    encoding: 'utf8',
  });
  assert.ok(r.status === 0 || r.status === 1, r.stderr);
  return lines(r.stdout);
}

/** The walker's files and the entries it skipped as ignored (hidden files included, as git lists them). */
function walked(root: string, o: { base?: string; gitUser?: GitUser } = {}) {
  const files: string[] = [];
  const ignored: [string, SkipReason][] = [];
  walk(
    {
      root,
      useIgnore: true,
      hidden: true,
      maxDepth: Number.POSITIVE_INFINITY,
      ...(o.base ? { ignoreBase: o.base } : {}),
      ...(o.gitUser ? { gitUser: o.gitUser } : {}),
    },
    [''],
    {
      file: (e) => void files.push(e.rel),
      skipped: (rel, _d, why) => void (why !== 'hidden' && ignored.push([rel, why])),
    },
  );
  return { files: files.sort(), ignored: ignored.sort(), ignoredPaths: ignored.map(([p]) => p).sort() };
}

function commitAll(repo: string, env: NodeJS.ProcessEnv): void {
  git(repo, env, 'add', '-A');
  git(repo, env, '-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'x');
}

/** A monorepo inside a directory with ignore files of its own (above the repository). */
function monorepo(): { outer: string; repo: string; app: string; env: NodeJS.ProcessEnv } {
  const outer = tempDir('mewcode-outside-');
  const env = envWith(path.join(outer, 'home'));
  const repo = path.join(outer, 'repo');
  const app = path.join(repo, 'packages', 'app');
  writeTree(outer, {
    'home/.keep': '',
    '.gitignore': 'above.txt\n', // above the repository: neither git nor rg reads it
    'repo/.gitignore': 'node_modules/\n*.log\n/top.txt\npackages/app/anchored.txt\n',
    'repo/packages/.gitignore': 'gen/\n!keep.log\n',
    'repo/packages/app/.gitignore': '!debug.log\n',
    'repo/packages/app/src/a.ts': '',
    'repo/packages/app/node_modules/x/i.js': '',
    'repo/packages/app/debug.log': '',
    'repo/packages/app/keep.log': '',
    'repo/packages/app/other.log': '',
    'repo/packages/app/top.txt': '',
    'repo/packages/app/anchored.txt': '',
    'repo/packages/app/excluded.txt': '',
    'repo/packages/app/above.txt': '',
    'repo/packages/app/gen/g.js': '',
    'repo/packages/app/src/gen/h.js': '',
  });
  git(repo, env, 'init', '-q');
  writeTree(repo, { '.git/info/exclude': 'excluded.txt\n' });
  return { outer, repo, app, env };
}

test('outside: a monorepo package as the root gets the repository’s .gitignore files and info/exclude, as git', () => {
  const { app, env } = monorepo();
  const ours = walked(app);
  assert.deepEqual(ours.files, gitKept(app, env));
  assert.deepEqual(ours.ignoredPaths, gitIgnored(app, env));
  assert.ok(ours.ignoredPaths.includes('node_modules') && ours.files.includes('above.txt'));
  assert.ok(ours.files.includes('debug.log') && ours.files.includes('keep.log') && !ours.files.includes('other.log'));
  // Which file decides, as git check-ignore -v says (the deepest .gitignore with a matching rule).
  const v = git(app, env, 'check-ignore', '-v', 'node_modules', 'excluded.txt', 'gen');
  assert.match(v, /^\.gitignore:1:node_modules\/\tnode_modules$/m);
  assert.match(v, /^\.git\/info\/exclude:1:excluded\.txt\texcluded\.txt$/m);
  assert.match(v, /^packages\/\.gitignore:1:gen\/\tgen$/m);
  assert.deepEqual(
    ours.ignored.filter(([p]) => ['node_modules', 'excluded.txt', 'gen'].includes(p)),
    [
      ['excluded.txt', '.git/info/exclude'],
      ['gen', '.gitignore'],
      ['node_modules', '.gitignore'],
    ],
  );
  // A search below the runtime root sees the same: rules between the two apply as well.
  assert.deepEqual(walked(path.join(app, 'src'), { base: app }).files, ['a.ts']);
});

test('outside: .ignore and .rgignore of every parent directory, in rg’s order, as rg --files', () => {
  const { outer, repo, app, env } = monorepo();
  writeTree(outer, {
    '.rgignore': 'r-above.txt\n',
    '.ignore': 'i-above.txt\n*.md\n',
    'repo/.ignore': 'both.txt\n',
    'repo/.rgignore': '!both.txt\n', // .rgignore outranks .ignore whatever their depths
    'repo/packages/.ignore': '!r-above.txt\n', // an .ignore cannot re-include what an .rgignore ignores
    'repo/packages/app/.gitignore': '!debug.log\n!x.md\n', // nor a .gitignore what an .ignore ignores
    'repo/packages/app/r-above.txt': '',
    'repo/packages/app/i-above.txt': '',
    'repo/packages/app/both.txt': '',
    'repo/packages/app/x.md': '',
    'repo/packages/app/sub/.ignore': 'deep.txt\n',
    'repo/packages/app/sub/.rgignore': '!deep.txt\n',
    'repo/packages/app/sub/deep.txt': '',
  });
  const ours = walked(app);
  assert.deepEqual(ours.files, rgFiles(app, env));
  assert.ok(ours.files.includes('both.txt') && ours.files.includes('sub/deep.txt'));
  assert.deepEqual(
    ours.ignored.filter(([p]) => p.endsWith('above.txt') || p === 'x.md'),
    [
      ['i-above.txt', '.ignore'],
      ['r-above.txt', '.rgignore'],
      ['x.md', '.ignore'],
    ],
  );
  assert.deepEqual(walked(repo).files, rgFiles(repo, env));
});

test('outside: a linked worktree reads the main repository’s info/exclude, as git and rg', () => {
  const dir = tempDir('mewcode-outside-');
  const env = envWith(path.join(dir, 'home'));
  const main = path.join(dir, 'main');
  writeTree(dir, { 'home/.keep': '', 'main/tracked.txt': '', 'main/.gitignore': '*.tmp\n' });
  git(main, env, 'init', '-q');
  commitAll(main, env);
  writeTree(main, { '.git/info/exclude': 'ex.txt\n/only-top.txt\n' });
  git(main, env, 'worktree', 'add', '-q', '../wt');
  const wt = path.join(dir, 'wt');
  writeTree(wt, {
    'ex.txt': '',
    'only-top.txt': '',
    'keep.txt': '',
    'a.tmp': '',
    'sub/ex.txt': '',
    'sub/only-top.txt': '',
  });
  const ours = walked(wt);
  assert.deepEqual(ours.files, gitKept(wt, env).concat(['.git']).sort(), 'the .git file is listed, as a hidden file');
  assert.deepEqual(ours.ignoredPaths, gitIgnored(wt, env));
  assert.deepEqual(
    ours.files.filter((f) => f !== '.git'),
    rgFiles(wt, env),
  );
  const sub = path.join(wt, 'sub');
  assert.deepEqual(walked(sub).files, gitKept(sub, env));
  assert.deepEqual(walked(sub).files, rgFiles(sub, env));
});

test('outside: the global excludes file (core.excludesFile, its XDG default) below info/exclude, as git and rg', () => {
  const dir = tempDir('mewcode-outside-');
  const home = path.join(dir, 'home');
  const xdg = path.join(dir, 'xdg');
  const repo = path.join(dir, 'repo');
  writeTree(dir, {
    'home/my-excludes': '*.bak\n/rootonly.txt\n',
    'xdg/git/ignore': '*.swp\n',
    'repo/a.bak': '',
    'repo/keep.bak': '',
    'repo/rootonly.txt': '',
    'repo/sub/rootonly.txt': '',
    'repo/sub/b.bak': '',
    'repo/x.swp': '',
    'repo/ok.txt': '',
  });
  const env = envWith(home);
  git(repo, env, 'init', '-q');
  writeTree(repo, { '.git/info/exclude': '!keep.bak\n' }); // info/exclude outranks the global file
  git(repo, env, 'config', '--global', 'core.excludesFile', '~/my-excludes');
  const user = { home };
  const ours = walked(repo, { gitUser: user });
  assert.deepEqual(ours.files, gitKept(repo, env));
  assert.deepEqual(ours.files, rgFiles(repo, env));
  assert.ok(ours.files.includes('keep.bak') && ours.files.includes('sub/rootonly.txt'));
  assert.deepEqual(ours.ignored, [
    ['a.bak', 'core.excludesFile'],
    ['rootonly.txt', 'core.excludesFile'],
    ['sub/b.bak', 'core.excludesFile'],
  ]);
  // Anchored patterns of the global file are relative to the repository's top, as git has them
  // (rg anchors them where it runs): a search of sub/ keeps sub/rootonly.txt.
  assert.deepEqual(walked(path.join(repo, 'sub'), { gitUser: user }).files, gitKept(path.join(repo, 'sub'), env));
  assert.deepEqual(walked(repo).files.length, ours.files.length + 3, 'without a home, no global file is read');
  // Unset, git reads $XDG_CONFIG_HOME/git/ignore.
  git(repo, env, 'config', '--global', '--unset', 'core.excludesFile');
  const xdgEnv = envWith(home, xdg);
  const byXdg = walked(repo, { gitUser: { home, xdgConfigHome: xdg } });
  assert.deepEqual(byXdg.files, gitKept(repo, xdgEnv));
  assert.deepEqual(byXdg.files, rgFiles(repo, xdgEnv));
  assert.deepEqual(byXdg.ignored, [['x.swp', 'core.excludesFile']]);
});

test('outside: a symlinked info/exclude is read, as git and rg read it', () => {
  const dir = tempDir('mewcode-outside-');
  const env = envWith(path.join(dir, 'home'));
  const repo = path.join(dir, 'repo');
  writeTree(dir, { 'home/.keep': '', 'shared-exclude': 'secret.env\n', 'repo/secret.env': '', 'repo/ok.txt': '' });
  git(repo, env, 'init', '-q');
  mkdirSync(path.join(repo, '.git/info'), { recursive: true });
  rmSync(path.join(repo, '.git/info/exclude'), { force: true });
  symlinkSync(path.join(dir, 'shared-exclude'), path.join(repo, '.git/info/exclude'));
  const ours = walked(repo);
  assert.deepEqual(ours.files, gitKept(repo, env));
  assert.deepEqual(ours.files, rgFiles(repo, env));
  assert.deepEqual(ours.ignored, [['secret.env', '.git/info/exclude']]);
});

test('outside: a .git symlink to a git directory elsewhere is followed, as git follows it', () => {
  const dir = tempDir('mewcode-outside-');
  const env = envWith(path.join(dir, 'home'));
  const repo = path.join(dir, 'repo');
  writeTree(dir, { 'home/.keep': '', 'repo/pkg/x.txt': '', 'repo/pkg/y.txt': '', 'repo/.gitignore': 'y.txt\n' });
  git(dir, env, 'init', '-q', 'elsewhere');
  writeTree(dir, { 'elsewhere/.git/info/exclude': 'x.txt\n' });
  symlinkSync(path.join(dir, 'elsewhere/.git'), path.join(repo, '.git'));
  const pkg = path.join(repo, 'pkg');
  assert.deepEqual(walked(pkg).files, gitKept(pkg, env));
  assert.deepEqual(walked(pkg).files, []);
  assert.deepEqual(walked(pkg).ignored, [
    ['x.txt', '.git/info/exclude'],
    ['y.txt', '.gitignore'],
  ]);
});

test('outside: no .gitignore above a tree outside any repository; none above the repository’s top', () => {
  const dir = tempDir('mewcode-outside-');
  const env = envWith(path.join(dir, 'home'));
  writeTree(dir, { 'home/.keep': '', '.gitignore': '*.txt\n', 'plain/a.txt': '', 'repo/nested/a.txt': '' });
  // No .git anywhere above: rg (without --no-require-git) and git read no parent .gitignore.
  assert.deepEqual(walked(path.join(dir, 'plain')).files, ['a.txt']);
  assert.deepEqual(rgFiles(path.join(dir, 'plain'), env), ['a.txt']);
  git(path.join(dir, 'repo'), env, 'init', '-q');
  const nested = path.join(dir, 'repo', 'nested');
  assert.deepEqual(walked(nested).files, gitKept(nested, env));
  assert.deepEqual(walked(nested).files, ['a.txt']);
});

test('outside: what a tree cannot make MewCode read (a .git file to a non-repository, the repository’s own core.excludesFile, a symlinked parent .gitignore, another user’s parent .ignore)', () => {
  const dir = tempDir('mewcode-outside-');
  const env = envWith(path.join(dir, 'home'));
  writeTree(dir, {
    'home/.keep': '',
    'elsewhere/info/exclude': 'a.txt\n',
    'patterns.txt': 'b.txt\n',
    'repo/a.txt': '',
    'repo/b.txt': '',
    'repo/c.txt': '',
    'repo/pkg/c.txt': '',
    'repo/pkg/d.txt': '',
  });
  const repo = path.join(dir, 'repo');
  // A .git file naming a directory that is no git directory: no repository, its info/exclude unread.
  writeFileSync(path.join(repo, '.git'), `gitdir: ${path.join(dir, 'elsewhere')}\n`);
  assert.deepEqual(walked(repo).files, ['.git', 'a.txt', 'b.txt', 'c.txt', 'pkg/c.txt', 'pkg/d.txt']);
  const gitStatus = spawnSync(requireTool('git'), ['ls-files', '-o'], { cwd: repo, env, encoding: 'utf8' });
  assert.notEqual(gitStatus.status, 0, 'git takes it for no repository either');
  // The repository's own config naming an excludes file: git reads it, MewCode does not.
  rmSync(path.join(repo, '.git'));
  git(repo, env, 'init', '-q');
  git(repo, env, 'config', 'core.excludesFile', path.join(dir, 'patterns.txt'));
  assert.ok(!gitKept(repo, env).includes('b.txt'), 'git reads the local core.excludesFile');
  assert.ok(walked(repo, { gitUser: { home: path.join(dir, 'home') } }).files.includes('b.txt'));
  // A symlinked .gitignore above the root is not read, as git (2.32 on) does not read one.
  symlinkSync(path.join(dir, 'patterns.txt'), path.join(repo, '.gitignore'));
  writeFileSync(path.join(dir, 'patterns.txt'), 'c.txt\n');
  const pkg = path.join(repo, 'pkg');
  git(repo, env, 'config', '--unset', 'core.excludesFile');
  assert.deepEqual(walked(pkg).files, gitKept(pkg, env));
  assert.ok(walked(pkg).files.includes('c.txt'));
  // Another user's .ignore above the root is not read (git refuses another user's repository).
  if (process.getuid?.() === 0) {
    writeFileSync(path.join(repo, '.ignore'), 'd.txt\n');
    assert.ok(!walked(pkg).files.includes('d.txt'), 'our own .ignore is read');
    chownSync(path.join(repo, '.ignore'), 65534, 65534);
    assert.ok(walked(pkg).files.includes('d.txt'), 'another user’s is not');
  }
});

test('outside: core.excludesFile is parsed as git parses config values', () => {
  assert.equal(excludesFileIn('[core]\n\texcludesFile = ~/x # comment\n'), '~/x');
  assert.equal(excludesFileIn('[Core]\nEXCLUDESFILE="/a b/c"\n'), '/a b/c');
  assert.equal(excludesFileIn('[core "sub"]\nexcludesfile = /no\n[user]\nexcludesfile = /no\n'), undefined);
  assert.equal(excludesFileIn('[core]\nexcludesfile = /first\n[core] excludesfile = /last ; c\n'), '/last');
  assert.equal(excludesFileIn('[core]\nexcludesfile = "a\\"b"\n'), 'a"b');
});

test('outside: a runtime rooted at a package searches as git sees it; its home names the global excludes file', async () => {
  const { outer, app } = monorepo();
  const home = path.join(outer, 'home');
  writeTree(outer, { 'home/.config/git/ignore': '*.secret\n', 'repo/packages/app/src/k.secret': 'needle\n' });
  writeTree(app, { 'node_modules/x/i.js': 'needle\n', 'src/a.ts': 'needle\n', 'gen/g.js': 'needle\n' });
  const withHome = runtimeAt(app, { workers: 0, index: 'off', home });
  const r = await withHome.call('grep', { pattern: 'needle', output_mode: 'files_with_matches' });
  assert.equal(r.isError, false, r.content);
  assert.deepEqual(
    r.content.split('\n').filter((l) => l && !l.startsWith('[')),
    ['src/a.ts'],
  );
  assert.match(r.content, /by core\.excludesFile/);
  const g = await withHome.call('glob', { pattern: '**/*.js' });
  assert.doesNotMatch(g.content, /node_modules|gen\/g\.js/);
  const noHome = runtimeAt(app, { workers: 0, index: 'off' }); // home: null (the helper's default)
  const n = await noHome.call('grep', { pattern: 'needle', output_mode: 'files_with_matches' });
  assert.deepEqual(
    n.content.split('\n').filter((l) => l && !l.startsWith('[')),
    ['src/a.ts', 'src/k.secret'],
  );
});
