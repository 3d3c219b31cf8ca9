/**
 * The writes that create directories — missing parents of write_file and apply_patch, and
 * install_skill's staging and rename — against a real process that keeps swapping a directory on
 * their way for a symlink to a directory outside the root. Nothing may ever appear outside.
 */
import assert from 'node:assert/strict';
import { readdirSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { runtimeAt } from '../helpers/runtime.ts';
import { startSkillHost } from '../helpers/skill_host.ts';
import { tempDir, writeTree } from '../helpers/temp.ts';
import { tally, whileRacing } from './racer.ts';

const TRIES = 1000;
const everything = (dir: string) => readdirSync(dir, { recursive: true }) as string[];

test('write races: creating missing parents never creates or writes anything outside the root (1,000 writes)', async () => {
  const root = tempDir();
  const outside = tempDir();
  writeTree(root, { 'd/keep.txt': 'x\n' });
  const rt = runtimeAt(root, { workers: 0, permissions: { allow: { write: true } } });
  const seen = tally();
  await whileRacing(path.join(root, 'd'), outside, async () => {
    for (let i = 0; i < TRIES; i++) {
      const r =
        i % 2
          ? await rt.call('write_file', { file_path: `d/n${i}/deep/f.txt`, content: 'mine\n' })
          : await rt.call('apply_patch', {
              patch: `*** Begin Patch\n*** Add File: d/p${i}/f.txt\n+mine\n*** End Patch`,
            });
      seen.add(r.isError ? (r.code ?? 'error') : 'ok');
    }
  });
  console.log(`write races: parent creation x${TRIES}: ${seen}`);
  assert.deepEqual(everything(outside), []);
});

test('write races: a write is never redirected into a protected directory of the root (1,000 writes)', async () => {
  // The swap need not lead outside: src/ swapped for a symlink to .git/hooks is inside the root, but
  // the check approved src/pre-commit, not .git/hooks/pre-commit (refused to every write tool).
  const root = tempDir();
  writeTree(root, { 'src/keep.txt': 'x\n', '.git/hooks/README': 'hooks\n' });
  const hooks = path.join(root, '.git', 'hooks');
  const rt = runtimeAt(root, { workers: 0, permissions: { allow: { write: ['src'] } } });
  const seen = tally();
  await whileRacing(path.join(root, 'src'), hooks, async () => {
    for (let i = 0; i < TRIES; i++) {
      const r = await rt.call('write_file', { file_path: `src/pre-commit-${i}`, content: '#!/bin/sh\nid\n' });
      seen.add(r.isError ? (r.code ?? 'error') : 'ok');
    }
  });
  console.log(`write races: writes beside a protected directory x${TRIES}: ${seen}`);
  assert.deepEqual(everything(hooks), ['README']);
});

// A stand-in for GitHub's contents API and raw files on 127.0.0.1, serving one small skill.
const SKILL = '---\nname: review\ndescription: Reviews code\n---\nDo the review.\n';
const { url: base } = await startSkillHost({
  tree: { 'acme/tools/review/SKILL.md': SKILL, 'acme/tools/review/notes/x.md': 'notes\n' },
});

test('write races: install_skill never puts a skill outside the root while .mewcode/skills is swapped (1,000 installs)', async () => {
  const root = tempDir();
  const outside = tempDir();
  writeTree(root, { '.mewcode/skills/other/SKILL.md': SKILL.replace('review', 'other') });
  const rt = runtimeAt(root, {
    workers: 0,
    skillSources: { githubApi: base, timeoutMs: 30_000 },
    permissions: { allow: { net: true, write: ['.mewcode/skills'] } },
  });
  const seen = tally();
  await whileRacing(path.join(root, '.mewcode', 'skills'), outside, async () => {
    for (let i = 0; i < TRIES; i++) {
      const r = await rt.call('install_skill', { url: 'https://github.com/acme/tools/tree/main/review' });
      seen.add(r.isError ? (r.code ?? 'error') : 'ok');
    }
  });
  console.log(`write races: install_skill x${TRIES}: ${seen}`);
  assert.deepEqual(everything(outside), []);
});

test('install_skill: replacing a skill removes the old version without following a symlink in it', async () => {
  const root = tempDir();
  const outside = tempDir();
  writeTree(outside, { 'precious/keep.txt': 'keep\n' });
  writeTree(root, { '.mewcode/skills/review/SKILL.md': SKILL, '.mewcode/skills/review/sub/x.md': 'old\n' });
  symlinkSync(path.join(outside, 'precious'), path.join(root, '.mewcode/skills/review/link'));
  symlinkSync(path.join(outside, 'precious'), path.join(root, '.mewcode/skills/review/sub/deeper'));
  const rt = runtimeAt(root, {
    workers: 0,
    skillSources: { githubApi: base },
    permissions: { allow: { net: true, write: ['.mewcode/skills'] } },
  });
  const r = await rt.call('install_skill', { url: 'https://github.com/acme/tools/tree/main/review' });
  assert.equal(r.isError, false, r.content);
  assert.deepEqual(everything(path.join(root, '.mewcode/skills')).sort(), [
    'review',
    'review/SKILL.md',
    'review/notes',
    'review/notes/x.md',
  ]);
  assert.deepEqual(everything(outside).sort(), ['precious', 'precious/keep.txt']);
});
