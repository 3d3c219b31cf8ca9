/**
 * The build's pieces as they come back from real workers: out of task order (the file table is fed
 * in task order as pieces arrive, while others still run), or one failing midway. A build must then
 * number every file as its segment does, or fail cleanly: no index file written, the index in use
 * kept, searches answering as a full scan does.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import type { TaskOutcome } from '../../../lib/core/task_outcome.ts';
import { RACY_MS } from '../../../lib/search/dircache.ts';
import type { IndexShardResult } from '../../../lib/search/index/build_shard.ts';
import type { SearchIndex } from '../../../lib/search/index/service.ts';
import { rg } from '../../helpers/rg.ts';
import { runtimeAt } from '../../helpers/runtime.ts';
import { tempDir } from '../../helpers/temp.ts';
import { waitFor } from '../../helpers/wait.ts';
import { agedTree, diverging, rgFiles, type Trio } from './attack_helpers.ts';

/** Forty directories (workers list them) of three files each, every file with its own word. */
const TREE: Record<string, string> = {};
for (let d = 0; d < 40; d++)
  for (let f = 0; f < 3; f++) TREE[`d${String(d).padStart(2, '0')}/f${f}.txt`] = `word${d}x${f} here\n`;
for (let f = 0; f < 5; f++) TREE[`top${f}.txt`] = `topword${f}\n`;

/**
 * Runs the pieces for real, but hands their outcomes back in reverse task order (each waits until
 * every later one was handed back), with the piece numbered `fail` (if any) turned into a failure.
 */
function reversedRunner(index: SearchIndex, fail?: (i: number, n: number) => boolean) {
  const real = index.o.runner;
  const tasks: Promise<TaskOutcome<IndexShardResult>>[] = [];
  const handed: Promise<unknown>[] = [];
  let n = 0;
  index.o.runner = {
    parallelism: real.parallelism,
    states: real.states,
    run: (task) => {
      const i = n++;
      tasks.push(real.run(task));
      let handBack: () => void = () => {};
      handed.push(new Promise<void>((r) => (handBack = r)));
      const out = (async () => {
        await Promise.resolve(); // every task is queued before any is handed back
        await Promise.all(handed.slice(i + 1).map((h) => h));
        const r = await (tasks[i] as Promise<TaskOutcome<IndexShardResult>>);
        handBack();
        return fail?.(i, n) ? { ok: false as const, error: { reason: 'failed' as const, message: `piece ${i}` } } : r;
      })();
      return out;
    },
  };
  return () => {
    index.o.runner = real;
    return n;
  };
}

async function threeOn(root: string): Promise<Trio & { index: SearchIndex }> {
  const cache = tempDir('mewcode-attack-cache-');
  const warm = runtimeAt(root, { workers: 2, index: 'build', indexCacheDir: cache });
  const cold = runtimeAt(root, { workers: 2, index: 'existing', indexCacheDir: cache });
  const plain = runtimeAt(root, { workers: 2, index: 'off' });
  return { root, cache, warm, cold, plain, index: warm.searchIndex as SearchIndex };
}

/**
 * The files in which ripgrep finds a line starting with each word: one rg run for all the words
 * (`-o` prints which word a line starts with; no word is the start of another), where one run per
 * word cost 125 process starts per look, most of this file's time.
 */
function rgFilesByWord(root: string, words: string[]): Map<string, string[]> {
  const patterns = words.flatMap((w) => ['-e', `^${w}\\b`]);
  const found = new Map<string, Set<string>>();
  for (const line of rg(root, [
    '--no-require-git',
    '--no-messages',
    '--with-filename',
    '--no-heading',
    '-N',
    '-o',
    ...patterns,
  ]).lines) {
    const at = line.lastIndexOf(':');
    const word = line.slice(at + 1);
    found.set(word, (found.get(word) ?? new Set()).add(line.slice(0, at)));
  }
  return new Map([...found].map(([word, files]) => [word, [...files].sort()]));
}

/** Every file's own word is found in it alone, by ripgrep and by all three runtimes. */
async function everyWordFound(t: Trio): Promise<void> {
  const wordOf = (text: string) => text.split(' ')[0]?.trim() as string;
  const byRg = rgFilesByWord(t.root, Object.values(TREE).map(wordOf));
  for (const [rel, text] of Object.entries(TREE)) {
    const word = wordOf(text);
    assert.deepEqual(byRg.get(word) ?? [], [rel]);
    assert.deepEqual((await diverging(t, { pattern: `${word}\\b` })).diffs, [], rel);
  }
}

test('pieces handed back in reverse order: every file keeps its number', async () => {
  const t = await threeOn(await agedTree(TREE));
  const restore = reversedRunner(t.index);
  const built = await t.index.build();
  const pieces = restore();
  assert.ok(pieces > 2, `several pieces: ${pieces}`);
  assert.ok(built.ok, 'built');
  assert.equal(built.index.rels.length, Object.keys(TREE).length + 30); // and the hay
  await everyWordFound(t);
});

for (const [where, fail] of [
  ['first', (i: number) => i === 0],
  ['middle', (i: number, n: number) => i === Math.floor(n / 2)],
  ['last', (i: number, n: number) => i === n - 1],
] as const)
  test(`a build whose ${where} piece fails (handed back out of order): no index written, the old one kept`, async () => {
    const t = await threeOn(await agedTree(TREE));
    const restore = reversedRunner(t.index, fail);
    const first = await t.index.build();
    restore();
    assert.equal(first.ok, false, 'the first build failed');
    assert.equal(existsSync(t.index.file), false, 'no index file written');
    await everyWordFound(t);
    assert.ok((await t.index.build()).ok, 'a build without failures');
    const written = readFileSync(t.index.file);
    writeFileSync(path.join(t.root, 'd07/f1.txt'), 'now topword3 too\n');
    const again = reversedRunner(t.index, fail);
    assert.equal((await t.index.build()).ok, false, 'a rebuild failed');
    again();
    assert.ok(readFileSync(t.index.file).equals(written), 'the index file is the last good one');
    assert.ok(t.index.loaded, 'the index in use is kept');
    assert.deepEqual((await diverging(t, { pattern: 'topword3' })).diffs, []);
    TREE['d07/f1.txt'] = 'word7x1 here\n';
    writeFileSync(path.join(t.root, 'd07/f1.txt'), TREE['d07/f1.txt']);
    await everyWordFound(t);
  });

/** Every file ripgrep would search under `root`. */
const rgList = (root: string): string[] => rg(root, ['--files', '--no-require-git']).lines;

/** Until every file written so far is older than the racy window (a build then indexes it). */
async function aged(): Promise<void> {
  const written = Date.now();
  await waitFor(() => Date.now() - written > RACY_MS + 100, 'the racy window to pass', { everyMs: 100 });
}

/** Names whose UTF-16 and byte orders differ, non-ASCII, many in one directory, one per directory. */
const NAMES = ['\uE000.txt', '\u{1F600}.txt', '\uFFFD.txt', '\uFF5E.txt', 'a.txt', 'é.txt', 'Z.txt', '\u{10FFFF}z.txt'];
const NAMED: Record<string, string> = { 'a.txt': 'needle here\n' };
for (const n of NAMES) {
  NAMED[`n/${n}`] = 'plain\n';
  NAMED[`${n}.d/${n}`] = 'plain\n';
  NAMED[`n/${n}.d/x`] = 'plain\n';
}
for (let i = 0; i < 600; i++) NAMED[`many/${i % 2 ? '\u{1F600}' : '\uE000'}${i}`] = 'plain\n';
for (let i = 0; i < 150; i++) NAMED[`one/${i}${i % 3 ? '\uFFFD' : '\u{1F4A9}'}/f`] = 'plain\n';

test('real names sorting differently by UTF-16 and by bytes: the table holds each at its number', async () => {
  const t = await threeOn(await agedTree(NAMED));
  const restore = reversedRunner(t.index);
  const built = await t.index.build();
  restore();
  assert.ok(built.ok, 'built');
  const files = built.index.rels;
  const listed = rgList(t.root);
  assert.equal(files.length, listed.length);
  for (const rel of listed) assert.equal(files.relOf(files.idOf(rel)), rel, rel);
  const special = Object.keys(NAMED).filter((r) => !r.startsWith('many/') && !r.startsWith('one/'));
  for (const word of ['needleone', 'needletwo']) {
    for (const r of [...special, 'many/\uE000300', 'many/\u{1F600}301', 'one/0\u{1F4A9}/f'])
      writeFileSync(path.join(t.root, r), `${word} in it\n`);
    assert.deepEqual((await diverging(t, { pattern: word })).diffs, [], word);
    await aged();
    assert.ok((await t.index.build()).ok, 'rebuilt');
  }
});

test('one directory split across pieces (9000 loose files at the root, some wide names), reversed', async () => {
  const tree: Record<string, string> = {};
  for (let i = 0; i < 9000; i++)
    tree[`${i % 5 === 0 ? '\u{1F600}' : i % 7 === 0 ? '\uE000' : ''}r${i}.txt`] = `rootword${i}x\n`;
  const t = await threeOn(await agedTree(tree));
  const restore = reversedRunner(t.index);
  const built = await t.index.build();
  const pieces = restore();
  assert.ok(built.ok, 'built');
  assert.ok(pieces > 3, `the root's files took several pieces: ${pieces}`);
  const files = built.index.rels;
  for (const rel of rgList(t.root)) assert.equal(files.relOf(files.idOf(rel)), rel, rel);
  for (const i of [0, 1, 7, 4095, 4096, 4097, 5000, 8190, 8999]) {
    const rel = Object.keys(tree)[i] as string;
    assert.deepEqual(rgFiles(t.root, [`rootword${i}x`]), [rel]);
    assert.deepEqual((await diverging(t, { pattern: `rootword${i}x` })).diffs, [], rel);
  }
});
