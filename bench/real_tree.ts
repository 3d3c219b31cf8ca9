/**
 * A real-shaped tree for the memory benchmark, made from real sources without a network: the
 * packages of this checkout's node_modules (or the one the worktree links to), copied many times
 * with their directory shapes into `packages/p<i>/node_modules/…`. Real code trees are deeper, have
 * more directories and larger files than the synthetic one (bench/fixture.ts), and those cost
 * memory of their own (a watch per directory, longer paths, bigger key tables). The copies are real
 * files, not hard links: links would share inodes and page cache, which a real tree does not.
 * Skipped: symlinks (a package manager's .bin links) and files over 4 MB (the compilers' native
 * executables: sniffed as binary and never searched, they would only fill the disk).
 * Cached under the bench's output directory (gitignored .bench/) with a marker once complete.
 *
 * Usage: node --import tsx bench/real_tree.ts [--files N] [--out DIR]   (prints the tree's path)
 */

import { execFileSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';

const repo = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const MAX_FILE_BYTES = 4_000_000;

export interface RealTreeSummary {
  files: number;
  dirs: number;
  bytes: number;
  copies: number;
  source: string;
}

/** One copy of `from` into `to`: files and directories only. */
function copyTree(from: string, to: string, tally: { files: number; dirs: number; bytes: number }): void {
  mkdirSync(to, { recursive: true });
  tally.dirs++;
  for (const e of readdirSync(from, { withFileTypes: true })) {
    const src = path.join(from, e.name);
    if (e.isDirectory()) copyTree(src, path.join(to, e.name), tally);
    else if (e.isFile()) {
      const size = lstatSync(src).size;
      if (size > MAX_FILE_BYTES) continue;
      copyFileSync(src, path.join(to, e.name));
      tally.files++;
      tally.bytes += size;
    }
  }
}

/** The tree of at least `files` files under `outDir` (made once, then reused), and what it holds. */
export function ensureRealTree(outDir: string, files = 100_000): { root: string; summary: RealTreeSummary } {
  const root = path.join(outDir, `real-tree-${files}`);
  const marker = path.join(root, '.bench-complete');
  // A repository of its own, as a checked-out tree is: the checkout's own .gitignore (which ignores
  // node_modules and .bench/) must not reach into it, as git and rg apply a repository's rules from
  // its top down. Also for a tree made before the search read rules from above the root.
  const ownRepository = () => existsSync(path.join(root, '.git')) || execFileSync('git', ['init', '-q'], { cwd: root });
  if (existsSync(marker)) {
    ownRepository();
    return { root, summary: JSON.parse(readFileSync(marker, 'utf8')) as RealTreeSummary };
  }
  const source = realpathSync(path.join(repo, 'node_modules'));
  const tally = { files: 0, dirs: 0, bytes: 0 };
  let copies = 0;
  mkdirSync(root, { recursive: true });
  // An ignore file as real trees have one; it matches nothing the copies hold, so all are searched.
  writeFileSync(path.join(root, '.gitignore'), '*.log\n.cache/\n');
  ownRepository();
  while (tally.files < files) copyTree(source, path.join(root, 'packages', `p${++copies}`, 'node_modules'), tally);
  const summary: RealTreeSummary = { ...tally, copies, source };
  writeFileSync(marker, JSON.stringify(summary));
  return { root, summary };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({ options: { files: { type: 'string' }, out: { type: 'string' } } });
  const outDir = path.resolve(values.out ?? path.join(repo, '.bench'));
  const t = Date.now();
  const { root, summary } = ensureRealTree(outDir, Number(values.files ?? 100_000));
  process.stderr.write(
    `${summary.files} files, ${summary.dirs} directories, ${(summary.bytes / 1e6).toFixed(0)} MB (${summary.copies} copies of ${summary.source}) in ${((Date.now() - t) / 1000).toFixed(1)} s\n`,
  );
  process.stdout.write(`${root}\n`);
}
