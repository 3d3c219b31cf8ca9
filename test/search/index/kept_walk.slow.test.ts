/**
 * Walks kept beside the index (walk_record.ts): a runtime that learns a walk of the root while the
 * tree is as its index's build left it writes the walk down, and the next runtime that loads the
 * index serves its first search without a walk once its check finds the tree still so. Every way the
 * tree can change between the two runtimes — a file added, removed or edited, a new directory, an
 * ignore file edited in place, a rule outside the tree, a rebuilt index, a record that is not one —
 * must leave the first answer equal to ripgrep's and to a runtime without an index.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import type { Runtime } from '../../../lib/runtime/runtime.ts';
import type { SearchIndex } from '../../../lib/search/index/service.ts';
import { walkRecordFile } from '../../../lib/search/index/walk_record.ts';
import { runtimeAt } from '../../helpers/runtime.ts';
import { requireTool } from '../../helpers/system_tools.ts';
import { tempDir } from '../../helpers/temp.ts';
import { agedTree, HAY } from './attack_helpers.ts';

const WALKLESS = 'served without a walk';
const CHECKING = 'served, index check running';

/** A repository whose package `pkg` is the root (so a rule outside the tree exists), aged past the racy window. */
async function repoTree(): Promise<{ dir: string; root: string; home: string }> {
  const files: Record<string, string> = { '.gitignore': 'ign/\n' };
  const pkg = { ...HAY, 'a.txt': 'needle here\n', 'b.txt': 'plain words\n', 'ign/x.txt': 'needle ignored\n' };
  for (const [rel, text] of Object.entries(pkg)) files[`pkg/${rel}`] = text;
  files['pkg/sub/.gitignore'] = 'skip.txt\n';
  files['pkg/sub/skip.txt'] = 'needle skipped by a rule\n';
  files['pkg/sub/kept.bin'] = 'needle\0binary\n';
  const dir = await agedTree(files, (d) =>
    execFileSync(requireTool('git'), ['init', '-q'], { cwd: d, env: { ...process.env, HOME: path.join(d, 'home') } }),
  );
  return { dir, root: path.join(dir, 'pkg'), home: path.join(dir, 'home') };
}

interface Kept {
  dir: string;
  root: string;
  home: string;
  cache: string;
  /** The record's path. */
  record: string;
  /** A runtime without an index: what every answer must equal. */
  plain: Runtime;
}

/** `t`'s tree, its index built and one walk of the root learned (so kept) by a runtime then closed. */
async function kept(): Promise<Kept> {
  const tree = await repoTree();
  const cache = tempDir('mewcode-kept-cache-');
  const builder = runtimeAt(tree.root, { workers: 2, index: 'build', indexCacheDir: cache, home: tree.home });
  const index = builder.searchIndex as SearchIndex;
  assert.ok((await index.build()).ok, 'built');
  assert.equal(await served(builder, 'needle'), 'served', 'the walk that is kept');
  await builder.close();
  const record = walkRecordFile(index.file);
  assert.ok(existsSync(record), 'the walk is kept beside the index');
  return { ...tree, cache, record, plain: runtimeAt(tree.root, { workers: 2, index: 'off', home: tree.home }) };
}

/** A fresh runtime loading `t`'s index. */
const fresh = (t: Kept) => runtimeAt(t.root, { workers: 2, index: 'build', indexCacheDir: t.cache, home: t.home });

const filesOf = (content: string) =>
  content.startsWith('No matches for ') ? [] : content.split('\n').filter((l) => l && !l.startsWith('['));

async function served(rt: Runtime, pattern: string): Promise<string> {
  const r = await rt.call('grep', { pattern, output_mode: 'files_with_matches', head_limit: 0 });
  assert.equal(r.isError, false, r.content);
  return String(r.meta?.index);
}

/** `rt`'s first answer for `pattern` equals the unindexed runtime's and rg's; how the index served it. */
async function answersRight(t: Kept, rt: Runtime, pattern: string, when: string): Promise<string> {
  const input = { pattern, output_mode: 'files_with_matches', head_limit: 0 };
  const want = filesOf((await t.plain.call('grep', input)).content);
  const rg = spawnSync(requireTool('rg'), ['--no-config', '-l', pattern, '.'], { cwd: t.root, encoding: 'utf8' });
  assert.ok(rg.status === 0 || rg.status === 1, rg.stderr);
  assert.deepEqual(
    [...want].sort(),
    rg.stdout
      .split('\n')
      .filter(Boolean)
      .map((l) => l.replace(/^\.\//, ''))
      .sort(),
    `unindexed = rg ${when}`,
  );
  const got = await rt.call('grep', input);
  assert.deepEqual(filesOf(got.content), want, `${when} (${String(got.meta?.index)})`);
  return String(got.meta?.index);
}

test('kept walk: a fresh runtime serves its first search without a walk, as rg answers', async () => {
  const t = await kept();
  const rt = fresh(t);
  assert.equal(await answersRight(t, rt, 'needle', 'the first search'), WALKLESS);
  assert.equal(await answersRight(t, rt, 'needle', 'the second'), WALKLESS);
  // Other patterns, same walk: one the index cannot narrow, one it can.
  assert.equal(await answersRight(t, rt, 'plain words', 'another pattern'), 'common: scanned');
  assert.equal(await answersRight(t, rt, 'ignored', 'a rare word'), WALKLESS);
  await rt.close();
});

/** Each change made while no runtime runs, and whether the first search may still skip the walk. */
const CHANGES: [string, (t: Kept) => void, boolean][] = [
  ['an indexed file edited to hold the needle', (t) => writeFileSync(path.join(t.root, 'b.txt'), 'needle now\n'), true],
  ['an indexed file emptied of it', (t) => writeFileSync(path.join(t.root, 'a.txt'), 'gone\n'), true],
  ['a file added', (t) => writeFileSync(path.join(t.root, 'hay/new.txt'), 'needle new\n'), false],
  ['an indexed file removed', (t) => rmSync(path.join(t.root, 'a.txt')), false],
  [
    'a new directory',
    (t) => {
      mkdirSync(path.join(t.root, 'made'));
      writeFileSync(path.join(t.root, 'made/n.txt'), 'needle in a new directory\n');
    },
    false,
  ],
  ['an ignore file edited in place', (t) => writeFileSync(path.join(t.root, 'sub/.gitignore'), '# none\n'), false],
  ['a rule outside the tree', (t) => writeFileSync(path.join(t.dir, '.gitignore'), '# none\n'), false],
  ['an unindexed (binary) file made text', (t) => writeFileSync(path.join(t.root, 'sub/kept.bin'), 'needle\n'), true],
  // Every git command writes in .git (index.lock): its directory's times are no rule change.
  ['git commands in the repository', (t) => git(t, 'add', '-A'), true],
  [
    'the repository made anew, its exclude ignoring a file',
    (t) => {
      rmSync(path.join(t.dir, '.git'), { recursive: true });
      git(t, 'init', '-q');
      writeFileSync(path.join(t.dir, '.git/info/exclude'), 'pkg/a.txt\n');
    },
    false,
  ],
];

function git(t: Kept, ...args: string[]): void {
  execFileSync(requireTool('git'), args, { cwd: t.dir, env: { ...process.env, HOME: t.home } });
}

for (const [what, change, walkless] of CHANGES)
  test(`kept walk: ${what} between runtimes — the first answer is still rg's`, async () => {
    const t = await kept();
    change(t);
    const rt = fresh(t);
    const how = await answersRight(t, rt, 'needle', 'the first search');
    assert.equal(how === WALKLESS, walkless, `the kept walk stands for the tree only as the build left it (${how})`);
    await (rt.searchIndex as SearchIndex).settled();
    await answersRight(t, rt, 'needle', 'after the check');
    await answersRight(t, rt, 'needle', 'again');
    await rt.close();
  });

test('kept walk: the first search does not wait for the watches; a file added while they open is found next', async () => {
  const t = await kept();
  const rt = fresh(t);
  const index = rt.searchIndex as SearchIndex;
  let release: () => void = () => {};
  const gate = new Promise<void>((r) => (release = r));
  let held: () => void = () => {};
  const holding = new Promise<void>((r) => (held = r));
  let once = false;
  // The background check held before its first watch opens: the first search is answered anyway.
  index.betweenCheckSlices = (p) => {
    if (once || p.phase !== 'watch' || p.done !== 0) return;
    once = true;
    held();
    return gate;
  };
  assert.equal(await answersRight(t, rt, 'needle', 'the first search'), WALKLESS);
  await holding;
  assert.equal(index.checking, true, 'answered before the watches opened');
  writeFileSync(path.join(t.root, 'hay/during.txt'), 'needle made while the watches were not open\n');
  // The next search cannot trust the first one's check (nothing watched what came since): it waits.
  const next = rt.call('grep', { pattern: 'needle', output_mode: 'files_with_matches', head_limit: 0 });
  release();
  const got = await next;
  assert.ok(filesOf(got.content).includes('hay/during.txt'), `${got.content} (${String(got.meta?.index)})`);
  assert.notEqual(String(got.meta?.index), WALKLESS);
  await answersRight(t, rt, 'needle', 'after');
  await rt.close();
});

test('kept walk: with none kept, a head-limited search walks on to learn the tree, and starts no rebuild', async () => {
  const tree = await repoTree();
  const cache = tempDir('mewcode-kept-cache-');
  const builder = runtimeAt(tree.root, { workers: 2, index: 'build', indexCacheDir: cache, home: tree.home });
  assert.ok((await builder.searchIndex?.build())?.ok, 'built');
  await builder.close(); // no search: no walk kept
  const plain = runtimeAt(tree.root, { workers: 2, index: 'off', home: tree.home });
  const rt = runtimeAt(tree.root, { workers: 2, index: 'build', indexCacheDir: cache, home: tree.home });
  const index = rt.searchIndex as SearchIndex;
  assert.equal(await served(rt, 'needle'), CHECKING, 'the first search loads the index');
  await index.settled();
  const loaded = index.loaded;
  // Eleven hay files hold 'hay 2' (f2, f20…f29): each mode's answer holds the first two, as without the index.
  for (const mode of ['files_with_matches', 'count', 'content']) {
    const input = { pattern: 'hay 2', output_mode: mode, head_limit: 2 };
    const r = await rt.call('grep', input);
    assert.equal(r.isError, false, r.content);
    assert.equal(r.content, (await plain.call('grep', input)).content, mode);
    assert.match(String(r.meta?.index), /^served/, mode);
  }
  await index.settled();
  // Such a search once started a rebuild of the whole tree: a walk stopped early could not be learned.
  assert.equal(index.loaded, loaded, 'the index in use is the one loaded: no rebuild');
  assert.equal(await served(rt, 'needle'), WALKLESS, 'the head-limited walk was learned');
  await rt.close();
  await plain.close();
  assert.ok(existsSync(walkRecordFile(index.file)), 'and kept beside the index');
});

test('kept walk: a rebuilt index does not take the walk kept for the one before', async () => {
  const t = await kept();
  const rebuilder = runtimeAt(t.root, { workers: 1, index: 'build', indexCacheDir: t.cache, home: t.home });
  assert.ok((await rebuilder.searchIndex?.build())?.ok, 'rebuilt');
  await rebuilder.close();
  const rt = fresh(t);
  assert.equal(await answersRight(t, rt, 'needle', 'the first search'), CHECKING);
  await rt.close();
});

test('kept walk: a record that does not read as one is ignored, never followed out of the tree', async () => {
  const t = await kept();
  const good = JSON.parse(readFileSync(t.record, 'utf8'));
  writeFileSync(path.join(t.dir, 'outside.txt'), 'needle outside the root\n');
  const bad = [
    'not json',
    JSON.stringify({ ...good, walks: good.walks.map((w: object) => ({ ...w, unindexed: ['../outside.txt'] })) }),
    JSON.stringify({ ...good, walks: good.walks.map((w: object) => ({ ...w, unindexed: ['/etc/passwd'] })) }),
    JSON.stringify({
      ...good,
      walks: good.walks.map((w: object) => ({ ...w, skipped: { x: { dirs: 1, files: 1 } } })),
    }),
    JSON.stringify({ ...good, size: good.size + 1 }),
  ];
  for (const text of bad) {
    writeFileSync(t.record, text);
    const rt = fresh(t);
    assert.equal(await answersRight(t, rt, 'needle', text.slice(0, 60)), CHECKING);
    await rt.close();
  }
});
