/**
 * The live tree (lib/history/live_tree.ts) against the whole walk it stands in for: after random
 * changes — files and directories made, rewritten, re-moded, renamed, replaced and removed, ignore
 * files edited, by this process and by child processes — a refresh leaves exactly the states a whole
 * walk of the root takes, and says which entries changed. And the journal's fallback without watches.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import {
  chmodSync,
  linkSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  watch,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import type { ChangeSink } from '../../lib/files/changes.ts';
import { LiveTree } from '../../lib/history/live_tree.ts';
import { afterCommand, tooMany } from '../../lib/history/shell_after.ts';
import { beforeCommand, newShellKept, WALK_MAX_FILES } from '../../lib/history/shell_before.ts';
import { sameState, type TreeStates, treeStates } from '../../lib/history/tree_states.ts';
import { tempDir, writeTree } from '../helpers/temp.ts';

const SCOPE = { maxFiles: 100_000, skipTop: ['.git', '.mewcode'] };

/** The two sets of states differ where? '' when they are the same. */
function difference(live: TreeStates, walked: TreeStates): string {
  const out: string[] = [];
  for (const [rel, st] of walked.files) {
    const had = live.files.get(rel);
    if (!had) out.push(`missing file ${rel}`);
    else if (!sameState(had, st)) out.push(`stale file ${rel}`);
  }
  for (const rel of live.files.keys()) if (!walked.files.has(rel)) out.push(`extra file ${rel}`);
  for (const d of walked.dirs) if (!live.dirs.has(d)) out.push(`missing dir ${d}`);
  for (const d of live.dirs) if (!walked.dirs.has(d)) out.push(`extra dir ${d}`);
  for (const [rel, st] of walked.ignored) {
    const had = live.ignored.get(rel);
    if (!had || !sameState(had, st)) out.push(`ignored ${rel}`);
  }
  for (const rel of live.ignored.keys()) if (!walked.ignored.has(rel)) out.push(`extra ignored ${rel}`);
  return out.slice(0, 10).join('; ');
}

/** A seeded random source (mulberry32). */
function random(seed: number): (n: number) => number {
  let a = seed;
  return (n) => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * n);
  };
}

/** Every path under `root` (files and directories), `.git` left out. */
function entries(root: string, dir = ''): { files: string[]; dirs: string[] } {
  const out = { files: [] as string[], dirs: [] as string[] };
  for (const e of readdirSync(path.join(root, dir), { withFileTypes: true })) {
    const rel = dir ? `${dir}/${e.name}` : e.name;
    if (e.name === '.git') continue;
    if (e.isDirectory()) {
      out.dirs.push(rel);
      const below = entries(root, rel);
      out.files.push(...below.files);
      out.dirs.push(...below.dirs);
    } else out.files.push(rel);
  }
  return out;
}

const exists = (p: string) => lstatSync(p, { throwIfNoEntry: false }) !== undefined;

const NAMES = ['a', 'b', 'c.txt', '.hidden', 'd.log', 'e'];

/** One random change of the tree, by this process or by a shell. */
function change(root: string, rnd: (n: number) => number, i: number): string {
  const { files, dirs } = entries(root);
  const pick = <T>(xs: T[]) => xs[rnd(xs.length)] as T;
  const dir = dirs.length > 0 && rnd(3) > 0 ? pick(dirs) : '';
  const at = (rel: string) => path.join(root, rel);
  const fresh = `${dir ? `${dir}/` : ''}${pick(NAMES)}${rnd(3)}`;
  const file = files.length > 0 ? pick(files) : undefined;
  // A change that cannot be made (a name taken meanwhile) is no failure of the tree's.
  const shell = (script: string) => spawnSync('sh', ['-c', script], { cwd: root, stdio: 'ignore' });
  switch (rnd(12)) {
    case 0:
      if (exists(at(fresh))) return 'skip';
      writeFileSync(at(fresh), `new ${i}\n`);
      return `write ${fresh}`;
    case 1:
      if (!file || statSync(at(file), { throwIfNoEntry: false })?.isFile() !== true) return 'skip';
      writeFileSync(at(file), `rewritten ${i}\n`);
      return `rewrite ${file}`;
    case 2:
      if (!file) return 'skip';
      rmSync(at(file), { force: true });
      return `rm ${file}`;
    case 3:
      if (exists(at(fresh))) return 'skip';
      mkdirSync(at(fresh));
      writeFileSync(at(`${fresh}/in`), 'in\n');
      return `mkdir ${fresh}`;
    case 4:
      if (!dir || exists(at(fresh))) return 'skip';
      shell(`mv '${dir}' '${fresh}.moved' 2>/dev/null || true`);
      return `mv ${dir}`;
    case 5:
      if (!dir) return 'skip';
      shell(`rm -rf '${dir}' && mkdir -p '${dir}/again' && echo x > '${dir}/again/f'`);
      return `replace ${dir}`;
    case 6:
      writeFileSync(at(`${dir ? `${dir}/` : ''}.gitignore`), rnd(2) ? '*.log\n' : `${pick(NAMES)}*\n`);
      return `ignore in ${dir}`;
    case 7:
      if (!file || lstatSync(at(file), { throwIfNoEntry: false })?.isFile() !== true) return 'skip';
      chmodSync(at(file), rnd(2) ? 0o755 : 0o644);
      return `chmod ${file}`;
    case 8:
      if (exists(at(fresh))) return 'skip';
      symlinkSync('elsewhere', at(fresh));
      return `symlink ${fresh}`;
    case 9:
      if (!file || exists(at(fresh))) return 'skip';
      shell(`mv '${file}' '${fresh}' 2>/dev/null || true`);
      return `rename ${file}`;
    case 10:
      shell(`mkdir -p '${fresh}/x/y' && echo deep > '${fresh}/x/y/z' && touch '${fresh}/x/y/z2'`);
      return `deep ${fresh}`;
    default:
      if (!file || !dir) return 'skip';
      shell(`rm -rf '${dir}' && touch '${dir}'`);
      return `dir to file ${dir}`;
  }
}

for (const seed of [1, 2, 3]) {
  test(`live tree (seed ${seed}): after each of 120 random changes, a refresh gives the states a whole walk takes`, async () => {
    const root = tempDir();
    writeTree(root, {
      'src/a.ts': 'a\n',
      'src/lib/b.ts': 'b\n',
      'docs/c.md': 'c\n',
      '.gitignore': 'out/\n',
      'out/x': 'x\n',
    });
    execFileSync('git', ['init', '-q'], { cwd: root });
    const live = LiveTree.start(root, SCOPE);
    assert.ok(typeof live !== 'string');
    const rnd = random(seed);
    try {
      for (let i = 0; i < 120; i++) {
        const did = change(root, rnd, i);
        const changes = await live.refresh();
        assert.ok(typeof changes !== 'string', `refresh gave ${String(changes)}`);
        const walked = treeStates(root, SCOPE);
        assert.equal(difference(live.states, walked), '', `after change ${i} (${did})`);
      }
    } finally {
      live.close();
    }
  });
}

test('live tree: a file with another hard link outside the root, written through that link, is seen', async () => {
  const root = tempDir();
  const outside = tempDir();
  writeTree(root, { 'f.txt': 'one\n' });
  linkSync(path.join(root, 'f.txt'), path.join(outside, 'link'));
  const live = LiveTree.start(root, SCOPE);
  assert.ok(typeof live !== 'string');
  try {
    writeFileSync(path.join(outside, 'link'), 'two, longer\n');
    const changes = await live.refresh();
    assert.ok(typeof changes !== 'string');
    assert.ok(changes.files.has('f.txt'), 'the write through the other link was not seen');
    assert.equal(difference(live.states, treeStates(root, SCOPE)), '');
  } finally {
    live.close();
  }
});

test('live tree: an ignored directory and an unlisted one are compared by their own state, as a whole walk does', async () => {
  const root = tempDir();
  writeTree(root, { '.gitignore': 'node_modules/\n', 'node_modules/p/i.js': '1\n', 'locked/f': 'f\n', 'a.txt': 'a\n' });
  execFileSync('git', ['init', '-q'], { cwd: root });
  const live = LiveTree.start(root, SCOPE);
  assert.ok(typeof live !== 'string');
  try {
    writeFileSync(path.join(root, 'node_modules/new.js'), 'n\n');
    renameSync(path.join(root, 'locked'), path.join(root, 'locked2'));
    const changes = await live.refresh();
    assert.ok(typeof changes !== 'string');
    assert.ok(changes.ignored.has('node_modules'), 'a change in an ignored directory was not seen');
    assert.ok(changes.files.has('locked/f') && changes.files.has('locked2/f'));
    assert.equal(difference(live.states, treeStates(root, SCOPE)), '');
  } finally {
    live.close();
  }
});

/** What a command's journal told its entry: each file's path with its before and after bytes, and the directories made. */
function collecting() {
  const told: string[] = [];
  const sink: ChangeSink = {
    file: (real, before, after) =>
      told.push(`${path.basename(real)}: ${before?.bytes ?? '-'} -> ${after?.bytes ?? '-'}`),
    dir: (real) => told.push(`dir ${path.basename(real)}`),
  };
  return { told, sink };
}

test('shell journal without watches (the system refused them): the root is walked whole around each command and its changes are told the same, up to 10,000 files', async () => {
  const root = tempDir();
  writeTree(root, { 'a.txt': 'a\n', 'b.txt': 'b\n' });
  const kept = newShellKept();
  kept.walkOnly = true;
  const scope = { maxFiles: 200_000, skipTop: ['.git', '.mewcode'] };
  for (const step of [1, 2]) {
    const b = await beforeCommand(root, scope, kept);
    assert.ok(b && !b.live, 'walked, not watched');
    assert.equal(b.scope.maxFiles, WALK_MAX_FILES);
    execFileSync('sh', ['-c', `echo ${step} > a.txt; rm -f b.txt; mkdir -p d${step}; echo n > d${step}/n.txt`], {
      cwd: root,
    });
    const { told, sink } = collecting();
    const found = await afterCommand(b, sink);
    assert.deepEqual(found.notRecorded, []);
    const had = step === 1 ? 'a\n' : '1\n';
    const gone = step === 1 ? ['b.txt: b\n -> -'] : [];
    assert.deepEqual(told.sort(), [`a.txt: ${had} -> ${step}\n`, ...gone, `dir d${step}`, 'n.txt: - -> n\n'].sort());
  }
  assert.match(tooMany(WALK_MAX_FILES, 'before the command', true), /max_user_watches/);
});

/** Removes `rel` and makes a directory there again, on the same inode number when the file system gives it back (ext4 does). */
function remakeOnSameInode(root: string, rel: string): boolean {
  const ino = lstatSync(path.join(root, rel)).ino;
  rmSync(path.join(root, rel), { recursive: true });
  for (let k = 0; k < 300; k++) {
    const t = path.join(root, `t${k}`);
    mkdirSync(t);
    if (lstatSync(t).ino === ino) {
      renameSync(t, path.join(root, rel));
      for (let j = 0; j < k; j++) rmSync(path.join(root, `t${j}`), { recursive: true });
      return true;
    }
  }
  for (let j = 0; j < 300; j++) rmSync(path.join(root, `t${j}`), { recursive: true });
  mkdirSync(path.join(root, rel));
  return false;
}

/** A live tree of `root`, and a check that a refresh leaves the states a whole walk takes. */
function watched(root: string) {
  const live = LiveTree.start(root, SCOPE);
  assert.ok(typeof live !== 'string');
  const check = async (when: string) => {
    assert.ok(typeof (await live.refresh()) !== 'string');
    assert.equal(difference(live.states, treeStates(root, SCOPE)), '', when);
  };
  return { live, check };
}

test('live tree: a directory renamed, then removed and made again (on the same inode number, and watched under its old name by another watch), is watched anew', async () => {
  const root = tempDir();
  writeTree(root, { 'keep.txt': 'k\n', 'c/x.txt': 'one\n' });
  // Another watch of the directory under its first name (as the search index keeps one until it
  // rebuilds): the kernel's watch is shared, and named after that first path.
  const other = watch(path.join(root, 'c'));
  const { live, check } = watched(root);
  try {
    renameSync(path.join(root, 'c'), path.join(root, 'a'));
    await check('after the rename');
    const reused = remakeOnSameInode(root, 'a');
    writeFileSync(path.join(root, 'a/x.txt'), 'one\n');
    await check(`after the directory was made again (same inode: ${reused})`);
    writeFileSync(path.join(root, 'a/x.txt'), 'two, in the new directory\n');
    await check('after a write in the new directory');
  } finally {
    other.close();
    live.close();
  }
});

test("live tree: a hard link made after a file was stat'ed (in the tree) makes its other name looked at again, and writes through either name are seen", async () => {
  const root = tempDir();
  writeTree(root, { 'd/b.txt': 'one\n', 'e/keep': 'k\n' });
  const { live, check } = watched(root);
  try {
    linkSync(path.join(root, 'd/b.txt'), path.join(root, 'e/b-link'));
    await check('after the link');
    writeFileSync(path.join(root, 'e/b-link'), 'two, through the link\n');
    await check('after a write through the new name');
    writeFileSync(path.join(root, 'd/b.txt'), 'three, through the first name\n');
    await check('after a write through the first name');
  } finally {
    live.close();
  }
});
