/**
 * The journal around the property test: a file someone else edited after the agent is left as it is
 * and reported (and --force restores it); a new runtime on the same root sees the journal; its
 * directory and files are private; a torn last index line is skipped and the next entry is whole;
 * the size cap collects the oldest entries and their blobs; the CLI's exit codes.
 */
import assert from 'node:assert/strict';
import { appendFileSync, existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { keep } from '../../lib/history/collect.ts';
import type { Entry } from '../../lib/history/entries.ts';
import { journalDirFor } from '../../lib/history/journal_dir.ts';
import { INLINE_MAX } from '../../lib/history/store.ts';
import { runCli } from '../helpers/cli.ts';
import { runtimeAt } from '../helpers/runtime.ts';
import { tempDir, writeTree } from '../helpers/temp.ts';

const setup = (journal: { maxBytes?: number } = {}) => {
  const root = tempDir();
  const base = tempDir();
  const rt = runtimeAt(root, { workers: 0, allowWrite: true, journal: { dir: base, ...journal } });
  return { root, base, rt, at: (p: string) => path.join(root, p), dir: journalDirFor(base, root) };
};

test('journal: a file edited by another process after the agent is left untouched and reported with a diff; --force restores it', async () => {
  const { rt, at } = setup();
  writeTree(path.dirname(at('x')), { 'a.txt': 'one\n', 'b.txt': 'bee\n' });
  await rt.call('read_file', { file_path: 'a.txt' });
  await rt.call('read_file', { file_path: 'b.txt' });
  const patch =
    '*** Begin Patch\n*** Update File: a.txt\n@@\n-one\n+two\n*** Update File: b.txt\n@@\n-bee\n+wasp\n*** End Patch';
  const r = await rt.call('apply_patch', { patch });
  assert.equal(r.isError, false, r.content);
  writeFileSync(at('a.txt'), 'two\nmine\n'); // someone's work after the agent's
  const undo = await rt.journal?.undo();
  assert.ok(undo?.ok);
  assert.deepEqual(undo.value.restored, [{ path: 'b.txt', change: 'modified' }]);
  assert.equal(undo.value.conflicts.length, 1);
  assert.equal(undo.value.conflicts[0]?.path, 'a.txt');
  assert.match(undo.value.conflicts[0]?.diff ?? '', /\+mine/);
  assert.equal(readFileSync(at('a.txt'), 'utf8'), 'two\nmine\n', 'not a byte of it lost');
  assert.equal(readFileSync(at('b.txt'), 'utf8'), 'bee\n');
  // The undo recorded b.txt's restore; a.txt is still the first entry's, and force takes it back.
  const forced = await rt.journal?.rewind(1, { force: true });
  assert.equal(forced?.ok, false, 'entry 1 was undone by the partial undo');
  writeFileSync(at('a.txt'), 'two\n');
  const redo = await rt.journal?.redo();
  assert.ok(redo?.ok && redo.value.conflicts.length === 0);
  assert.equal(readFileSync(at('b.txt'), 'utf8'), 'wasp\n');
  writeFileSync(at('a.txt'), 'changed again\n');
  const again = await rt.journal?.undo({ force: true });
  assert.ok(again?.ok && again.value.conflicts.length === 0);
  assert.equal(readFileSync(at('a.txt'), 'utf8'), 'one\n');
});

test('journal: a new runtime on the same root sees the journal and can undo; the directory is 0700 and its files 0600', async () => {
  const { root, base, rt, at, dir } = setup();
  await rt.call('write_file', { file_path: 'new/deep/f.txt', content: 'x\r\ny\r\n' });
  await rt.call('write_file', { file_path: 'new/big.txt', content: 'z'.repeat(INLINE_MAX + 1) }); // a blob file
  await rt.close();
  const again = runtimeAt(root, { workers: 0, allowWrite: true, journal: { dir: base } });
  assert.deepEqual(
    again.journal?.list().map((e) => [e.id, e.tool, e.files]),
    [
      [1, 'write_file', [{ path: 'new/deep/f.txt', change: 'created' }]],
      [2, 'write_file', [{ path: 'new/big.txt', change: 'created' }]],
    ],
  );
  assert.ok(!dir.startsWith(root), 'never inside the tree');
  assert.equal(statSync(dir).mode & 0o777, 0o700);
  assert.equal(statSync(path.join(dir, 'index.jsonl')).mode & 0o777, 0o600);
  const objects = path.join(dir, 'objects');
  for (const sub of readdirSync(objects)) {
    assert.equal(statSync(path.join(objects, sub)).mode & 0o777, 0o700);
    for (const f of readdirSync(path.join(objects, sub)))
      assert.equal(statSync(path.join(objects, sub, f)).mode & 0o777, 0o600);
  }
  assert.equal(readdirSync(objects).length, 1, 'the small image is inline in the index, the big one a blob');
  assert.ok((await again.journal?.undo())?.ok);
  const undo = await again.journal?.undo();
  assert.ok(undo?.ok);
  assert.deepEqual(undo.value.dirsRemoved, ['new/deep', 'new']);
  assert.equal(existsSync(at('new')), false);
});

test('journal: a torn last line of the index is skipped, and the next entry starts on a line of its own', async () => {
  const { rt, dir } = setup();
  await rt.call('write_file', { file_path: 'a.txt', content: 'a\n' });
  appendFileSync(path.join(dir, 'index.jsonl'), '{"v":1,"id":2,"t":1,"kind":"ca'); // killed mid-append
  assert.deepEqual(
    rt.journal?.list().map((e) => e.id),
    [1],
  );
  const r = await rt.call('write_file', { file_path: 'b.txt', content: 'b\n' });
  assert.equal(r.meta?.journal, 2);
  assert.deepEqual(
    rt.journal?.list().map((e) => e.id),
    [1, 2],
  );
  const undo = await rt.journal?.undo();
  assert.ok(undo?.ok && undo.value.restored[0]?.path === 'b.txt');
});

test('journal: over its size cap the oldest entries and the blobs only they held are collected; the newest always stays', async () => {
  const size = INLINE_MAX + 1000; // blob files, not inline images
  const { rt, dir } = setup({ maxBytes: 3 * size });
  for (const n of [1, 2, 3, 4, 5])
    await rt.call('write_file', { file_path: `f${n}.txt`, content: `${n}`.repeat(size) });
  const ids = rt.journal?.list().map((e) => e.id) ?? [];
  assert.ok(ids.length <= 3 && ids.at(-1) === 5, `kept ${ids}`);
  const blobs = readdirSync(path.join(dir, 'objects')).flatMap((s) => readdirSync(path.join(dir, 'objects', s)));
  assert.equal(blobs.length, ids.length);
  const entry = (id: number, t: number, h: string, n: number): Entry => ({
    v: 1,
    id,
    t,
    kind: 'call',
    files: [{ p: 'f', b: null, a: { h, m: 0o644, n } }],
    dirs: [],
  });
  const day = 86_400_000;
  const old = [entry(1, 0, 'a', 10), entry(2, 40 * day, 'b', 10), entry(3, 41 * day, 'c', 10)];
  assert.deepEqual(
    keep(old, { maxBytes: 1e9, maxAgeMs: 30 * day }, 42 * day).kept.map((e) => e.id),
    [2, 3],
  );
  assert.deepEqual(
    keep(old, { maxBytes: 5, maxAgeMs: 30 * day }, 42 * day).kept.map((e) => e.id),
    [3],
  );
  // An inline image counts in every entry that holds it (each line stores it); a blob once.
  const inline = (id: number): Entry => ({
    ...entry(id, 0, 'same', 3),
    files: [{ p: 'f', b: null, a: { h: 'same', m: 0o644, n: 3, d: 'YWJj' } }],
  });
  assert.deepEqual(
    keep([inline(1), inline(2), inline(3)], { maxBytes: 8, maxAgeMs: 1e15 }, 0).kept.map((e) => e.id),
    [2, 3],
  );
  assert.deepEqual(
    keep([entry(1, 0, 'same', 4), entry(2, 0, 'same', 4), entry(3, 0, 'same', 4)], { maxBytes: 8, maxAgeMs: 1e15 }, 0)
      .kept.length,
    3,
  );
});

test('journal: mewcode history, undo and redo; exit 1 on a conflict, 2 when there is nothing to undo', async () => {
  const root = tempDir();
  const env = { XDG_DATA_HOME: tempDir() };
  const cli = (...args: string[]) => runCli([...args, '--root', root], { env });
  assert.equal((await cli('undo')).code, 2);
  assert.equal((await cli('call', 'write_file', '{"file_path":"a.txt","content":"1\\n"}', '--allow-write')).code, 0);
  const h = await cli('history');
  assert.match(h.out, /^ID\s+TIME\s+CHANGE\s+FILES\n1\s.*write_file\s+A a\.txt\n$/);
  assert.equal(JSON.parse((await cli('history', '--json')).out)[0].tool, 'write_file');
  const undo = await cli('undo');
  assert.equal(undo.code, 0, undo.err);
  assert.equal(existsSync(path.join(root, 'a.txt')), false);
  writeFileSync(path.join(root, 'a.txt'), 'mine\n');
  const redo = await cli('redo');
  assert.equal(redo.code, 1);
  assert.match(redo.err, /left as it is: a\.txt/);
  assert.equal(readFileSync(path.join(root, 'a.txt'), 'utf8'), 'mine\n');
  assert.equal((await cli('undo', '--to', 'x')).code, 2);
});
