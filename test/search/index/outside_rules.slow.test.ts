/**
 * Rule files outside the indexed root — a parent directory's .gitignore in the repository above a
 * package, an .ignore at the repository's top, the global excludes file of the runtime's home — change
 * after the index is built: no watch sees them, so the warm runtime checks their states before each
 * search (sweep.ts `rulesOutsideWatches`). Each test learns a walk summary first (two searches), then
 * changes the rule: the next searches must answer as a runtime without an index, and as rg.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import type { SearchIndex } from '../../../lib/search/index/service.ts';
import { runtimeAt } from '../../helpers/runtime.ts';
import { requireTool } from '../../helpers/system_tools.ts';
import { tempDir } from '../../helpers/temp.ts';
import { agedTree, assertSame, HAY, ourFiles, prime, rgFiles, type Trio } from './attack_helpers.ts';

/**
 * A repository (its top holding `top` rule files) whose package `pkg` is the runtime root, aged past
 * the racy window; `home` is the runtimes' home (the global excludes file).
 */
async function packageTrio(top: Record<string, string>, pkg: Record<string, string>): Promise<Trio & { dir: string }> {
  const files: Record<string, string> = { ...top };
  for (const [rel, text] of Object.entries({ ...HAY, 'a.txt': 'needle here\n', ...pkg })) files[`pkg/${rel}`] = text;
  const dir = await agedTree(files, (d) => {
    mkdirSync(path.join(d, 'pkg/ign'), { recursive: true });
    execFileSync(requireTool('git'), ['init', '-q'], { cwd: d, env: { ...process.env, HOME: path.join(d, 'home') } });
  });
  const root = path.join(dir, 'pkg');
  const home = path.join(dir, 'home');
  const cache = tempDir('mewcode-attack-cache-');
  const warm = runtimeAt(root, { workers: 2, index: 'build', indexCacheDir: cache, allowWrite: true, home });
  const built = await warm.searchIndex?.build();
  assert.ok(built?.ok, `built: ${JSON.stringify(built)}`);
  const cold = runtimeAt(root, { workers: 2, index: 'existing', indexCacheDir: cache, home });
  const plain = runtimeAt(root, { workers: 2, index: 'off', home });
  return { dir, root, cache, warm, cold, plain };
}

test('outside rules: a parent .gitignore that starts ignoring an indexed directory after the build', async () => {
  const t = await packageTrio({ '.gitignore': 'ign/\n' }, { 'gen/g.txt': 'needle generated\n' });
  await prime(t, 'needle');
  assert.ok((await ourFiles(t.warm, { pattern: 'needle' })).includes('gen/g.txt'));
  writeFileSync(path.join(t.dir, '.gitignore'), 'ign/\ngen/\n');
  for (let i = 0; i < 3; i++) await assertSame(t, { pattern: 'needle' }, 'the parent .gitignore ignores gen/');
  const warm = await ourFiles(t.warm, { pattern: 'needle' });
  assert.ok(!warm.includes('gen/g.txt'), warm.join(' '));
  assert.deepEqual(warm, rgFiles(t.root, ['needle']));
});

test('outside rules: a parent .gitignore that stops ignoring a directory the build never entered', async () => {
  const t = await packageTrio({ '.gitignore': 'ign/\n' }, {});
  await prime(t, 'needle');
  writeFileSync(path.join(t.dir, '.gitignore'), '# nothing ignored\n');
  await prime(t, 'needle');
  writeFileSync(path.join(t.root, 'ign/new.txt'), 'needle in a directory the build never entered\n');
  for (let i = 0; i < 2; i++) await assertSame(t, { pattern: 'needle' }, 'a file made in the un-ignored directory');
  const warm = await ourFiles(t.warm, { pattern: 'needle' });
  assert.ok(warm.includes('ign/new.txt'), warm.join(' '));
  assert.deepEqual(warm, rgFiles(t.root, ['needle']));
});

test('outside rules: an .ignore created at the repository’s top, above the root, and the global excludes file edited', async () => {
  const t = await packageTrio(
    { 'home/.config/git/ignore': '*.bak\n' },
    { 'b.log': 'needle log\n', 'c.md': 'needle md\n' },
  );
  await prime(t, 'needle');
  writeFileSync(path.join(t.dir, '.ignore'), '*.md\n');
  for (let i = 0; i < 2; i++) await assertSame(t, { pattern: 'needle' }, 'an .ignore made above the root');
  assert.ok(!(await ourFiles(t.warm, { pattern: 'needle' })).includes('c.md'));
  await prime(t, 'needle');
  writeFileSync(path.join(t.dir, 'home/.config/git/ignore'), '*.bak\n*.log\n');
  for (let i = 0; i < 2; i++) await assertSame(t, { pattern: 'needle' }, 'the global excludes file ignores *.log');
  assert.deepEqual(await ourFiles(t.warm, { pattern: 'needle' }), ['a.txt']);
});

test('outside rules: git writing in its own directory (any git command) is no rule change; a repository made anew is', async () => {
  const t = await packageTrio({ '.gitignore': 'ign/\n' }, {});
  await prime(t, 'needle');
  const index = t.warm.searchIndex as SearchIndex;
  const loaded = index.loaded;
  const git = (...args: string[]) =>
    execFileSync(requireTool('git'), args, { cwd: t.dir, env: { ...process.env, HOME: path.join(t.dir, 'home') } });
  git('add', '-A'); // writes .git/index through index.lock: the .git directory's times move
  git('-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'x');
  const how = await assertSame(t, { pattern: 'needle' }, 'git add and commit');
  assert.equal(how[0], 'warm: served without a walk');
  assert.equal(index.loaded, loaded, 'no rebuild');
  // A repository made anew (another .git directory) may bring other rules: no longer walk-less.
  rmSync(path.join(t.dir, '.git'), { recursive: true });
  git('init', '-q');
  writeFileSync(path.join(t.dir, '.git/info/exclude'), 'pkg/a.txt\n');
  const after = await assertSame(t, { pattern: 'needle' }, 'a repository made anew');
  assert.notEqual(after[0], 'warm: served without a walk');
  assert.deepEqual(await ourFiles(t.warm, { pattern: 'needle' }), rgFiles(t.root, ['needle']));
  assert.ok(!(await ourFiles(t.warm, { pattern: 'needle' })).includes('a.txt'));
});
