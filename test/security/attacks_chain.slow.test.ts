/**
 * Attacks on the directory chain's whole-path open (lib/search/dir_chain.ts): loose files two or more
 * levels below the deepest open directory are reached by one open of their directory's whole path,
 * checked against the kernel's path for it. Swaps at every level of such a path, into a tree outside
 * the root and into a denied directory of the root; names the kernel's path could be confused by;
 * paths longer than PATH_MAX; directories without read or without search permission (run as an
 * unprivileged user). Each answer is compared with the walk's, which opens every level through its
 * parent, as the chain did before.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  fstatSync,
  lstatSync,
  mkdirSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import { realPathOf } from '../../lib/core/descriptors.ts';
import { DirChain } from '../../lib/search/dir_chain.ts';
import { runIndexShard } from '../../lib/search/index/build_shard.ts';
import { runGlobShard, runGrepShard } from '../../lib/search/shards.ts';
import { comparePaths, type Entry } from '../../lib/search/walk.ts';
import { runWithoutCaps } from '../helpers/no_caps.ts';
import { REPO } from '../helpers/repo.ts';
import { tempDir, writeTree } from '../helpers/temp.ts';
import { NEEDLE_GREP, SECRET, TRIES, tally, whileRacing } from './racer.ts';

const INSIDE = ['a/b/c/d/f.txt', 'a/b/c/g.txt', 'a/b/c/h/i.txt', 'a/b/x.txt', 'top.txt'];
const loose = (rels: readonly string[]): Entry[] =>
  [...rels].sort(comparePaths).map((rel) => ({ rel, kind: 'file' as const }));
const walkOf = (root: string, deny?: string[]) => ({
  root,
  useIgnore: false,
  hidden: true,
  maxDepth: Number.POSITIVE_INFINITY,
  ignoreBase: root,
  ...(deny ? { deny: { globs: deny, regexes: [] } } : {}),
});
const grepTask = (root: string, files: Entry[], dirs: string[] = [], deny?: string[]) => ({
  ...NEEDLE_GREP,
  root,
  walk: walkOf(root, deny),
  dirs,
  files,
});
/** What a grep shard found: each file with its lines, and the files it could not reach. */
const found = (r: ReturnType<typeof runGrepShard>) => ({
  files: r.files.map((f) => `${f.rel}: ${f.lines.map((l) => l.text).join(' | ')}`),
  unreadable: r.unreadable.map((u) => u.rel),
});

/** The same names at every depth below `dir`, all secrets: whichever level is swapped, they match. */
function mirror(dir: string) {
  const tree: Record<string, string> = {};
  for (const rel of INSIDE.filter((r) => r.startsWith('a/'))) {
    const parts = rel.split('/');
    for (let i = 0; i < parts.length; i++) tree[parts.slice(i).join('/')] = `needle ${SECRET}\n`;
  }
  writeTree(dir, tree);
}

for (const into of ['outside', 'denied'] as const) {
  test(`dir chain attacks: each level of a whole-path open swapped for a symlink ${into === 'outside' ? 'out of the root' : 'into a denied directory'} leaks nothing to grep, glob or the index build`, async () => {
    const root = tempDir();
    writeTree(root, Object.fromEntries(INSIDE.map((rel) => [rel, `needle in ${rel}\n`])));
    const target = into === 'outside' ? tempDir() : path.join(root, 'private');
    mirror(target);
    const deny = into === 'denied' ? ['private/**'] : undefined;
    const secretInodes = new Set<number>();
    for (const rel of execFileSync('find', [target, '-type', 'f'], { encoding: 'utf8' }).split('\n').filter(Boolean))
      secretInodes.add(statSync(rel).ino);
    const files = loose(INSIDE);
    const grep = grepTask(root, files, [], deny);
    const glob = { ...grep, kind: 'glob' as const, pattern: '**', dot: true, withMtime: true, maxResults: 1000 };
    const index = { kind: 'index' as const, root, walk: grep.walk, dirs: [], files };
    assert.deepEqual(
      found(runGrepShard(grep)).files,
      INSIDE.map((rel) => `${rel}: needle in ${rel}`).sort(comparePaths),
    );
    for (const level of ['a', 'a/b', 'a/b/c', 'a/b/c/d']) {
      const dir = path.join(root, level);
      const seen = tally();
      let leaks = 0;
      await whileRacing(dir, target, async () => {
        for (let i = 0; i < TRIES; i++) {
          const g = runGrepShard(grep);
          const l = runGlobShard(glob);
          const x = runIndexShard(index);
          const read = x.sigs.filter((_, k) => k % 4 === 0);
          if (JSON.stringify([g, l, x.rels]).includes(SECRET) || read.some((ino) => secretInodes.has(ino))) leaks++;
          // A file beside the swapped directory is always read, and as itself.
          assert.ok(g.files.some((f) => f.rel === 'top.txt'));
          seen.add(`${g.files.length} found`);
        }
      });
      console.log(`dir chain attacks: ${level} swapped ${into} x${TRIES}: ${seen}, ${leaks} leaked`);
      assert.equal(leaks, 0);
      // The killed racer may have left the symlink in place, or nothing (killed between two of its
      // steps): the real directory back for the next level.
      const left = lstatSync(dir, { throwIfNoEntry: false });
      if (left?.isSymbolicLink()) unlinkSync(dir);
      if (!left || left.isSymbolicLink()) renameSync(`${dir}.swap`, dir);
      assert.equal(runGrepShard(grep).files.length, INSIDE.length);
    }
  });
}

test('dir chain attacks: a symlink for good at each level of the path is refused, for exactly the files below it', () => {
  const root = tempDir();
  const outside = tempDir();
  writeTree(root, Object.fromEntries(INSIDE.map((rel) => [rel, `needle in ${rel}\n`])));
  mirror(outside);
  for (const level of ['a', 'a/b', 'a/b/c', 'a/b/c/d', 'a/b/c/h']) {
    const dir = path.join(root, level);
    execFileSync('mv', [dir, `${dir}.real`]);
    execFileSync('ln', ['-s', path.join(outside, path.basename(level)), dir]);
    try {
      const r = found(runGrepShard(grepTask(root, loose(INSIDE))));
      assert.doesNotMatch(JSON.stringify(r), new RegExp(SECRET));
      assert.deepEqual(
        r.unreadable,
        INSIDE.filter((rel) => rel.startsWith(`${level}/`)),
      );
    } finally {
      rmSync(dir);
      execFileSync('mv', [`${dir}.real`, dir]);
    }
  }
});

test('dir chain attacks: odd names (newlines, " (deleted)", dots, spaces, non-UTF-8) are reached exactly as the walk reaches them', () => {
  const root = tempDir();
  const names = ['new\nline', 'x (deleted)', '...', '..a', ' ', '-n', 'é', 'back\\slash', 'a b (deleted) '];
  const tree: Record<string, string> = {};
  for (const n of names) {
    tree[`${n}/${n}/${n}/f.txt`] = `needle in ${JSON.stringify(n)}\n`;
    tree[`${n}/${n}/g.txt`] = 'needle g\n';
  }
  writeTree(root, tree);
  // A directory whose name is not UTF-8: no path string names it, so neither way reaches into it.
  const raw = Buffer.concat([Buffer.from(`${root}/`), Buffer.from([0xff, 0x2f]), Buffer.from('y/z')]);
  mkdirSync(raw, { recursive: true });
  writeFileSync(Buffer.concat([raw, Buffer.from('/f.txt')]), 'needle raw\n');
  after(() => execFileSync('sh', ['-c', 'rm -rf -- "$1"/*', 'sh', root])); // rmSync cannot name it
  const walked = found(runGrepShard(grepTask(root, [], [''])));
  const listed = walked.files.map((f) => f.slice(0, f.indexOf(': ')));
  assert.equal(listed.length, 2 * names.length);
  assert.deepEqual(found(runGrepShard(grepTask(root, loose(listed)))), walked);
  // The non-UTF-8 file as a listing names it (U+FFFD): unreachable both ways.
  const lossy = `\ufffd/y/z/f.txt`;
  assert.deepEqual(found(runGrepShard(grepTask(root, loose([lossy])))).files, []);
});

test('dir chain attacks: a directory past PATH_MAX is reached level by level when its whole path cannot be opened', () => {
  const root = tempDir();
  const segment = 'p'.repeat(200);
  // 22 levels of 201 bytes: the whole path is over 4,096 bytes; `mkdir -p` and `cd` go a level at a time.
  const rel = Array.from({ length: 22 }, () => segment).join('/');
  const mid = rel.slice(0, 201 * 12 - 1);
  try {
    const levels = (n: number) => `for i in $(seq ${n}); do mkdir ${segment} && cd -P ${segment} || exit 1; done`;
    execFileSync('sh', [
      '-c',
      `cd "$1" && ${levels(12)} && echo needle mid > m.txt && ${levels(10)} && echo needle deep > f.txt`,
      'sh',
      root,
    ]);
    const r = found(runGrepShard(grepTask(root, loose([`${rel}/f.txt`, `${mid}/m.txt`]))));
    assert.deepEqual(r.files, [`${mid}/m.txt: needle mid`, `${rel}/f.txt: needle deep`].sort(comparePaths));
    assert.deepEqual(r.unreadable, []);
  } finally {
    // rm goes a level at a time; rmSync's whole paths would be too long.
    execFileSync('rm', ['-rf', path.join(root, segment)]);
  }
});

test('dir chain attacks: a directory deleted while the chain holds it is never read; what is at the path now is', () => {
  const root = tempDir();
  writeTree(root, { 'a/b/c/f.txt': 'old\n', 'a/x.txt': 'old\n' });
  const chain = new DirChain(root);
  try {
    const held = chain.open('a');
    assert.ok(held !== undefined);
    rmSync(path.join(root, 'a'), { recursive: true });
    writeTree(root, { 'a/b/c/f.txt': 'new\n' });
    // One level below the held (deleted) directory: through it, so gone.
    assert.equal(chain.open('a/b'), undefined);
    // Two levels below: by its whole path, the new directory (checked to be at exactly that path).
    // Level by level, as before the whole-path open, it was refused as `a/b` is: an answer that changed.
    const fd = chain.open('a/b/c');
    assert.ok(fd !== undefined);
    assert.equal(realPathOf(fd), path.join(root, 'a/b/c'));
    assert.equal(fstatSync(fd).ino, statSync(path.join(root, 'a/b/c')).ino);
  } finally {
    chain.close();
  }
});

test('dir chain attacks: a root of "/" reaches directories by their whole path; a root with a trailing slash reaches none', () => {
  const root = tempDir();
  writeTree(root, { 'a/b/f.txt': 'needle\n' });
  const chain = new DirChain('/');
  try {
    const fd = chain.open(path.join(root, 'a/b').slice(1));
    assert.ok(fd !== undefined);
    assert.equal(realPathOf(fd), path.join(root, 'a/b'));
  } finally {
    chain.close();
  }
  // Not a real path: the root's own check refuses it, before and after the whole-path open.
  const r = found(runGrepShard(grepTask(`${root}/`, loose(['a/b/f.txt', 'top.txt']))));
  assert.deepEqual(r, { files: [], unreadable: ['a/b/f.txt', 'top.txt'] });
});

test('dir chain attacks: without the power to override permissions, a directory with search but no read permission is passed through, one with read but no search permission is not', () => {
  // Root without capabilities (its bounding set cleared before exec) is held to permission bits like
  // anyone; the tree belongs to another user, so its "other" bits apply. Staying uid 0 keeps the
  // checkout readable wherever CI cloned it (a temporary directory of mode 0700).
  const root = tempDir();
  writeTree(root, {
    'xonly/b/c/f.txt': 'needle through x\n',
    'xonly/f.txt': 'needle in x\n',
    'ronly/b/c/f.txt': 'needle through r\n',
    'ok/b/c/f.txt': 'needle ok\n',
  });
  execFileSync('chmod', ['-R', 'a+rX', root]);
  execFileSync('chown', ['-R', '65534:65534', root]);
  chmodSync(path.join(root, 'xonly'), 0o711);
  chmodSync(path.join(root, 'ronly'), 0o644);
  const files = loose(['ok/b/c/f.txt', 'ronly/b/c/f.txt', 'xonly/b/c/f.txt', 'xonly/f.txt']);
  const script = `
    import { runGrepShard } from ${JSON.stringify(path.join(REPO, 'lib/search/shards.ts'))};
    const task = JSON.parse(process.argv[1]);
    task.maxResults = task.walk.maxDepth = Number.POSITIVE_INFINITY; // JSON has no Infinity
    const r = runGrepShard(task);
    process.stdout.write(JSON.stringify({ files: r.files.map((f) => f.rel), unreadable: r.unreadable.map((u) => u.rel) }));
  `;
  const run = runWithoutCaps(script, [JSON.stringify(grepTask(root, files))], realpathSync('/'));
  chmodSync(path.join(root, 'ronly'), 0o755);
  assert.equal(
    run.status,
    0,
    `setpriv (util-linux) must run the search without capabilities: ${run.error ?? run.stderr}`,
  );
  assert.deepEqual(JSON.parse(run.stdout), {
    files: ['ok/b/c/f.txt', 'xonly/b/c/f.txt', 'xonly/f.txt'],
    unreadable: ['ronly/b/c/f.txt'],
  });
});
