/**
 * The read tools against a real process that keeps swapping a directory of the root for a symlink
 * to a directory outside it (and back). Every file and name outside carries SECRET; a leak is SECRET
 * in any output. Each tool runs 1,000 times while the swap runs; none may leak once.
 */
import assert from 'node:assert/strict';
import { mkdirSync, renameSync, symlinkSync, unlinkSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { inlineRunner, runSharded, type ShardRunner } from '../../lib/search/parallel.ts';
import { runGrepShard } from '../../lib/search/shards.ts';
import { runtimeAt } from '../helpers/runtime.ts';
import { tempDir, writeTree } from '../helpers/temp.ts';
import { leaked, NEEDLE_GREP, outcome, SECRET, scene, TRIES, tally, whileRacing } from './racer.ts';

test('read races: read_file never returns a byte from outside the root (1,000 reads, parent swapped)', async () => {
  const { root, outside, d } = scene();
  const rt = runtimeAt(root, { workers: 1 }); // read_file runs where it always runs: in a worker
  const seen = tally();
  let leaks = 0;
  try {
    await whileRacing(d, outside, async () => {
      for (let i = 0; i < TRIES; i++) {
        const r = await rt.call('read_file', { file_path: i % 2 ? 'd/a.txt' : 'd/sub/b.txt' });
        if (leaked(r)) leaks++;
        seen.add(outcome(r));
      }
    });
  } finally {
    await rt.close();
  }
  console.log(`read races: read_file x${TRIES}: ${seen}, ${leaks} leaked`);
  assert.equal(leaks, 0);
});

test('read races: grep never returns a line or a name from outside the root (1,000 searches)', async () => {
  const { root, outside, d } = scene();
  const rt = runtimeAt(root, { workers: 0 });
  const inputs = [
    { pattern: 'needle', head_limit: 0 },
    { pattern: 'needle', path: 'd', head_limit: 0, include_ignored: true },
    { pattern: 'needle', path: 'd/a.txt' },
    { pattern: 'needle', output_mode: 'files_with_matches', head_limit: 0 },
  ];
  const seen = tally();
  let leaks = 0;
  await whileRacing(d, outside, async () => {
    for (let i = 0; i < TRIES; i++) {
      const r = await rt.call('grep', inputs[i % inputs.length] as Record<string, unknown>);
      if (leaked(r)) leaks++;
      seen.add(outcome(r));
    }
  });
  console.log(`read races: grep x${TRIES}: ${seen}, ${leaks} leaked`);
  assert.equal(leaks, 0);
});

test('read races: glob never lists a name from outside the root (1,000 listings)', async () => {
  const { root, outside, d } = scene();
  const rt = runtimeAt(root, { workers: 0 });
  const inputs = [
    { pattern: '**/*', limit: 1000 },
    { pattern: '**', path: 'd', include_ignored: true, sort: 'mtime' },
    { pattern: 'sub/*', path: 'd' },
  ];
  const seen = tally();
  let leaks = 0;
  await whileRacing(d, outside, async () => {
    for (let i = 0; i < TRIES; i++) {
      const r = await rt.call('glob', inputs[i % inputs.length] as Record<string, unknown>);
      if (leaked(r)) leaks++;
      seen.add(outcome(r));
    }
  });
  console.log(`read races: glob x${TRIES}: ${seen}, ${leaks} leaked`);
  assert.equal(leaks, 0);
});

const skill = (name: string, body: string) => `---\nname: ${name}\ndescription: ${name} things\n---\n${body}\n`;

test('read races: load_skill and the catalog never read a skill from outside the root (1,000 loads)', async () => {
  const root = tempDir();
  const outside = tempDir();
  writeTree(root, { '.mewcode/skills/demo/SKILL.md': skill('demo', 'inside instructions') });
  writeTree(outside, {
    'demo/SKILL.md': skill('demo', `instructions ${SECRET}`),
    'evil/SKILL.md': skill('evil', `more ${SECRET}`),
  });
  const rt = runtimeAt(root, { workers: 0 });
  const seen = tally();
  let leaks = 0;
  await whileRacing(path.join(root, '.mewcode', 'skills'), outside, async () => {
    for (let i = 0; i < TRIES; i++) {
      rt.skills.reload(); // what install_skill does after an install
      const r = await rt.call('load_skill', { name: 'demo' });
      const listed = rt.skills.list().map((s) => `${s.name} ${s.description} ${s.body} ${s.file}`);
      if (leaked(r) || listed.some((s) => s.includes(SECRET) || s.startsWith('evil'))) leaks++;
      seen.add(outcome(r));
    }
  });
  console.log(`read races: load_skill x${TRIES}: ${seen}, ${leaks} leaked`);
  assert.equal(leaks, 0);
});

test('skills: a SKILL.md or a skill directory that is a symlink is not read, and says why', async () => {
  const root = tempDir();
  const outside = tempDir();
  writeTree(root, { '.mewcode/skills/fine/SKILL.md': skill('fine', 'fine body'), '.mewcode/skills/linked/x': '' });
  writeTree(outside, {
    'SKILL.md': skill('linked', `body ${SECRET}`),
    'whole/SKILL.md': skill('whole', `body ${SECRET}`),
  });
  symlinkSync(path.join(outside, 'SKILL.md'), path.join(root, '.mewcode/skills/linked/SKILL.md'));
  symlinkSync(path.join(outside, 'whole'), path.join(root, '.mewcode/skills/whole'));
  const rt = runtimeAt(root, { workers: 0 });
  assert.deepEqual(
    rt.skills.list().map((s) => s.name),
    ['fine'],
  );
  // load_skill declares a read of the skill's SKILL.md, so the path gate already refuses the link to
  // outside the root; the catalog would not have it either.
  const r = await rt.call('load_skill', { name: 'linked' });
  assert.equal(r.code, 'outside_root');
  assert.ok(!leaked(r));
  assert.deepEqual(rt.skills.problems, [
    `${path.join(root, '.mewcode/skills/linked/SKILL.md')}: a symbolic link; a skill is read only from a regular SKILL.md in its own directory`,
    `${path.join(root, '.mewcode/skills/whole')}: a symbolic link; a skill is read only from a real directory under .mewcode/skills`,
  ]);
});

test('skills: a symlinked .mewcode/skills is read when it leads inside the root, refused when it leads outside', () => {
  const root = tempDir();
  const outside = tempDir();
  writeTree(root, { 'shared/skills/lint/SKILL.md': skill('lint', 'lint body') });
  writeTree(outside, { 'evil/SKILL.md': skill('evil', `body ${SECRET}`) });
  mkdirSync(path.join(root, '.mewcode'));
  symlinkSync('../shared/skills', path.join(root, '.mewcode/skills'));
  assert.deepEqual(
    runtimeAt(root, { workers: 0 })
      .skills.list()
      .map((s) => s.name),
    ['lint'],
  );
  unlinkSync(path.join(root, '.mewcode/skills'));
  symlinkSync(outside, path.join(root, '.mewcode/skills'));
  const rt = runtimeAt(root, { workers: 0 });
  assert.deepEqual(rt.skills.list(), []);
  assert.deepEqual(rt.skills.problems, [
    `${path.join(root, '.mewcode/skills')}: it leads to ${outside}, outside the root; its skills were not read`,
  ]);
});

test('read races: planned searches (shards of loose files and directories, as the pool gets them) never leak (1,000 runs)', async () => {
  // The planner and the shard tasks exactly as a pool runs them, run here: parallelism 2 makes the
  // search plan its shards instead of one walk. A small tree becomes one shard of loose files (each
  // opened through its directory afresh); ten top directories become shards of directories.
  const runner: ShardRunner = { parallelism: 2, run: inlineRunner.run };
  const grepTemplate = NEEDLE_GREP;
  const globTemplate = { kind: 'glob' as const, pattern: '**', dot: false, withMtime: true, maxResults: 1000 };
  const seen = tally();
  let leaks = 0;
  for (const wide of [false, true]) {
    const { root, outside, d } = scene();
    if (wide) for (let i = 0; i < 9; i++) writeTree(root, { [`e${i}/x.txt`]: 'needle\n' });
    const walk = { root, useIgnore: true, hidden: false, maxDepth: Number.POSITIVE_INFINITY, ignoreBase: root };
    await whileRacing(d, outside, async () => {
      for (let i = 0; i < TRIES / 2; i++) {
        const r = await runSharded(root, '', walk, i % 2 ? grepTemplate : globTemplate, runner, 0);
        assert.ok(r.ok);
        if (JSON.stringify(r.value).includes(SECRET)) leaks++;
        seen.add(`${r.value.tasks} tasks`);
      }
    });
  }
  console.log(`read races: planned grep and glob x${TRIES}: ${seen}, ${leaks} leaked`);
  assert.equal(leaks, 0);
});

test('read races: loose files two levels below an open directory (reached by their whole checked path) never leak (1,000 runs)', async () => {
  // An index's candidates are loose files spread over a tree: the directory chain then opens a
  // directory by its whole path and checks what it reached (dir_chain.ts). `d` keeps being swapped
  // for a symlink to a tree of secrets with the same names.
  const { root, outside, d } = scene({ deeper: true });
  writeTree(root, { 'e/f/g/h.txt': 'needle far\n' });
  const files = ['d/sub/b.txt', 'd/sub/deeper/c.txt', 'e/f/g/h.txt', 'top.txt'].map((rel) => ({
    rel,
    kind: 'file' as const,
  }));
  const walk = { root, useIgnore: true, hidden: false, maxDepth: Number.POSITIVE_INFINITY, ignoreBase: root };
  const task = { ...NEEDLE_GREP, root, walk, dirs: [], files };
  const calm = runGrepShard(task);
  assert.deepEqual(
    calm.files.map((f) => f.rel),
    ['d/sub/b.txt', 'd/sub/deeper/c.txt', 'e/f/g/h.txt', 'top.txt'],
  );
  const seen = tally();
  let leaks = 0;
  await whileRacing(d, outside, async () => {
    for (let i = 0; i < TRIES; i++) {
      const r = runGrepShard(task);
      if (JSON.stringify(r).includes(SECRET)) leaks++;
      seen.add(`${r.files.length} files, ${r.unreadable.length} unreachable`);
      // The file outside the swapped directory is read every time.
      assert.ok(r.files.some((f) => f.rel === 'e/f/g/h.txt'));
    }
  });
  console.log(`read races: loose files x${TRIES}: ${seen}, ${leaks} leaked`);
  assert.equal(leaks, 0);
  // `d` a symlink for good: nothing below it is read, and each file says why.
  const dir = path.join(root, 'd');
  const moved = `${dir}.real`;
  renameSync(dir, moved);
  symlinkSync(outside, dir);
  try {
    const r = runGrepShard(task);
    assert.doesNotMatch(JSON.stringify(r), new RegExp(SECRET));
    assert.deepEqual(
      r.unreadable.map((u) => u.rel),
      ['d/sub/b.txt', 'd/sub/deeper/c.txt'],
    );
  } finally {
    unlinkSync(dir);
    renameSync(moved, dir);
  }
});
