/**
 * Issue 37: old_string and new_string that disagree about whitespace, through the real edit_file tool
 * on real files. new_string's unchanged lines decide its frame: written as is when they follow the
 * file, shifted like old_string when they follow old_string, refused (showing both) when they follow
 * neither. A written line never gains trailing whitespace the line it replaces lacks unless its text
 * changed, and a deletion among lines old_string gives alike while the file does not is refused, not
 * guessed. One file per class: spaces, tabs, CRLF, non-ASCII, trailing whitespace, blank lines.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { runtimeAt } from '../helpers/runtime.ts';
import { tempDir, writeTree } from '../helpers/temp.ts';

function setup(files: Record<string, string>) {
  const root = tempDir();
  writeTree(root, files);
  const rt = runtimeAt(root, { workers: 0, allowWrite: true });
  const read = (p: string) => readFileSync(path.join(root, p), 'utf8');
  const edit = async (file: string, old_string: string, new_string: string) => {
    await rt.call('read_file', { file_path: file });
    return rt.call('edit_file', { file_path: file, old_string, new_string });
  };
  return { read, edit };
}

const PY = 'def f():\n    if x:\n        go()\n    return 1\n';
const PY_STOP = 'def f():\n    if x:\n        go()\n        stop()\n    return 1\n';

test('spaces: old_string 2 spaces more, new_string at the file’s indentation, is written as is', async () => {
  const { read, edit } = setup({ 'a.py': PY, 'b.py': PY, 'c.py': PY });
  const r = await edit('a.py', '      if x:\n          go()', '    if x:\n        go()\n        stop()');
  assert.equal(r.code, undefined, r.content);
  assert.equal(read('a.py'), PY_STOP);
  assert.match(r.content, /indentation \(2 spaces more\); applied at lines 2–4; new_string was already at the file's/);
  // The same mistake carried into new_string: shifted back like old_string.
  const both = await edit('b.py', '      if x:\n          go()', '      if x:\n          go()\n          stop()');
  assert.equal(read('b.py'), PY_STOP);
  assert.match(both.content, /new_string was written like old_string, so its new lines were shifted likewise/);
  // Neither: its unchanged lines 4 spaces in from both. Refused, naming the place and showing both.
  const neither = await edit(
    'c.py',
    '      if x:\n          go()',
    '        if x:\n            go()\n            stop()',
  );
  assert.equal(neither.code, 'no_match');
  assert.match(neither.content, /lines 2–3/);
  assert.match(neither.content, /follow neither the file's indentation nor old_string's/);
  assert.match(neither.content, /the file has " {4}", old_string " {6}", new_string " {8}"/);
  assert.equal(read('c.py'), PY);
});

test('spaces: unchanged lines that disagree (one follows the file, one old_string) are refused', async () => {
  const { read, edit } = setup({ 'a.py': PY });
  const r = await edit(
    'a.py',
    '      if x:\n          go()\n      return 1',
    '    if x:\n          go()\n          stop()\n    return 1',
  );
  assert.equal(r.code, 'no_match');
  assert.match(r.content, /disagree about indentation/);
  assert.equal(read('a.py'), PY);
});

test('spaces: an exact match inside the indentation with new_string at the file’s column is not shifted again', async () => {
  const { read, edit } = setup({ 'a.py': PY });
  // old_string "    go()" occurs inside "        go()"; new_string changes it at the file's 8 spaces.
  const r = await edit('a.py', '    go()', '        went()');
  assert.equal(r.code, undefined, r.content);
  assert.equal(read('a.py'), 'def f():\n    if x:\n        went()\n    return 1\n');
});

test('tabs: old_string one tab less, new_string at the file’s tabs; and both one tab less', async () => {
  const go = 'func f() {\n\tif x {\n\t\ty()\n\t}\n}\n';
  const want = 'func f() {\n\tif x {\n\t\ty()\n\t\tz()\n\t}\n}\n';
  const { read, edit } = setup({ 'a.go': go, 'b.go': go });
  let r = await edit('a.go', 'if x {\n\ty()\n}', '\tif x {\n\t\ty()\n\t\tz()\n\t}');
  assert.equal(r.code, undefined, r.content);
  assert.equal(read('a.go'), want);
  r = await edit('b.go', 'if x {\n\ty()\n}', 'if x {\n\ty()\n\tz()\n}');
  assert.equal(r.code, undefined, r.content);
  assert.equal(read('b.go'), want);
  assert.match(r.content, /indentation \(1 tab less\)/);
});

test('CRLF: a shifted old_string with new_string at the file’s indentation keeps every CRLF', async () => {
  const crlf = 'class A {\r\n  m() {\r\n    a();\r\n  }\r\n}\r\n';
  const { read, edit } = setup({ 'a.ts': crlf });
  const r = await edit('a.ts', 'm() {\n  a();\n}', '  m() {\n    a();\n    b();\n  }');
  assert.equal(r.code, undefined, r.content);
  assert.equal(read('a.ts'), 'class A {\r\n  m() {\r\n    a();\r\n    b();\r\n  }\r\n}\r\n');
});

test('non-ASCII: shifted old_string, new_string at the file’s indentation, text kept byte for byte', async () => {
  const src = '- liste:\n    - élément « un »\n    - 日本語 🎉\n';
  const { read, edit } = setup({ 'a.md': src });
  const r = await edit(
    'a.md',
    '  - élément « un »\n  - 日本語 🎉',
    '    - élément « un »\n    - 中文 ✓\n    - 日本語 🎉',
  );
  assert.equal(r.code, undefined, r.content);
  assert.equal(read('a.md'), '- liste:\n    - élément « un »\n    - 中文 ✓\n    - 日本語 🎉\n');
});

test('trailing whitespace: a changed line never gains the spaces old_string added; a Markdown break stays', async () => {
  const { read, edit } = setup({
    'a.ts': 'a();\nb();\nc();\n',
    'b.ts': 'a();\nb();\nc();\n',
    'c.md': 'line  \nnext\n',
  });
  // Both padded the same way: the changed line keeps the file's (no) trailing whitespace.
  let r = await edit('a.ts', 'a();  \nb();  \nc();', 'a();  \nB();  \nc();');
  assert.equal(r.code, undefined, r.content);
  assert.equal(read('a.ts'), 'a();\nB();\nc();\n');
  assert.match(r.content, /matched ignoring trailing whitespace; applied at lines 1–3/);
  // Only old_string padded: new_string is taken as written.
  r = await edit('b.ts', 'a();\t\nb();\t\nc();\t', 'a();\nb();\nb2();\nc();');
  assert.equal(read('b.ts'), 'a();\nb();\nb2();\nc();\n');
  // old_string dropped a Markdown line break: the unchanged line keeps it, the changed one too.
  r = await edit('c.md', 'line\nnext', 'line\nNEXT');
  assert.equal(read('c.md'), 'line  \nNEXT\n');
});

test('blank lines: a deletion among lines old_string gives alike but the file does not is refused, not guessed', async () => {
  const src = 'A\n\n  \nB\n';
  const { read, edit } = setup({ 'a.txt': src, 'b.txt': 'A  \n\n  \nB\n' });
  // old_string dropped the whitespace of line 3; new_string drops one of the two blank lines — which?
  const r = await edit('a.txt', 'A\n\n\nB', 'A\n\nB');
  assert.equal(r.code, 'no_match');
  assert.match(r.content, /lines 1–4/);
  assert.match(r.content, /lines 2 and 3 read alike but the file's differ/);
  assert.equal(read('a.txt'), src);
  // Where new_string follows the file's trailing whitespace (line 1), its blank line says which it kept.
  const ok = await edit('b.txt', 'A\n\n\nB', 'A  \n  \nB');
  assert.equal(ok.code, undefined, ok.content);
  assert.equal(read('b.txt'), 'A  \n  \nB\n');
});

test('blank lines: a line deleted in a block matched after line numbers, quotes or escapes leaves the right blanks', async () => {
  const src = 'log("a");\n\nlog("b");\n\nlog("c");\n';
  const want = 'log("a");\n\nlog("c");\n';
  const { read, edit } = setup({ 'n.ts': src, 'q.ts': src, 'e.ts': src });
  let r = await edit(
    'n.ts',
    '     1\tlog("a");\n     2\t\n     3\tlog("b");\n     4\t\n     5\tlog("c");',
    'log("a");\n\nlog("c");',
  );
  assert.equal(r.code, undefined, r.content);
  assert.equal(read('n.ts'), want);
  r = await edit('q.ts', 'log(“a”);\n\nlog(“b”);\n\nlog(“c”);', 'log(“a”);\n\nlog(“c”);');
  assert.equal(r.code, undefined, r.content);
  assert.equal(read('q.ts'), want);
  r = await edit('e.ts', 'log(\\"a\\");\n\nlog(\\"b\\");\n\nlog(\\"c\\");', 'log(\\"a\\");\n\nlog(\\"c\\");');
  assert.equal(r.code, undefined, r.content);
  assert.equal(read('e.ts'), want);
});
