/**
 * The spill directory is the user's own and each root's own: a name planted in the shared temp dir
 * (a symlink, someone else's directory, a world-writable one) is refused, so read_file reads nothing
 * and the sweep deletes nothing through it, and the spill is skipped with a note instead of failing;
 * read_file reads its own root's spill files and not another root's.
 */
import assert from 'node:assert/strict';
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  readdirSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import type { Runtime } from '../../lib/runtime/runtime.ts';
import { runtimeAt } from '../helpers/runtime.ts';
import { tempDir } from '../helpers/temp.ts';

const savedTmp = process.env.TMPDIR;
const restoreTmp = () => {
  if (savedTmp === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = savedTmp;
};
after(restoreTmp);
const rts: Runtime[] = [];
after(() => Promise.all(rts.map((r) => r.close())));
const uid = process.getuid?.() ?? 0;
/** The names a spill directory has had: the per-user one, and the shared one an attacker would plant. */
const NAMES = [`mewcode-spill-${uid}`, 'mewcode-spill'];
/** More output than bash keeps in memory (32 KiB), so it spills. */
const BIG = 'yes spilled | head -c 100000';
const TWO_DAYS_AGO = new Date(Date.now() - 2 * 24 * 3600 * 1000);

/** A fresh OS temp dir for this test (TMPDIR), and a runtime on a fresh root that sees it. */
function freshTmp(): string {
  restoreTmp(); // the previous test's temp dir is gone
  const tmp = tempDir('mewcode-spilltest-');
  process.env.TMPDIR = tmp;
  return tmp;
}
function runtime(root = tempDir()): Runtime {
  const rt = runtimeAt(root, { workers: 0, permissions: { allow: { run: true } } });
  rts.push(rt);
  return rt;
}
/** A directory outside every root with a key and an old spill-like file. */
function victim(): string {
  const dir = tempDir('mewcode-victim-');
  writeFileSync(path.join(dir, 'id_rsa'), 'PRIVATE KEY\n');
  writeFileSync(path.join(dir, 'notes.txt'), 'keep me\n');
  utimesSync(path.join(dir, 'notes.txt'), TWO_DAYS_AGO, TWO_DAYS_AGO);
  return dir;
}

test('spill: a symlink planted at the spill directory is refused; nothing read or swept through it', async () => {
  const tmp = freshTmp();
  const target = victim();
  for (const name of NAMES) symlinkSync(target, path.join(tmp, name));
  const rt = runtime();
  assert.equal((await rt.call('read_file', { file_path: path.join(target, 'id_rsa') })).code, 'outside_root');
  for (const name of NAMES)
    assert.equal((await rt.call('read_file', { file_path: path.join(tmp, name, 'id_rsa') })).code, 'outside_root');
  const r = await rt.call('bash', { command: BIG });
  assert.equal(r.isError, false, r.content);
  assert.match(
    r.content,
    /the middle could not be saved \(the spill directory \S+ is a symbolic link; remove it \(rm -r \S+\) and MewCode will create its own\)/,
  );
  assert.equal(r.meta?.spillPath, undefined);
  assert.deepEqual(readdirSync(target).sort(), ['id_rsa', 'notes.txt'], 'the old .txt is not swept, nothing written');
});

test('spill: a spill directory owned by someone else is refused', async () => {
  // Giving a directory to another uid needs root, which CI and these machines run as: asserted, not skipped.
  assert.equal(uid, 0, 'this test must run as root to chown a directory to another uid');
  const tmp = freshTmp();
  for (const name of NAMES) {
    const dir = path.join(tmp, name);
    mkdirSync(dir, { mode: 0o700 });
    writeFileSync(path.join(dir, 'planted.txt'), 'from the other user\n');
    chownSync(path.join(dir, 'planted.txt'), 12345, 12345);
    chownSync(dir, 12345, 12345);
  }
  const rt = runtime();
  const r = await rt.call('bash', { command: BIG });
  assert.equal(r.isError, false, r.content);
  assert.match(r.content, /could not be saved \(the spill directory \S+ belongs to uid 12345, not to you \(uid 0\)/);
  for (const name of NAMES) {
    assert.deepEqual(readdirSync(path.join(tmp, name)), ['planted.txt'], 'nothing of ours goes in there');
    const read = await rt.call('read_file', { file_path: path.join(tmp, name, 'planted.txt') });
    assert.equal(read.code, 'outside_root');
  }
});

test('spill: a spill directory writable by group or others is refused', async () => {
  const tmp = freshTmp();
  for (const name of NAMES) {
    mkdirSync(path.join(tmp, name));
    chmodSync(path.join(tmp, name), 0o777);
  }
  const r = await runtime().call('bash', { command: BIG });
  assert.equal(r.isError, false, r.content);
  assert.match(
    r.content,
    /could not be saved \(the spill directory \S+ is writable by others \(mode 777\); chmod 700 it/,
  );
  for (const name of NAMES) assert.deepEqual(readdirSync(path.join(tmp, name)), []);
});

test('spill: read_file reads its own root’s spill files, never another root’s', async () => {
  freshTmp();
  const a = runtime();
  const b = runtime();
  const spilledB = await b.call('bash', { command: BIG });
  const fileB = String(spilledB.meta?.spillPath);
  assert.ok(existsSync(fileB), spilledB.content);
  assert.equal((await b.call('read_file', { file_path: fileB, limit: 1 })).content.split('\n')[0], '     1\tspilled');
  const fromA = await a.call('read_file', { file_path: fileB });
  assert.equal(fromA.code, 'outside_root', fromA.content);
  assert.equal((await a.call('grep', { pattern: 'spilled', path: fileB })).code, 'outside_root');
  const fileA = String((await a.call('bash', { command: BIG })).meta?.spillPath);
  assert.equal((await a.call('read_file', { file_path: fileA, limit: 1 })).isError, false);
  assert.notEqual(path.dirname(fileA), path.dirname(fileB));
});

test('spill: the directories are created private (0700, ours), and old spill files are swept without following links', async () => {
  const tmp = freshTmp();
  const base = path.join(tmp, NAMES[0] as string);
  mkdirSync(path.join(base, 'otherroot'), { recursive: true, mode: 0o700 });
  chmodSync(base, 0o700);
  const old = path.join(base, 'otherroot', 'old.txt');
  const recent = path.join(base, 'otherroot', 'recent.txt');
  writeFileSync(old, 'old\n');
  writeFileSync(recent, 'recent\n');
  utimesSync(old, TWO_DAYS_AGO, TWO_DAYS_AGO);
  const target = victim();
  symlinkSync(target, path.join(base, 'linked'));
  const r = await runtime().call('bash', { command: BIG });
  const file = String(r.meta?.spillPath);
  assert.ok(file.startsWith(`${base}/`), r.content);
  for (const dir of [base, path.dirname(file)]) {
    const st = statSync(dir);
    assert.deepEqual([st.mode & 0o777, st.uid], [0o700, uid], dir);
  }
  assert.equal(statSync(file).mode & 0o777, 0o600);
  assert.deepEqual([existsSync(old), existsSync(recent)], [false, true]);
  assert.deepEqual(
    readdirSync(target).sort(),
    ['id_rsa', 'notes.txt'],
    'a link in the spill directory is not followed',
  );
});

test('spill: only a spill sweeps; starting a runtime and searching leave old spill files alone', async () => {
  const tmp = freshTmp();
  const base = path.join(tmp, NAMES[0] as string);
  mkdirSync(path.join(base, 'otherroot'), { recursive: true, mode: 0o700 });
  chmodSync(base, 0o700);
  const old = path.join(base, 'otherroot', 'old.txt');
  writeFileSync(old, 'old\n');
  utimesSync(old, TWO_DAYS_AGO, TWO_DAYS_AGO);
  const root = tempDir();
  writeFileSync(path.join(root, 'a.txt'), 'needle\n');
  const rt = runtime(root);
  assert.equal((await rt.call('grep', { pattern: 'needle' })).isError, false);
  assert.equal(existsSync(old), true, 'a start and a search sweep nothing');
  const r = await rt.call('bash', { command: BIG });
  assert.ok(String(r.meta?.spillPath).startsWith(`${base}/`), r.content);
  assert.equal(existsSync(old), false, 'the first spill sweeps');
});

test('spill: an error quoting a 5 MB input is clipped before the budget, so nothing is spilled', async () => {
  const tmp = freshTmp();
  const rt = runtime();
  const huge = 'x'.repeat(5 * 1024 * 1024);
  for (const [name, input] of [
    ['load_skill', { name: huge }],
    ['read_file', { file_path: huge }],
  ] as const) {
    const r = await rt.call(name, input);
    assert.equal(r.isError, true);
    assert.equal(r.meta?.spillPath, undefined, name);
    assert.match(r.content, /x{200}… \[5242880 characters\]/);
  }
  const files = readdirSync(tmp, { recursive: true, withFileTypes: true }).filter((e) => e.isFile());
  assert.deepEqual(files, [], 'no spill file');
});
