/**
 * The same races with the swap timed exactly: a PreToolUse hook (from the user's settings) runs after
 * the path gate has checked the call's paths and before the tool opens anything, and it swaps a
 * directory for a symlink to a directory outside the root. Every call meets the swapped state, so
 * each try is an attack, not a chance of one; the test puts the directory back after each call.
 */
import assert from 'node:assert/strict';
import { lstatSync, readdirSync, renameSync, unlinkSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import type { ToolResult } from '../../lib/core/tool.ts';
import { runtimeAt } from '../helpers/runtime.ts';
import { startSkillHost } from '../helpers/skill_host.ts';
import { tempDir, writeTree } from '../helpers/temp.ts';
import { SECRET, tally } from './racer.ts';

const TRIES = 100;
const leaked = (r: ToolResult) => `${r.content}\n${JSON.stringify(r.meta ?? {})}`.includes(SECRET);

/** A runtime whose user settings swap `<root>/<dir>` for a symlink to `outside` before every `tool` call. */
function swappingRuntime(root: string, dir: string, outside: string, tool: string, extra = {}) {
  const home = tempDir();
  const command = `mv '${dir}' '${dir}.swap' && ln -s '${outside}' '${dir}'`;
  writeTree(home, {
    '.mewcode/settings.json': JSON.stringify({ hooks: { PreToolUse: [{ matcher: `^${tool}$`, command }] } }),
  });
  const rt = runtimeAt(root, { workers: 0, home, ...extra });
  const restore = () => {
    const at = path.join(root, dir);
    if (lstatSync(at, { throwIfNoEntry: false })?.isSymbolicLink()) unlinkSync(at);
    renameSync(`${at}.swap`, at);
  };
  return { rt, restore };
}

function readScene() {
  const root = tempDir();
  const outside = tempDir();
  writeTree(root, { 'd/a.txt': 'needle inside\n', 'd/sub/b.txt': 'needle deeper\n' });
  writeTree(outside, { 'a.txt': `needle ${SECRET}\n`, [`${SECRET}.txt`]: 'needle\n', 'sub/b.txt': `${SECRET}\n` });
  return { root, outside };
}

const cases: [string, Record<string, unknown>][] = [
  ['read_file', { file_path: 'd/a.txt' }],
  ['read_file', { file_path: 'd/sub/b.txt' }],
  ['grep', { pattern: 'needle', path: 'd', head_limit: 0 }],
  ['grep', { pattern: 'needle', path: 'd/a.txt' }],
  ['glob', { pattern: '**', path: 'd' }],
  ['glob', { pattern: '**', path: 'd', sort: 'mtime' }],
];
for (const [tool, input] of cases) {
  test(`hook-timed races: ${tool} ${JSON.stringify(input)} returns nothing from outside (${TRIES} swaps)`, async () => {
    const { root, outside } = readScene();
    const { rt, restore } = swappingRuntime(root, 'd', outside, tool);
    const seen = tally();
    let leaks = 0;
    for (let i = 0; i < TRIES; i++) {
      const r = await rt.call(tool, input);
      restore();
      if (leaked(r)) leaks++;
      seen.add(r.isError ? (r.code ?? 'error') : 'ok');
    }
    console.log(`hook-timed races: ${tool} x${TRIES}: ${seen}, ${leaks} leaked`);
    assert.equal(leaks, 0);
  });
}

test(`hook-timed races: write_file creating parents creates nothing outside (${TRIES} swaps)`, async () => {
  const root = tempDir();
  const outside = tempDir();
  writeTree(root, { 'd/keep.txt': 'x\n' });
  const { rt, restore } = swappingRuntime(root, 'd', outside, 'write_file', {
    permissions: { allow: { write: true } },
  });
  const seen = tally();
  for (let i = 0; i < TRIES; i++) {
    const r = await rt.call('write_file', { file_path: `d/n${i}/f.txt`, content: 'mine\n' });
    restore();
    seen.add(r.isError ? (r.code ?? 'error') : 'ok');
  }
  console.log(`hook-timed races: write_file x${TRIES}: ${seen}`);
  assert.deepEqual(readdirSync(outside), []);
});

test(`hook-timed races: a write approved for src/ never lands in .git/hooks (${TRIES} swaps)`, async () => {
  const root = tempDir();
  writeTree(root, { 'src/keep.txt': 'x\n', '.git/hooks/README': 'hooks\n' });
  const { rt, restore } = swappingRuntime(root, 'src', path.join(root, '.git', 'hooks'), 'write_file', {
    permissions: { allow: { write: ['src'] } },
  });
  const seen = tally();
  for (let i = 0; i < TRIES; i++) {
    const r = await rt.call('write_file', { file_path: `src/pre-commit-${i}`, content: '#!/bin/sh\nid\n' });
    restore();
    seen.add(r.isError ? (r.code ?? 'error') : 'ok');
  }
  console.log(`hook-timed races: write_file beside .git/hooks x${TRIES}: ${seen}`);
  assert.deepEqual(readdirSync(path.join(root, '.git', 'hooks')), ['README']);
});

const SKILL = '---\nname: review\ndescription: Reviews code\n---\nDo the review.\n';
const { url: base } = await startSkillHost({ tree: { 'acme/tools/review/SKILL.md': SKILL } });

test(`hook-timed races: install_skill writes nothing outside (${TRIES} swaps of .mewcode/skills)`, async () => {
  const root = tempDir();
  const outside = tempDir();
  writeTree(root, { '.mewcode/skills/other/SKILL.md': SKILL.replace('review', 'other') });
  const { rt, restore } = swappingRuntime(root, '.mewcode/skills', outside, 'install_skill', {
    skillSources: { githubApi: base },
    permissions: { allow: { net: true, write: ['.mewcode/skills'] } },
  });
  const seen = tally();
  for (let i = 0; i < TRIES; i++) {
    const r = await rt.call('install_skill', { url: 'https://github.com/acme/tools/tree/main/review' });
    restore();
    seen.add(r.isError ? (r.code ?? 'error') : 'ok');
  }
  console.log(`hook-timed races: install_skill x${TRIES}: ${seen}`);

  assert.deepEqual(readdirSync(outside), []);
});
