/**
 * What reaches the prompt from a real runtime: a write tool's preview (computed only when the user is
 * asked, read-only, a failure a note that never changes the decision), the whole command, and an
 * "always" answer that holds in this runtime at once.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import * as v from 'valibot';
import { defineTool, ok } from '../../lib/core/tool.ts';
import type { Answer, Prompter, PromptPreview, PromptRequest } from '../../lib/prompt/prompt.ts';
import { runtimeAt } from '../helpers/runtime.ts';
import { tempDir, writeTree } from '../helpers/temp.ts';

/** A prompter that answers in turn and keeps each request with the preview it was shown. */
function recorder(...answers: Answer[]) {
  const seen: { request: PromptRequest; preview: PromptPreview | undefined }[] = [];
  const prompter: Prompter = {
    async ask(request) {
      seen.push({ request, preview: await request.preview?.() });
      return answers[seen.length - 1] ?? 'deny';
    },
  };
  return { prompter, seen };
}

const diffOf = (p: PromptPreview | undefined) => (p && 'diff' in p ? p.diff : `no diff: ${JSON.stringify(p)}`);
const noteOf = (p: PromptPreview | undefined) => (p && 'note' in p ? p.note : `no note: ${JSON.stringify(p)}`);

test('preview: edit_file, multi_edit, write_file and apply_patch show the diff they then apply', async () => {
  const root = tempDir();
  writeTree(root, { 'a.txt': 'one\ntwo\nthree\n', 'crlf.txt': 'x\r\ny\r\n', 'gone.txt': 'bye\n' });
  const { prompter, seen } = recorder('once', 'once', 'once', 'once');
  const rt = runtimeAt(root, { workers: 0, prompt: prompter });
  for (const f of ['a.txt', 'crlf.txt', 'gone.txt']) await rt.call('read_file', { file_path: f });
  const edit = await rt.call('edit_file', { file_path: 'a.txt', old_string: 'two', new_string: '2' });
  assert.equal(diffOf(seen[0]?.preview), '--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+2\n three');
  assert.ok(edit.content.endsWith(diffOf(seen[0]?.preview)), 'the prompt showed the diff the edit made');
  await rt.call('multi_edit', {
    file_path: 'a.txt',
    edits: [
      { old_string: 'one', new_string: '1' },
      { old_string: 'three', new_string: '3' },
    ],
  });
  assert.equal(diffOf(seen[1]?.preview), '--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,3 @@\n-one\n+1\n 2\n-three\n+3');
  const w = await rt.call('write_file', { file_path: 'crlf.txt', content: 'x\nz\n' });
  assert.equal(diffOf(seen[2]?.preview), '--- a/crlf.txt\n+++ b/crlf.txt\n@@ -1,2 +1,2 @@\n x\n-y\n+z');
  assert.ok(w.content.endsWith(diffOf(seen[2]?.preview)));
  const patch = [
    '*** Begin Patch',
    '*** Add File: n/new.txt',
    '+fresh',
    '*** Delete File: gone.txt',
    '*** Update File: a.txt',
    '@@',
    '-1',
    '+uno',
    '*** End Patch',
  ].join('\n');
  const p = await rt.call('apply_patch', { patch });
  assert.equal(diffOf(seen[3]?.preview), p.content, 'the prompt showed what apply_patch reports');
  assert.deepEqual(
    seen.map((s) => s.request.asks),
    [
      [{ kind: 'write', subject: 'a.txt' }],
      [{ kind: 'write', subject: 'a.txt' }],
      [{ kind: 'write', subject: 'crlf.txt' }],
      ['n/new.txt', 'gone.txt', 'a.txt'].map((subject) => ({ kind: 'write', subject })),
    ],
  );
  await rt.close();
});

test('preview: a change that would fail shows why in one note; the decision is the answer, and nothing is written', async () => {
  const root = tempDir();
  writeTree(root, { 'unread.txt': 'u\n', 'a.txt': 'alpha\n' });
  const { prompter, seen } = recorder('once', 'once', 'deny', 'deny', 'once');
  const rt = runtimeAt(root, { workers: 0, prompt: prompter });
  const unread = await rt.call('write_file', { file_path: 'unread.txt', content: 'x' });
  assert.match(
    noteOf(seen[0]?.preview),
    /^the call would fail \(not_read\): "unread\.txt" has not been read in this session/,
  );
  assert.equal(unread.code, 'not_read', 'allowed once, the call ran and failed as the note said');
  await rt.call('read_file', { file_path: 'a.txt' });
  const miss = await rt.call('edit_file', { file_path: 'a.txt', old_string: 'beta', new_string: 'b' });
  assert.match(noteOf(seen[1]?.preview), /^the call would fail \(no_match\): /);
  assert.equal(miss.code, 'no_match');
  // Previews read and never write: a new file in new directories creates neither while asking.
  await rt.call('edit_file', { file_path: 'deep/er/x.txt', old_string: '', new_string: 'new\n' });
  await rt.call('write_file', { file_path: 'deeper/y.txt', content: 'y\n' });
  assert.equal(diffOf(seen[2]?.preview), '--- a/deep/er/x.txt\n+++ b/deep/er/x.txt\n@@ -1,0 +1,1 @@\n+new');
  assert.equal(diffOf(seen[3]?.preview), '--- a/deeper/y.txt\n+++ b/deeper/y.txt\n@@ -1,0 +1,1 @@\n+y');
  assert.equal(existsSync(path.join(root, 'deep')), false);
  assert.equal(existsSync(path.join(root, 'deeper')), false);
  // An unchanged write says so.
  await rt.call('write_file', { file_path: 'a.txt', content: 'alpha\n' });
  assert.equal(noteOf(seen[4]?.preview), '"a.txt" already has exactly this content');
  await rt.close();
});

test('preview: computed only when the user is asked, at most once; a throwing preview is a note', async () => {
  const root = tempDir();
  let previews = 0;
  let runs = 0;
  const probe = (throws: boolean) =>
    defineTool({
      name: throws ? 'probe_throws' : 'probe',
      lane: 'write',
      params: v.strictObject({ file_path: v.pipe(v.string(), v.description('the file it would write')) }),
      description: 'A write tool that counts how often its preview is computed.',
      access: (a) => [{ kind: 'write', path: a.file_path }],
      preview() {
        previews++;
        if (throws) throw new Error('the disk is on fire');
        return { diff: '+x' };
      },
      async run() {
        runs++;
        return ok('ran');
      },
    });
  const twice: Prompter = {
    async ask(request) {
      await request.preview?.();
      const again = await request.preview?.();
      assert.deepEqual(again, await request.preview?.());
      return 'once';
    },
  };
  const asked = runtimeAt(root, { workers: 0, prompt: twice });
  asked.registry.register(probe(false));
  assert.equal((await asked.call('probe', { file_path: 'x' })).content, 'ran');
  assert.equal(previews, 1, 'computed once however often the prompt shows it');
  const granted = runtimeAt(root, { workers: 0, prompt: twice, allowWrite: true });
  granted.registry.register(probe(false));
  await granted.call('probe', { file_path: 'x' });
  const refused = runtimeAt(root, { workers: 0, prompt: twice, deny: ['x'] });
  refused.registry.register(probe(false));
  assert.equal((await refused.call('probe', { file_path: 'x' })).code, 'permission_denied');
  assert.equal(previews, 1, 'an allowed or denied call never computes its preview');
  const { prompter, seen } = recorder('once');
  const failing = runtimeAt(root, { workers: 0, prompt: prompter });
  failing.registry.register(probe(true));
  assert.equal((await failing.call('probe_throws', { file_path: 'x' })).content, 'ran');
  assert.equal(noteOf(seen[0]?.preview), 'probe_throws could not preview its change (the disk is on fire)');
  assert.equal(runs, 3);
  for (const rt of [asked, granted, refused, failing]) await rt.close();
});

test('prompt request: the whole command, untrimmed; "always" offered unless an ask rule asks', async () => {
  const root = tempDir();
  writeTree(root, { '.mewcode/settings.json': JSON.stringify({ permissions: { ask: ['bash(git push)'] } }) });
  const { prompter, seen } = recorder('deny', 'deny');
  const rt = runtimeAt(root, { workers: 0, prompt: prompter });
  const command = ` echo hello${' '.repeat(230)}; touch PWNED \n`;
  const r = await rt.call('bash', { command });
  assert.deepEqual(seen[0]?.request, { tool: 'bash', asks: [{ kind: 'run', subject: command }], always: true });
  assert.match(r.content, /^The user declined: bash may not run " echo hello {189}…"/, 'the model is told less');
  await rt.call('bash', { command: 'git push' });
  assert.equal(seen[1]?.request.always, false);
  await rt.close();
});

test('always: the rule holds in this runtime at once, so the prompt is reached once, not twice', async () => {
  const root = tempDir();
  const home = tempDir();
  const { prompter, seen } = recorder('always', 'deny');
  const rt = runtimeAt(root, { workers: 0, home, prompt: prompter });
  assert.equal((await rt.call('bash', { command: 'echo hi' })).content, 'exit_code: 0\nhi\n');
  const again = await rt.call('bash', { command: 'echo hi' });
  assert.equal(again.content, 'exit_code: 0\nhi\n');
  assert.deepEqual(again.meta?.policy, {
    allow: true,
    by: 'rule',
    reason: 'the local rule allow "bash(=echo hi)"',
    source: 'local allow bash(=echo hi); default read',
  });
  assert.equal((await rt.call('bash', { command: 'echo other' })).code, 'permission_denied');
  assert.equal(seen.length, 2, 'asked for "echo hi" once, and for "echo other"');
  await rt.close();
});

test('always: when the settings file cannot take the rule, it is left as it was and the rule still holds for this run', async () => {
  const root = tempDir();
  const home = tempDir();
  const local = path.join(root, '.mewcode/settings.local.json');
  writeTree(root, { '.mewcode/settings.local.json': '{}\n' });
  const warnings: string[] = [];
  const { prompter, seen } = recorder('always');
  const rt = runtimeAt(root, { workers: 0, home, prompt: prompter, warn: (l) => warnings.push(l) });
  writeFileSync(local, '{ "permissions": { "allow": [ "bash(npm test)",'); // an editor mid-save
  await rt.call('bash', { command: 'echo hi' });
  assert.equal((await rt.call('bash', { command: 'echo hi' })).content, 'exit_code: 0\nhi\n');
  assert.equal(seen.length, 1);
  assert.equal(readFileSync(local, 'utf8'), '{ "permissions": { "allow": [ "bash(npm test)",', 'the file lost nothing');
  assert.equal(warnings.length, 1);
  assert.match(
    warnings[0] ?? '',
    /^mewcode: the rule holds for this run only: .*settings\.local\.json cannot be read as JSON \(.*\); fix it, then add bash\(=echo hi\) to its permissions\.allow$/,
  );
  await rt.close();
});

test('always: a .mewcode that is a symbolic link is not written through; the rule holds for this run', async () => {
  const root = tempDir();
  const elsewhere = tempDir();
  symlinkSync(elsewhere, path.join(root, '.mewcode'));
  const warnings: string[] = [];
  const { prompter, seen } = recorder('always');
  const rt = runtimeAt(root, { workers: 0, home: tempDir(), prompt: prompter, warn: (l) => warnings.push(l) });
  await rt.call('bash', { command: 'echo hi' });
  assert.equal((await rt.call('bash', { command: 'echo hi' })).content, 'exit_code: 0\nhi\n');
  assert.equal(seen.length, 1);
  assert.deepEqual(readdirSync(elsewhere), [], 'nothing was written where the link points');
  assert.deepEqual(warnings, [
    `mewcode: the rule holds for this run only: ${root}/.mewcode is a symbolic link; replace it with a directory, then add bash(=echo hi)`,
  ]);
  await rt.close();
});
