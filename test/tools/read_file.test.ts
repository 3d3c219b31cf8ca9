import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { MAX_LINE_CHARS, MAX_LINES, MAX_OUTPUT_BYTES } from '../../lib/tools/read_file.ts';
import { removeSpills, runtimeAt } from '../helpers/runtime.ts';
import { tempDir, writeTree } from '../helpers/temp.ts';

const root = tempDir();
const rt = runtimeAt(root);
const read = (input: unknown) => rt.call('read_file', input);
const lines = (n: number, f = (i: number) => `line ${i}`) => Array.from({ length: n }, (_, i) => f(i + 1));
const numbered = (from: number, texts: string[]) =>
  texts.map((t, i) => `${String(from + i).padStart(6)}\t${t}`).join('\n');
const validUtf8 = (s: string) =>
  new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(s, 'utf8')) === s &&
  !/[\ud800-\udfff]/u.test(s.replace(/[\ud800-\udbff][\udc00-\udfff]/g, ''));

writeTree(root, {
  'small.txt': 'alpha\nbeta\ngamma\n',
  'no_newline.txt': 'one\ntwo',
  'ten.txt': `${lines(10).join('\n')}\n`,
  'long.txt': `${lines(2500).join('\n')}\n`,
  'empty.txt': '',
  'crlf.txt': 'a\r\nb\r\nc\r\n',
  'mixed.txt': 'a\r\nb\nc\n',
  'bom8.txt': Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('héllo\nwörld\n')]),
  'u16le.txt': Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('ünï\r\ncode 😀\r\n', 'utf16le')]),
  'u16be.txt': Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from('big\nendian\n', 'utf16le').swap16()]),
  'latin1.txt': Buffer.from('caf\xe9 cr\xe8me\n', 'latin1'),
  'image.png': Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d, 0x49, 0x48, 0x44, 0x52]),
  'blob.bin': Buffer.from([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0]),
  'src/main.ts': 'export {};\n',
  'src/main.tsx': 'export {};\n',
  'src/mainly.ts': 'x\n',
  'src/other.go': 'package x\n',
  'dir/.keep': '',
});

test('read_file: a small file comes back as numbered lines with no footer', async () => {
  const r = await read({ file_path: 'small.txt' });
  assert.equal(r.isError, false);
  assert.equal(r.content, numbered(1, ['alpha', 'beta', 'gamma']));
});

test('read_file: a last line without a newline is shown', async () => {
  assert.equal((await read({ file_path: 'no_newline.txt' })).content, numbered(1, ['one', 'two']));
});

test('read_file: offset and limit select a window and the footer says where to continue', async () => {
  const r = await read({ file_path: 'ten.txt', offset: 3, limit: 2 });
  assert.equal(
    r.content,
    `${numbered(3, ['line 3', 'line 4'])}\n[truncated: showing lines 3-4 of 10; continue with offset=5]`,
  );
  const tail = await read({ file_path: 'ten.txt', offset: 9 });
  assert.equal(tail.content, numbered(9, ['line 9', 'line 10']));
});

test(`read_file: the default window is ${MAX_LINES} lines`, async () => {
  const r = await read({ file_path: 'long.txt' });
  const out = r.content.split('\n');
  assert.equal(out.length, MAX_LINES + 1);
  assert.equal(out[MAX_LINES - 1], `  2000\tline 2000`);
  assert.equal(out[MAX_LINES], '[truncated: showing lines 1-2000 of 2,500; continue with offset=2001]');
  assert.equal((await read({ file_path: 'long.txt', offset: 2001 })).content.split('\n').length, 500);
});

test('read_file: an offset past the end is invalid_args with the line count', async () => {
  const r = await read({ file_path: 'ten.txt', offset: 11 });
  assert.equal(r.code, 'invalid_args');
  assert.equal(r.content, 'offset 11 is past the end of "ten.txt", which has 10 lines; use an offset from 1 to 10.');
});

test('read_file: an empty file says so', async () => {
  const r = await read({ file_path: 'empty.txt' });
  assert.deepEqual([r.isError, r.content], [false, 'File "empty.txt" is empty (0 bytes).']);
});

test('read_file: CRLF lines are shown without CR and the ending is remembered', async () => {
  const r = await read({ file_path: 'crlf.txt' });
  assert.equal(r.content, numbered(1, ['a', 'b', 'c']));
  assert.equal(r.meta?.read?.eol, 'crlf');
  assert.equal((await read({ file_path: 'mixed.txt' })).meta?.read?.eol, 'mixed');
  assert.equal((await read({ file_path: 'small.txt' })).meta?.read?.eol, 'lf');
  assert.equal((await read({ file_path: 'no_newline.txt' })).meta?.read?.eol, 'lf');
});

test('read_file: a UTF-8 BOM is stripped for display and remembered', async () => {
  const r = await read({ file_path: 'bom8.txt' });
  assert.equal(r.content, numbered(1, ['héllo', 'wörld']));
  assert.deepEqual([r.meta?.read?.encoding, r.meta?.read?.bom], ['utf-8', true]);
});

test('read_file: UTF-16 with a BOM is decoded, in both byte orders', async () => {
  const le = await read({ file_path: 'u16le.txt' });
  assert.equal(le.content, numbered(1, ['ünï', 'code 😀']));
  assert.deepEqual([le.meta?.read?.encoding, le.meta?.read?.bom, le.meta?.read?.eol], ['utf-16le', true, 'crlf']);
  const be = await read({ file_path: 'u16be.txt', offset: 2 });
  assert.equal(be.content, numbered(2, ['endian']));
  assert.equal(be.meta?.read?.encoding, 'utf-16be');
});

test('read_file: 8-bit text without NUL bytes is text, not binary', async () => {
  const r = await read({ file_path: 'latin1.txt' });
  assert.equal(r.isError, false);
  assert.match(r.content, /^ {5}1\tcaf/);
});

test('read_file: a binary file is an error naming its size; a picture that does not decode says so', async () => {
  const r = await read({ file_path: 'blob.bin' });
  assert.equal(r.code, 'binary');
  assert.equal(
    r.content,
    'Cannot read "blob.bin": it is a binary file (16 bytes), not text. Inspect it with bash (e.g. xxd or file).',
  );
  const cut = await read({ file_path: 'image.png' });
  assert.equal(cut.code, 'binary');
  assert.match(cut.content, /^Cannot show "image\.png": it cannot be decoded as PNG \(.+\)\. Inspect it with bash/);
});

test('read_file: a directory is is_directory and points to glob', async () => {
  const r = await read({ file_path: 'dir' });
  assert.equal(r.code, 'is_directory');
  assert.equal(r.content, 'Cannot read "dir": it is a directory. List its files with glob (pattern "*", path "dir").');
  assert.equal((await read({ file_path: '.' })).code, 'is_directory');
});

test('read_file: a missing file is not_found and suggests up to three similar names', async () => {
  const r = await read({ file_path: 'src/mian.ts' });
  assert.equal(r.code, 'not_found');
  assert.equal(r.content, 'Cannot read "src/mian.ts": no such file. Similar names: "src/main.ts", "src/main.tsx".');
  const three = await read({ file_path: 'src/main.js' });
  assert.equal(
    three.content,
    'Cannot read "src/main.js": no such file. Similar names: "src/main.ts", "src/main.tsx", "src/mainly.ts".',
  );
  const deep = await read({ file_path: 'srx/main.ts' });
  assert.equal(deep.content, 'Cannot read "srx/main.ts": no such file. Similar names: "src/".');
  const none = await read({ file_path: 'zzzzqqq.md' });
  assert.equal(none.content, 'Cannot read "zzzzqqq.md": no such file. Find files with glob.');
});

test('read_file: a name that is not valid UTF-8 nearby does not break the suggestions', async () => {
  const dir = path.join(root, 'badnames');
  mkdirSync(dir);
  writeFileSync(Buffer.from(path.join(dir, 'bad\xff\xfe.txt'), 'latin1'), 'x');
  writeFileSync(path.join(dir, 'bad.txt'), 'x');
  const r = await read({ file_path: 'badnames/bda.txt' });
  assert.equal(r.code, 'not_found');
  assert.match(r.content, /"badnames\/bad\.txt"/);
});

test('read_file: lines over the cap are cut on a character boundary with a marker', async () => {
  const long = `${'a'.repeat(MAX_LINE_CHARS - 1)}😀${'b'.repeat(5000)}`;
  writeFileSync(path.join(root, 'wide.txt'), `${long}\nshort\n`);
  const r = await read({ file_path: 'wide.txt' });
  const [first, second] = r.content.split('\n');
  assert.equal(
    first,
    `     1\t${'a'.repeat(MAX_LINE_CHARS - 1)} … [truncated: line 1 has 7001 characters; the rest of it can be searched with grep]`,
  );
  assert.equal(second, '     2\tshort');
  assert.ok(validUtf8(r.content));
  assert.equal(r.meta?.lines && (r.meta.lines as { cut: number }).cut, 1);
});

test('read_file: the output budget stops the window on a whole line, valid UTF-8, and says where to continue', async () => {
  const wide = lines(2000, (i) => `${i}:${'中'.repeat(1200)}😀`);
  writeFileSync(path.join(root, 'heavy.txt'), `${wide.join('\n')}\n`);
  const r = await read({ file_path: 'heavy.txt' });
  assert.ok(Buffer.byteLength(r.content) <= MAX_OUTPUT_BYTES + 200);
  assert.ok(validUtf8(r.content));
  const out = r.content.split('\n');
  const marker = out.pop() ?? '';
  const last = out.length;
  assert.equal(
    marker,
    `[truncated: showing lines 1-${last} of 2,000 (output limit of 256 KiB reached); continue with offset=${last + 1}]`,
  );
  assert.equal(out[last - 1], `${String(last).padStart(6)}\t${wide[last - 1]}`);
  const next = await read({ file_path: 'heavy.txt', offset: last + 1, limit: 1 });
  assert.equal(next.content.split('\n')[0], `${String(last + 1).padStart(6)}\t${wide[last]}`);
});

test('read_file: the read is recorded in the ledger with size, times, inode and sha256', async () => {
  const file = path.join(root, 'ten.txt');
  await read({ file_path: 'ten.txt', offset: 2, limit: 3 });
  const rec = rt.ledger.get(file);
  assert.ok(rec);
  const st = statSync(file, { bigint: true });
  assert.deepEqual(
    { ...rec, readAt: 0 },
    {
      path: file,
      size: Number(st.size),
      mtimeMs: Number(st.mtimeMs),
      mtimeNs: String(st.mtimeNs),
      ctimeNs: String(st.ctimeNs),
      ino: Number(st.ino),
      sha256: createHash('sha256').update(readFileSync(file)).digest('hex'),
      encoding: 'utf-8',
      bom: false,
      eol: 'lf',
      partial: true,
      readAt: 0,
    },
  );
  await read({ file_path: 'ten.txt' });
  assert.equal(rt.ledger.get(file)?.partial, false);
});

test('read_file: paths outside the root or through outside symlinks are refused before anything is opened', async () => {
  const r = await read({ file_path: '../../etc/passwd' });
  assert.equal(r.code, 'outside_root');
  assert.equal(rt.ledger.size > 0, true);
  assert.equal(rt.ledger.get('/etc/passwd'), undefined);
});

test('read_file: an oversized result spilled by the budget can be read back with read_file', async (t) => {
  const { applyBudget } = await import('../../lib/core/budget.ts');
  const text = `${lines(50_000, (i) => `row ${i} ✓`).join('\n')}\n`;
  const cut = applyBudget({ content: text, isError: false }, { maxBytes: 10_000, root: rt.root });
  t.after(() => removeSpills(cut)); // it is in this root's spill directory under the OS temp dir
  const spill = cut.meta?.truncated?.spillPath;
  assert.ok(spill);
  assert.ok(Buffer.byteLength(cut.content) <= 10_000);
  assert.match(
    cut.content,
    /\[truncated: showing [\d,]+ of [\d,]+ bytes; the whole output is in ".*"; read the rest with read_file/,
  );
  assert.equal(readFileSync(spill, 'utf8'), text);
  const back = await read({ file_path: spill, offset: 49_999 });
  assert.equal(back.content, numbered(49_999, ['row 49999 ✓', 'row 50000 ✓']));
  rmSync(spill);
});
