/**
 * A head-limited grep on the pool meets its limit in path order: the tasks run in path order and none
 * starts once those before it hold enough results, so a dense search reads about what one walk in
 * path order reads (before: each of the 8+ shards read files until it alone held the limit). Every
 * answer equals the one a runtime without a pool gives, whatever the limit and mode; loose files
 * between directories (so the planned tasks alternate kinds) included.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RACY_MS } from '../../lib/search/dircache.ts';
import type { SearchIndex } from '../../lib/search/index/service.ts';
import { runtimeAt } from '../helpers/runtime.ts';
import { tempDir, writeTree } from '../helpers/temp.ts';
import { waitFor } from '../helpers/wait.ts';

const root = tempDir('mewcode-head-order-');
// 2,404 files (more than a pool searches inline), each matching `needle` on three lines; those under
// a `p` directory also `pinned` (a quarter of the tree: few enough for the index to serve).
const tree: Record<string, string> = {};
for (const top of ['a', 'c', 'e', 'g', 'i', 'k'])
  for (const sub of ['p', 'q', 'r', 's'])
    for (let i = 0; i < 100; i++)
      tree[`${top}/${sub}/f${String(i).padStart(3, '0')}.txt`] =
        `needle 1\nhay\nneedle 2\nneedle 3\n${sub === 'p' ? 'pinned\n' : ''}`;
for (const loose of ['b.txt', 'd.txt', 'h.txt', 'z.txt']) tree[loose] = 'needle loose\n';
writeTree(root, tree);
const written = Date.now();

const pool = runtimeAt(root, { workers: 2, index: 'off' });
const inline = runtimeAt(root, { workers: 0, index: 'off' });

const CASES = [
  { output_mode: 'files_with_matches', head_limit: 5 },
  { output_mode: 'count', head_limit: 5 },
  { output_mode: 'content', head_limit: 7 },
  { output_mode: 'content', head_limit: 4, context: 1 },
  { output_mode: 'files_with_matches', head_limit: 450 },
  { output_mode: 'content', head_limit: 1000 },
  { output_mode: 'count', head_limit: 0 },
  { output_mode: 'files_with_matches', head_limit: 2400 },
] as const;

test('head limit in path order: answers equal to a runtime without a pool, every mode and limit', async () => {
  for (const c of CASES) {
    const input = { pattern: 'needle', ...c };
    const got = await pool.call('grep', input);
    const want = await inline.call('grep', input);
    assert.equal(got.isError, false, got.content);
    assert.equal(got.meta?.inline, false, `the pool searched it: ${JSON.stringify(c)}`);
    assert.equal(got.content, want.content, JSON.stringify(c));
  }
});

test('head limit in path order: a dense head-limited search reads about one walk’s worth, not each shard’s', async () => {
  const limit = 5;
  const r = await pool.call(
    'grep',
    { pattern: 'needle', output_mode: 'files_with_matches', head_limit: limit },
    { form: 'data' },
  );
  assert.equal(r.isError, false, r.content);
  const searched = (r.data as { searched?: number }).searched;
  assert.equal(typeof searched, 'number');
  // Two lanes (one per worker) start the first two tasks; each stops at limit + 1 files; no third starts.
  assert.ok((searched as number) <= 2 * (limit + 1), `searched ${searched} files for ${limit} results`);
  const whole = await pool.call(
    'grep',
    { pattern: 'needle', output_mode: 'files_with_matches', head_limit: 0 },
    { form: 'data' },
  );
  assert.equal((whole.data as { searched?: number }).searched, 2404, 'without a limit every file is searched');
});

test('head limit in path order: a grep the index serves without a walk reads about one task’s worth too', async () => {
  // An index trusts a file's state only once it is older than the racy window.
  await waitFor(() => Date.now() - written > RACY_MS + 100, 'the tree to leave the racy window', { everyMs: 100 });
  const cache = tempDir('mewcode-head-order-cache-');
  const rt = runtimeAt(root, { workers: 2, index: 'build', indexCacheDir: cache });
  const index = rt.searchIndex as SearchIndex;
  assert.ok((await index.build()).ok, 'built');
  // A whole walk with the index, which it learns; the searches after it need none.
  const learnt = await rt.call('grep', { pattern: 'pinned', output_mode: 'count', head_limit: 0 });
  assert.equal(learnt.meta?.index, 'served');
  const limit = 5;
  for (const c of CASES) {
    const input = { pattern: 'pinned', ...c };
    const got = await rt.call('grep', input);
    assert.equal(got.meta?.index, 'served without a walk', JSON.stringify(c));
    assert.equal(got.content, (await inline.call('grep', input)).content, JSON.stringify(c));
  }
  // 600 candidates in 3 tasks of 256: two start, each stops at limit + 1 files; the third does not.
  const r = await rt.call('grep', { pattern: 'pinned', output_mode: 'count', head_limit: limit }, { form: 'data' });
  const searched = (r.data as { searched?: number }).searched as number;
  assert.ok(searched <= 2 * (limit + 1), `searched ${searched} candidates for ${limit} results`);
});

test('head limit in path order: a later task that fails (a runaway line) after the limit was met is cut, not the answer', async () => {
  // 2,401 files fit one plan: tasks of 512 loose-in-order files; the runaway line is in the second,
  // which a second worker starts beside the first, whose files already hold the limit.
  const dir = tempDir('mewcode-head-order-runaway-');
  const files: Record<string, string> = {};
  for (let d = 0; d < 6; d++)
    for (let i = 0; i < 400; i++) files[`d${d}/f${String(i).padStart(3, '0')}.txt`] = 'needle aaaa\n';
  files['d2/a0.txt'] = `${'a'.repeat(40)}c\n`;
  writeTree(dir, files);
  const input = { pattern: '(a+)+b|needle', output_mode: 'files_with_matches', head_limit: 399 } as const;
  const onPool = runtimeAt(dir, { workers: 2, index: 'off', readTimeoutMs: 5000 });
  const alone = runtimeAt(dir, { workers: 0, index: 'off', readTimeoutMs: 5000 });
  const want = await alone.call('grep', input);
  assert.equal(want.isError, false, want.content);
  const got = await onPool.call('grep', input);
  assert.equal(got.isError, false, got.content);
  assert.equal(got.content, want.content);
  // Without a limit the runaway line is reached by either, and both say so.
  const whole = await onPool.call('grep', { ...input, head_limit: 0 });
  assert.equal(whole.code, 'timeout', whole.content);
});
