/**
 * apply_patch through the edit matcher: indented headers, context and '-' lines that differ only in
 * ways that cannot change meaning, ambiguity refused, and updates of files never read when every
 * context line matches exactly (deletes still need a read).
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { runtimeAt } from '../helpers/runtime.ts';
import { tempDir, writeTree } from '../helpers/temp.ts';

function setup(files: Record<string, string>) {
  const root = tempDir();
  writeTree(root, files);
  const rt = runtimeAt(root, { workers: 0, allowWrite: true });
  const read = (p: string) => readFileSync(path.join(root, p), 'utf8');
  const readAll = async () => {
    for (const f of Object.keys(files)) await rt.call('read_file', { file_path: f });
  };
  const apply = (...body: string[]) =>
    rt.call('apply_patch', { patch: ['*** Begin Patch', ...body, '*** End Patch'].join('\n') });
  return { rt, root, read, readAll, apply };
}

test('apply_patch: headers may be indented, like Begin and End', async () => {
  const { read, readAll, apply, root } = setup({ 'a.txt': 'one\ntwo\n' });
  await readAll();
  const r = await apply('  *** Update File: a.txt', '@@', '-two', '+TWO', ' *** Add File: b.txt', '+new');
  assert.equal(r.code, undefined, r.content);
  assert.equal(read('a.txt'), 'one\nTWO\n');
  assert.equal(read('b.txt'), 'new\n');
  assert.ok(existsSync(path.join(root, 'b.txt')));
});

test('apply_patch: context that differs in whitespace or typography applies once, with the file’s indentation', async () => {
  const { read, readAll, apply } = setup({
    'm.py': 'class A:\n    def f(self):  \n        return "x"\n',
    'q.md': 'Say "hello" - then go.\nNext line.\n',
  });
  await readAll();
  // Context at 4 spaces less, trailing whitespace dropped; the '+' line gets the file's depth.
  const r = await apply('*** Update File: m.py', ' def f(self):', '-    return "x"', '+    return "y"');
  assert.equal(r.code, undefined, r.content);
  assert.match(r.content, /chunk 1 matched ignoring indentation \(4 spaces less\), trailing whitespace at line 2/);
  assert.equal(read('m.py'), 'class A:\n    def f(self):  \n        return "y"\n');
  await apply('*** Update File: q.md', '-Say “hello” – then go.', '+Say “hello” – then stop.', ' Next line.');
  assert.equal(read('q.md'), 'Say "hello" - then stop.\nNext line.\n');
});

test('apply_patch: context that fits two places, or misses by a real difference, is refused and names them', async () => {
  const text = 'if a:\n    go()\nif b:\n        go()\n';
  const { read, readAll, apply } = setup({ 'two.py': text });
  await readAll();
  const r = await apply('*** Update File: two.py', '-go()  ', '+stop()');
  assert.equal(r.code, 'no_match');
  assert.match(r.content, /it fits 2 places \(line 2; line 4\)/);
  const miss = await apply('*** Update File: two.py', ' if a:', '-    goo()', '+    stop()');
  assert.equal(miss.code, 'no_match');
  assert.match(miss.content, /closest place is lines 1–2/);
  assert.equal(read('two.py'), text);
});

test('apply_patch: an unread file may be updated when all context matches exactly; a delete still needs a read', async () => {
  const { read, apply, rt } = setup({ 'u.txt': 'alpha\nbeta  \ngamma\n', 'd.txt': 'bye\n', 'm.txt': 'move\n' });
  const loose = await apply('*** Update File: u.txt', ' alpha', '-beta', '+BETA');
  assert.equal(loose.code, 'not_read', 'context that matched only up to whitespace proves nothing');
  assert.match(loose.content, /only when its context and '-' lines match it exactly/);
  const exact = await apply('*** Update File: u.txt', ' alpha', '-beta  ', '+BETA');
  assert.equal(exact.code, undefined, exact.content);
  assert.equal(read('u.txt'), 'alpha\nBETA\ngamma\n');
  assert.equal((await apply('*** Delete File: d.txt')).code, 'not_read');
  assert.equal((await apply('*** Update File: m.txt', '*** Move to: n.txt')).code, 'not_read');
  assert.equal((await apply('*** Add File: d.txt', '+x')).code, 'exists');
  // The update recorded what it wrote: a follow-up edit needs no read.
  const next = await rt.call('edit_file', { file_path: 'u.txt', old_string: 'BETA', new_string: 'beta' });
  assert.equal(next.code, undefined, next.content);
});
