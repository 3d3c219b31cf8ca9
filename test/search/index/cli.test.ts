/**
 * The CLI's side of the index: `mewcode index [path]` builds one under $XDG_CACHE_HOME (never in the
 * tree), a one-shot grep then uses it and says so in its meta, `--no-index` scans, and the answers
 * are the same either way.
 */
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { RACY_MS } from '../../../lib/search/dircache.ts';
import { runCli } from '../../helpers/cli.ts';
import { tempDir, writeTree } from '../../helpers/temp.ts';
import { waitFor } from '../../helpers/wait.ts';

test('cli index: builds in the cache directory, one-shot grep uses it, --no-index scans', async () => {
  const root = tempDir();
  const cache = tempDir('mewcode-cache-');
  const files: Record<string, string> = { '.gitignore': 'skip/\n', 'skip/x.txt': 'needle\n' };
  for (let i = 0; i < 30; i++) files[`d${i % 3}/f${i}.txt`] = i % 10 === 0 ? `a needle ${i}\n` : `hay ${i}\n`;
  writeTree(root, files);
  const written = Date.now();
  await waitFor(() => Date.now() - written > RACY_MS + 100, 'the tree to leave the racy window', { everyMs: 100 });
  const cli = (args: string[]) => runCli(args, { cwd: root, env: { XDG_CACHE_HOME: cache } });
  const built = await cli(['index', root]);
  assert.equal(built.code, 0, built.err);
  assert.match(built.out, /^indexed 30 files /);
  assert.deepEqual(readdirSync(path.join(cache, 'mewcode', 'index')).length, 1);
  assert.deepEqual(readdirSync(root).sort(), ['.gitignore', 'd0', 'd1', 'd2', 'skip'], 'nothing written in the tree');

  // The whole result object, with what the index did (grep's own --json prints ripgrep's JSON Lines).
  const needle = ['call', 'grep', '{"pattern":"needle","head_limit":0}', '--json'];
  const indexed = await cli(needle);
  const scanned = await cli([...needle, '--no-index']);
  assert.equal(indexed.code, 0, indexed.err);
  const a = JSON.parse(indexed.out);
  const b = JSON.parse(scanned.out);
  assert.equal(a.meta.index, 'served');
  assert.equal(b.meta.index, undefined);
  assert.equal(a.content, b.content);
  assert.match(a.content, /d0\/f0\.txt:1:a needle 0/);
  assert.match(a.content, /1 directory by \.gitignore/);

  const bad = await cli(['index', root, '--no-index']);
  assert.equal(bad.code, 2);
  assert.match(bad.err, /--no-index/);
});
