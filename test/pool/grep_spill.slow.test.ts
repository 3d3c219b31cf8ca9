/**
 * A whole-tree files_with_matches or count answer is printed through the output budget as the
 * shards' runs are merged (lib/search/listing.ts, lib/core/budgeted_text.ts), never built whole. On a
 * real tree split over many shards, the spill file holds exactly the answer worked out here from the
 * tree itself — every file with a match, in path order, each once — so a shard dropped, repeated or
 * merged out of order fails; the text the model sees is what the output budget makes of that answer
 * whole; the CLI's unbudgeted answer is that answer; and the spill file is a private file of the root's
 * spill directory, whose first spill sweeps day-old spill files as before.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import { applyBudget } from '../../lib/core/budget.ts';
import { spillBase, spillDirFor } from '../../lib/core/spill_dir.ts';
import { comparePaths } from '../../lib/search/compare_paths.ts';
import { removeSpills, runtimeAt } from '../helpers/runtime.ts';
import { tempDir, writeTree } from '../helpers/temp.ts';

// A temp dir of this file's own, so the first spill of this process sweeps it (once per process).
const savedTmp = process.env.TMPDIR;
process.env.TMPDIR = tempDir('mewcode-grepspill-tmp-');
after(() => {
  if (savedTmp === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = savedTmp;
});

function rootSpills(root: string): string {
  const dir = spillDirFor(root);
  if (!dir.ok) throw new Error(dir.error);
  return dir.value;
}

/** The tree, and how many lines of each file match `hi+t`. */
function tree(): { files: Record<string, string>; hits: Map<string, number> } {
  const files: Record<string, string> = {};
  const hits = new Map<string, number>();
  const put = (rel: string, n: number) => {
    files[rel] = `${'hit\n'.repeat(n)}miss\n`;
    if (n > 0) hits.set(rel, n);
  };
  // Names that sort differently by component than as plain strings ("x/…" before "x-…"), and
  // non-ASCII ones, in more directories than there are shards.
  for (let d = 0; d < 70; d++)
    for (let f = 0; f < 120; f++)
      put(
        `dir${d}/${f % 3 === 0 ? 'x-' : 'x/'}${f % 5 === 0 ? 'é中-' : ''}a-long-file-name-that-fills-the-budget-sooner-${f}.txt`,
        f % 4,
      );
  for (let f = 0; f < 700; f++) put(`loose-${f}.txt`, f % 3); // the planner's loose-file shards
  return { files, hits };
}

test('grep spill: a whole-tree answer streamed from many shards is the whole answer, in order', {
  timeout: 180_000,
}, async () => {
  const root = tempDir();
  const { files, hits } = tree();
  writeTree(root, files);
  const order = [...hits.keys()].sort(comparePaths);
  const expected = {
    count: order.map((rel) => `${rel}:${hits.get(rel)}`).join('\n'),
    files_with_matches: order.join('\n'),
  };
  const matches = { count: [...hits.values()].reduce((a, b) => a + b, 0), files_with_matches: hits.size };
  // A day-old spill file of another root, which the first spill sweeps, and a fresh one it keeps.
  const base = spillBase();
  mkdirSync(path.join(base, 'otherroot'), { recursive: true, mode: 0o700 });
  const old = path.join(base, 'otherroot', 'old.txt');
  const recent = path.join(base, 'otherroot', 'recent.txt');
  writeFileSync(old, 'old\n');
  writeFileSync(recent, 'recent\n');
  const twoDaysAgo = new Date(Date.now() - 2 * 24 * 3600 * 1000);
  utimesSync(old, twoDaysAgo, twoDaysAgo);

  const pooled = runtimeAt(root, { workers: 2, index: 'off' });
  const inline = runtimeAt(root, { workers: 0, index: 'off' });
  const reference = tempDir('mewcode-grepspill-ref-');
  for (const output_mode of ['count', 'files_with_matches'] as const) {
    const whole = expected[output_mode];
    assert.ok(Buffer.byteLength(whole) > 256 * 1024, 'the answer outgrows the budget');
    // A quantifier keeps the pooled search off the main thread: it fans out to the workers' shards.
    const input = { pattern: 'hi+t', output_mode, head_limit: 0 };
    for (const [name, rt] of [
      ['pooled', pooled],
      ['inline', inline],
    ] as const) {
      const r = await rt.call('grep', input);
      assert.equal(r.isError, false, r.content);
      if (name === 'pooled') assert.equal(r.meta?.inline, false);
      const spill = String(r.meta?.truncated?.spillPath);
      assert.equal(readFileSync(spill, 'utf8'), whole, `${name} ${output_mode}: the spill file is the whole answer`);
      assert.equal(path.dirname(spill), rootSpills(root));
      assert.equal(statSync(spill).mode & 0o777, 0o600);
      // What the model sees is what the budget makes of the whole text (the spill file named as ours).
      const cut = applyBudget({ content: whole, isError: false }, { spillDir: reference });
      const refSpill = String(cut.meta?.truncated?.spillPath);
      assert.equal(r.content, cut.content.split(refSpill).join(spill), `${name} ${output_mode}: the model's text`);
      assert.deepEqual(r.meta?.truncated, { ...cut.meta?.truncated, spillPath: spill });
      assert.deepEqual([r.meta?.files, r.meta?.matches, r.meta?.results], [hits.size, matches[output_mode], hits.size]);
      removeSpills(r);
      removeSpills(cut);
      // The CLI's answer: no budget, the whole text, nothing spilled.
      const unbudgeted = await rt.call('grep', input, { unbudgeted: true });
      assert.equal(unbudgeted.content, whole, `${name} ${output_mode}: unbudgeted`);
      assert.equal(unbudgeted.meta?.truncated, undefined);
    }
  }
  assert.deepEqual([existsSync(old), existsSync(recent)], [false, true], 'the first spill swept as before');
  assert.deepEqual(readdirSync(rootSpills(root)), [], 'no spill file but the ones the answers named');
});
