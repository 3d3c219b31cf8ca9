/**
 * What the index attacks share: a real tree left to age past the racy window (so the index holds its
 * files), three runtimes on it — warm (index built, watches), cold (an existing index, file states
 * checked per search, as a one-shot CLI call), plain (no index) — and the comparison every attack
 * ends in: warm and cold must answer byte for byte as plain does, and plain as ripgrep does.
 */
import assert from 'node:assert/strict';
import type { Runtime } from '../../../lib/runtime/runtime.ts';
import { RACY_MS } from '../../../lib/search/dircache.ts';
import { type Ran, runCliSync } from '../../helpers/cli.ts';
import { rg } from '../../helpers/rg.ts';
import { runtimeAt } from '../../helpers/runtime.ts';
import { tempDir, writeTree } from '../../helpers/temp.ts';
import { waitFor } from '../../helpers/wait.ts';

/** 30 files of hay: the index needs files to rule out. */
export const HAY: Record<string, string> = Object.fromEntries(
  Array.from({ length: 30 }, (_, i) => [`hay/f${i}.txt`, `hay ${i} plain words\n`]),
);

/**
 * A temp tree of `files` (plus the hay), once every file is older than the racy window; `prepare`
 * shapes it further first (empty directories, links), so that ages too.
 */
export async function agedTree(
  files: Record<string, string | Uint8Array>,
  prepare?: (root: string) => void,
): Promise<string> {
  const root = tempDir('mewcode-attack-');
  writeTree(root, { ...HAY, ...files });
  prepare?.(root);
  const written = Date.now();
  await waitFor(() => Date.now() - written > RACY_MS + 100, 'the tree to leave the racy window', { everyMs: 100 });
  return root;
}

export interface Trio {
  root: string;
  cache: string;
  warm: Runtime;
  cold: Runtime;
  plain: Runtime;
}

/** The three runtimes on `root`, the warm one's index built (into a private cache directory). */
export async function trio(root: string): Promise<Trio> {
  const cache = tempDir('mewcode-attack-cache-');
  const warm = runtimeAt(root, { workers: 2, index: 'build', indexCacheDir: cache, allowWrite: true });
  const built = await warm.searchIndex?.build();
  assert.ok(built?.ok, `built: ${JSON.stringify(built)}`);
  const cold = runtimeAt(root, { workers: 2, index: 'existing', indexCacheDir: cache });
  const plain = runtimeAt(root, { workers: 2, index: 'off' });
  return { root, cache, warm, cold, plain };
}

/**
 * Runs `q` on all three; returns one line per runtime whose answer differs from plain's (empty:
 * the promise held), and how each indexed runtime said it answered.
 */
export async function diverging(t: Trio, q: Record<string, unknown>): Promise<{ diffs: string[]; how: string[] }> {
  const want = await t.plain.call('grep', q);
  const diffs: string[] = [];
  const how: string[] = [];
  for (const [name, rt] of [
    ['warm', t.warm],
    ['cold', t.cold],
  ] as const) {
    const got = await rt.call('grep', q);
    how.push(`${name}: ${String(got.meta?.index)}`);
    if (got.content !== want.content)
      diffs.push(
        `${name} (${String(got.meta?.index)}) ${JSON.stringify(q)}\n  got  ${got.content}\n  want ${want.content}`,
      );
  }
  return { diffs, how };
}

/** Asserts warm and cold answer `q` as plain does; returns how they answered. */
export async function assertSame(t: Trio, q: Record<string, unknown>, after: string): Promise<string[]> {
  const { diffs, how } = await diverging(t, q);
  assert.deepEqual(diffs, [], `after ${after}`);
  return how;
}

/** Two warm searches: the second learns the walk, so the next one may be served without a walk. */
export async function prime(t: Trio, pattern: string): Promise<void> {
  for (let i = 0; i < 2; i++) await assertSame(t, { pattern }, 'priming');
}

/** The files ripgrep (13, default ignore rules, no git needed) finds for `args` under `root`. */
export const rgFiles = (root: string, args: readonly string[]): string[] =>
  rg(root, ['-l', '--no-require-git', '--no-messages', ...args]).lines.sort();

/** Our files_with_matches answer as a sorted list (notes dropped). */
export async function ourFiles(rt: Runtime, q: Record<string, unknown>): Promise<string[]> {
  const r = await rt.call('grep', { ...q, output_mode: 'files_with_matches', head_limit: 0 });
  return r.content
    .split('\n')
    .filter((l) => l && !l.startsWith('[') && !l.startsWith('No matches'))
    .sort();
}

/** The CLI, one-shot, with its own cache directory. */
export const cli = (cwd: string, cache: string, args: readonly string[]): Ran =>
  runCliSync(args, { cwd, env: { XDG_CACHE_HOME: cache } });
