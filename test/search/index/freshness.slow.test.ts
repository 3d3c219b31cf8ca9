/**
 * The index never changes an answer: a seeded run of edits, creates, renames, deletes, ignore-rule
 * changes and write-lane writes, each followed at once by searches that must come back exactly as a
 * runtime without an index answers them — from a warm runtime (watches) and a one-shot-style one
 * (file states checked per search) alike.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { rng } from '../../../bench/edits/prng.ts';
import type { Runtime } from '../../../lib/runtime/runtime.ts';
import { RACY_MS } from '../../../lib/search/dircache.ts';
import { runtimeAt } from '../../helpers/runtime.ts';
import { tempDir, writeTree } from '../../helpers/temp.ts';
import { waitFor } from '../../helpers/wait.ts';

// Many words, few per file: most searches are selective, so the index serves them.
const WORDS = [
  ...['alpha', 'Bravo', 'charlie', 'DELTA', 'echo', 'foxtrot', 'golf', 'hotel', 'naïve', 'Straße', 'zulu42', 'x'],
  ...Array.from({ length: 60 }, (_, i) => `w${i.toString(36)}${'kq'[i % 2]}${i % 7}`),
];

/** The seeded random choices of the run: words, lines, file texts and grep queries. */
function randomSource(seed: number) {
  const rand = rng(seed).next;
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)] as T;
  const line = () => Array.from({ length: 1 + Math.floor(rand() * 5) }, () => pick(WORDS)).join(' ');
  const text = () => `${Array.from({ length: 1 + Math.floor(rand() * 6) }, line).join('\n')}\n`;
  const query = () => {
    const w = pick(WORDS);
    const q: Record<string, unknown> = { pattern: w };
    const r = rand();
    if (r < 0.25) Object.assign(q, { case_insensitive: true, pattern: w.toUpperCase() });
    else if (r < 0.4) Object.assign(q, { pattern: `${w}\\s+\\w+` });
    else if (r < 0.5) Object.assign(q, { fixed_strings: true });
    const m = rand();
    if (m < 0.3) q.output_mode = 'files_with_matches';
    else if (m < 0.45) q.output_mode = 'count';
    else if (m < 0.55) q.context = 1;
    if (rand() < 0.15) q.path = pick(['a', 'a/b', 'c']);
    if (rand() < 0.1) q.include_ignored = true;
    if (rand() < 0.1) q.glob = 'f1*.txt';
    if (rand() < 0.1) q.head_limit = 2;
    return q;
  };
  return { rand, pick, line, text, query };
}
type RandomSource = ReturnType<typeof randomSource>;

/** The starting tree: ignored, hidden and binary files beside 40 text files in a few directories. */
function seedTree(root: string, { pick, line, text }: RandomSource): void {
  const tree: Record<string, string | Uint8Array> = {
    '.gitignore': '*.log\nign/\n',
    '.hidden.txt': text(),
    'ign/skipped.txt': text(),
    'notes.log': text(),
    'bin.dat': Buffer.concat([Buffer.from(`${line()}\n`), Buffer.from([0, 1, 2]), Buffer.from(line())]),
  };
  for (let i = 0; i < 40; i++) tree[`${pick(['', 'a/', 'a/b/', 'c/'])}f${i}.txt`] = text();
  writeTree(root, tree);
}

/**
 * Four random searches, each answered by the warm and the cold runtime exactly as by the unindexed one;
 * `served` counts how each runtime's index answered.
 */
async function checkSearches(
  step: string,
  r: RandomSource,
  rts: { warm: Runtime; cold: Runtime; plain: Runtime },
  served: Map<string, number>,
): Promise<void> {
  for (let i = 0; i < 4; i++) {
    const q = r.query();
    const want = await rts.plain.call('grep', q);
    for (const [name, rt] of [
      ['warm', rts.warm],
      ['cold', rts.cold],
    ] as [string, Runtime][]) {
      const got = await rt.call('grep', q);
      assert.equal(got.content, want.content, `${name} after ${step}: ${JSON.stringify(q)}`);
      const how = `${name}: ${String(got.meta?.index)}`;
      served.set(how, (served.get(how) ?? 0) + 1);
    }
  }
}

/** One random change to the tree: an edit, create, rename, delete, .gitignore change, directory move or write_file. */
async function randomChange(root: string, step: number, r: RandomSource, warm: Runtime): Promise<string> {
  const { rand, pick, text } = r;
  const all = (readdirSync(root, { recursive: true }) as string[]).filter(
    (f) => f.endsWith('.txt') && statSync(path.join(root, f)).isFile(),
  );
  const f = pick(all);
  const abs = (rel: string) => path.join(root, rel);
  const op = Math.floor(rand() * 9);
  if (op <= 2 && f) {
    // An edit in place; half keep the size, so only the timestamps tell.
    const old = statSync(abs(f)).size;
    const next = rand() < 0.5 ? text() : pick(WORDS).repeat(old).slice(0, old);
    writeFileSync(abs(f), next);
    return `edit ${f}`;
  }
  if (op === 3) {
    const rel = `${pick(['', 'a/', 'c/', 'd/e/'])}new${step}.txt`;
    mkdirSync(path.dirname(abs(rel)), { recursive: true });
    writeFileSync(abs(rel), text());
    return `create ${rel}`;
  }
  if (op === 4 && f) {
    const to = `${pick(['', 'a/', 'c/'])}moved${step}.txt`;
    renameSync(abs(f), abs(to));
    return `rename ${f} → ${to}`;
  }
  if (op === 5 && f) {
    rmSync(abs(f));
    return `delete ${f}`;
  }
  if (op === 6) {
    writeFileSync(abs('.gitignore'), rand() < 0.5 ? '*.log\nign/\nf1*.txt\n' : '*.log\n');
    return 'change .gitignore';
  }
  if (op === 7 && existsSync(abs('a/b'))) {
    const to = rand() < 0.5 ? 'c/b2' : 'a/b';
    if (!existsSync(abs(to))) renameSync(abs('a/b'), abs(to));
    return `rename directory a/b → ${to}`;
  }
  const rel = f && rand() < 0.5 ? f : `c/w${step}.txt`;
  if (existsSync(abs(rel))) await warm.call('read_file', { file_path: rel });
  const written = await warm.call('write_file', { file_path: rel, content: text() });
  assert.ok(!written.isError, written.content);
  return `write_file ${rel}`;
}

test('index freshness: every search after every kind of change answers as a full scan does', async () => {
  const r = randomSource(Number(process.env.MEWCODE_INDEX_SEED ?? 18));
  const root = tempDir();
  seedTree(root, r);
  // Files changed within the racy window are left out of an index (always searched); wait it out
  // so the index holds them and the test exercises it.
  const written = Date.now();
  await waitFor(() => Date.now() - written > RACY_MS + 100, 'the tree to leave the racy window', {
    everyMs: 100,
  });
  // A private cache directory (removed with the test): never the user's ~/.cache.
  const cache = tempDir('mewcode-cache-');
  const warm = runtimeAt(root, { workers: 2, index: 'build', indexCacheDir: cache, allowWrite: true });
  const built = await warm.searchIndex?.build();
  assert.ok(built?.ok, 'built');
  const cold = runtimeAt(root, { workers: 2, index: 'existing', indexCacheDir: cache });
  const plain = runtimeAt(root, { workers: 2, index: 'off' });
  const served = new Map<string, number>();

  await checkSearches('the build', r, { warm, cold, plain }, served);
  for (let step = 0; step < 60; step++) {
    const what = await randomChange(root, step, r, warm);
    await checkSearches(what, r, { warm, cold, plain }, served);
  }
  // The run went through the index, with and without walking, not around it.
  assert.ok((served.get('warm: served without a walk') ?? 0) > 0, JSON.stringify([...served]));
  assert.ok((served.get('warm: served') ?? 0) > 0, JSON.stringify([...served]));
  assert.ok((served.get('cold: served') ?? 0) > 0, JSON.stringify([...served]));
});

test('index freshness: a rebuild keeps its watches only on directories that are still the ones watched', async () => {
  const root = tempDir();
  const tree: Record<string, string> = {};
  for (let i = 0; i < 20; i++) tree[`d/f${i}.txt`] = `hay ${i}\n`;
  tree['e/g.txt'] = 'hay\n';
  writeTree(root, tree);
  const written = Date.now();
  await waitFor(() => Date.now() - written > RACY_MS + 100, 'the tree to leave the racy window', { everyMs: 100 });
  const warm = runtimeAt(root, { workers: 2, index: 'build' });
  assert.ok((await warm.searchIndex?.build())?.ok, 'built');
  // The directory is replaced under its name: moved away, made anew with the same files.
  renameSync(path.join(root, 'd'), path.join(root, 'd_old'));
  mkdirSync(path.join(root, 'd'));
  for (let i = 0; i < 20; i++) writeFileSync(path.join(root, 'd', `f${i}.txt`), `hay ${i}\n`);
  rmSync(path.join(root, 'd_old'), { recursive: true });
  const remade = Date.now();
  await waitFor(() => Date.now() - remade > RACY_MS + 100, 'the new files to leave the racy window', { everyMs: 100 });
  const rebuilt = await warm.searchIndex?.build();
  assert.ok(rebuilt?.ok, 'rebuilt');
  // Changed after the rebuild, by another process: only a watch on the new directory can tell.
  writeFileSync(path.join(root, 'd', 'f3.txt'), 'hay and a needle\n');
  const q = { pattern: 'needle', output_mode: 'files_with_matches' };
  const got = await warm.call('grep', q);
  assert.equal(got.content.trim(), 'd/f3.txt', `meta.index: ${got.meta?.index}`);
});
