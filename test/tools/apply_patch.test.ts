import assert from 'node:assert/strict';
import { chmodSync, existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { parsePatch } from '../../lib/edit/patch.ts';
import { runtimeAt } from '../helpers/runtime.ts';
import { tempDir, writeTree } from '../helpers/temp.ts';

function setup(files: Record<string, string>) {
  const root = tempDir();
  writeTree(root, files);
  const rt = runtimeAt(root, { workers: 0, allowWrite: true });
  const at = (p: string) => path.join(root, p);
  const readAll = async () => {
    for (const f of Object.keys(files)) await rt.call('read_file', { file_path: f });
  };
  return { rt, at, readAll };
}
const patch = (...body: string[]) => ['*** Begin Patch', ...body, '*** End Patch'].join('\n');

test('apply_patch: adds, updates (with @@ anchors), moves and deletes in one patch', async () => {
  const { rt, at, readAll } = setup({
    'src/a.ts': 'function one() {\n  return 1;\n}\n\nfunction two() {\n  return 1;\n}\n',
    'old.txt': 'move me\n',
    'gone.txt': 'bye\n',
  });
  chmodSync(at('src/a.ts'), 0o755);
  await readAll();
  const r = await rt.call('apply_patch', {
    patch: patch(
      '*** Add File: docs/new.md',
      '+# New',
      '+text',
      '*** Update File: src/a.ts',
      '@@ function two() {',
      '-  return 1;',
      '+  return 2;',
      '*** Update File: old.txt',
      '*** Move to: moved/new.txt',
      '@@',
      '-move me',
      '+moved',
      '*** Delete File: gone.txt',
    ),
  });
  assert.equal(r.isError, false, r.content);
  assert.equal(readFileSync(at('docs/new.md'), 'utf8'), '# New\ntext\n');
  assert.equal(
    readFileSync(at('src/a.ts'), 'utf8'),
    'function one() {\n  return 1;\n}\n\nfunction two() {\n  return 2;\n}\n',
  );
  assert.equal(statSync(at('src/a.ts')).mode & 0o777, 0o755);
  assert.equal(readFileSync(at('moved/new.txt'), 'utf8'), 'moved\n');
  assert.ok(!existsSync(at('old.txt')) && !existsSync(at('gone.txt')));
  assert.match(r.content, /^A docs\/new\.md\n--- a\/docs\/new\.md/);
  assert.match(
    r.content,
    /\nM src\/a\.ts\n--- a\/src\/a\.ts\n\+\+\+ b\/src\/a\.ts\n@@ -3,5 \+3,5 @@\n \}\n \n function two\(\) \{\n- {2}return 1;\n\+ {2}return 2;\n \}\n/,
  );
  assert.match(r.content, /\nR old\.txt -> moved\/new\.txt\n/);
  assert.match(r.content, /\nD gone\.txt$/);
});

test('apply_patch: when the third of three files fails, all three are untouched', async () => {
  const { rt, at, readAll } = setup({ 'a.txt': 'a1\n', 'b.txt': 'b1\n', 'c.txt': 'c1\n' });
  await readAll();
  const r = await rt.call('apply_patch', {
    patch: patch(
      '*** Update File: a.txt',
      '-a1',
      '+a2',
      '*** Update File: b.txt',
      '-b1',
      '+b2',
      '*** Update File: c.txt',
      '-nope',
      '+c2',
    ),
  });
  assert.equal(r.code, 'no_match');
  assert.match(r.content, /^chunk 1 \(patch line 9\) of "c\.txt": the lines to replace were not found/);
  assert.deepEqual(
    ['a.txt', 'b.txt', 'c.txt'].map((f) => readFileSync(at(f), 'utf8')),
    ['a1\n', 'b1\n', 'c1\n'],
  );
});

test('apply_patch: CRLF files stay CRLF; context matches ignoring trailing whitespace', async () => {
  const { rt, at, readAll } = setup({ 'w.txt': 'one\r\ntwo  \r\nthree\r\n' });
  await readAll();
  const r = await rt.call('apply_patch', {
    patch: patch('*** Update File: w.txt', ' two', '-three', '+THREE', '+four'),
  });
  assert.equal(r.isError, false, r.content);
  assert.equal(readFileSync(at('w.txt'), 'latin1'), 'one\r\ntwo  \r\nTHREE\r\nfour\r\n');
});

test('apply_patch: End of File pins a chunk to the end', async () => {
  const { rt, at, readAll } = setup({ 'e.txt': 'x\nend\nx\nend\n' });
  await readAll();
  await rt.call('apply_patch', {
    patch: patch('*** Update File: e.txt', '@@', ' x', '-end', '+END', '*** End of File'),
  });
  assert.equal(readFileSync(at('e.txt'), 'utf8'), 'x\nend\nx\nEND\n');
});

test('apply_patch: unread updates need exact context, deletes a read; adds refuse existing files; paths stay in the root', async () => {
  const { rt, at } = setup({ 'a.txt': 'a\n', 'd.txt': 'd\n' });
  // Changed behaviour: an unread file may be updated when every '-'/context line matches exactly.
  const loose = await rt.call('apply_patch', { patch: patch('*** Update File: a.txt', '-a  ', '+b') });
  assert.equal(loose.code, 'not_read');
  assert.equal(readFileSync(at('a.txt'), 'utf8'), 'a\n');
  assert.equal((await rt.call('apply_patch', { patch: patch('*** Update File: a.txt', '-a', '+b') })).code, undefined);
  assert.equal(readFileSync(at('a.txt'), 'utf8'), 'b\n');
  assert.equal((await rt.call('apply_patch', { patch: patch('*** Delete File: d.txt') })).code, 'not_read');
  assert.equal((await rt.call('apply_patch', { patch: patch('*** Add File: a.txt', '+x') })).code, 'exists');
  assert.equal(
    (await rt.call('apply_patch', { patch: patch('*** Add File: ../evil.txt', '+x') })).code,
    'outside_root',
  );
  assert.equal((await rt.call('apply_patch', { patch: patch('*** Delete File: missing.txt') })).code, 'not_found');
});

test('apply_patch: malformed patches are invalid_args naming the line', () => {
  const cases: [string, RegExp][] = [
    ['*** Add File: x\n+a\n*** End Patch', /must start with "\*\*\* Begin Patch"/],
    [patch('*** Frobnicate: x'), /patch line 2: expected "\*\*\* Add File:"/],
    [patch('*** Add File: x', 'no plus'), /patch line 3: a line of an added file must start with "\+"/],
    [patch('*** Update File: x', '?weird'), /patch line 3: a change line must start with " ", "-" or "\+"/],
    [patch('*** Update File: x'), /has no changes/],
    [['*** Begin Patch', '*** End Patch'].join('\n'), /changes no file/],
  ];
  for (const [text, why] of cases) {
    const p = parsePatch(text);
    assert.ok(!p.ok && why.test(p.error), `${text}\n→ ${p.ok ? 'parsed' : p.error}`);
  }
});
