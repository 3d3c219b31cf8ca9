/**
 * The edit matcher's rules, one small hand-written case each, through the real edit_file tool on real
 * files: exact first but line-aligned (1), the tolerated differences and what the answer says (2), the
 * real differences it refuses (3), refusals that name the place (4), replace_all / not_unique / CRLF
 * unchanged (5), and a 5 MB file.
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
  const edit = async (file: string, old_string: string, new_string: string, more: Record<string, unknown> = {}) => {
    await rt.call('read_file', { file_path: file });
    return rt.call('edit_file', { file_path: file, old_string, new_string, ...more });
  };
  return { read, edit };
}

test('rule 1: an exact match inside the indentation does not put new_string after the file’s indentation', async () => {
  const { read, edit } = setup({
    'r.ts': 'const routes = [\n\t{\n\t\tpath: "/",\n\t\tloader: () => [\n\t\t\tload(),\n\t\t],\n\t},\n];\n',
    'b.md': 'first line  \nsecond line\n',
    'p.py': 'def f():\n    if x:\n        go()\n',
  });
  // The model dropped the first line's indentation in old_string but wrote it in new_string.
  const r = await edit('r.ts', 'loader: () => [\n\t\t\tload(),', '\t\tloader: async () => [\n\t\t\tawait load(),');
  assert.equal(r.code, undefined, r.content);
  assert.equal(
    read('r.ts'),
    'const routes = [\n\t{\n\t\tpath: "/",\n\t\tloader: async () => [\n\t\t\tawait load(),\n\t\t],\n\t},\n];\n',
  );
  // A Markdown line break stays on its line.
  await edit('b.md', 'first line', 'first line\ninserted line');
  assert.equal(read('b.md'), 'first line  \ninserted line\nsecond line\n');
  // A partial first and last line that new_string only changes still splices exactly.
  await edit('r.ts', 'path: "/",\n\t\tloader: async', 'path: "/home",\n\t\tloader: async');
  assert.match(read('r.ts'), /\n\t\tpath: "\/home",\n\t\tloader: async \(\) => \[\n/);
  // One line at 2 spaces less, with a line inserted after it: the new line gets the file's depth.
  await edit('p.py', '    go()', '    go()\n    done()');
  assert.equal(read('p.py'), 'def f():\n    if x:\n        go()\n        done()\n');
});

test('rule 2: each tolerated difference applies once, unchanged lines keep their bytes, and the answer says what', async () => {
  const { read, edit } = setup({
    'shift.ts': 'class A {\n  m() {\n    if (a) {\n      b();  \n    }\n  }\n}\n',
    'tabs.go': 'func f() {\n\tif x {\n\t\ty()\n\t}\n}\n',
    'q.ts': 'log("it\'s done - ok");\nnext();\n',
    'nb.txt': 'alpha beta\ngamma delta\n',
    'esc.ts': 'const s = "a";\nconst t = "b";\n',
    'nl.ts': 'one();\ntwo();\nthree();\n',
    'num.ts': 'a();\nb();\nc();\n',
  });
  let r = await edit('shift.ts', 'if (a) {\n  b();\n}', 'if (a) {\n  b();\n  c();\n}');
  assert.match(
    r.content,
    /matched ignoring indentation \(4 spaces less\), trailing whitespace; applied at lines 3–6; new_string was written like old_string, so its new lines were shifted likewise\./,
  );
  assert.equal(read('shift.ts'), 'class A {\n  m() {\n    if (a) {\n      b();  \n      c();\n    }\n  }\n}\n');
  r = await edit('tabs.go', '    if x {\n        y()\n    }', '    if x {\n        y()\n        z()\n    }');
  assert.match(r.content, /indentation \(spaces for tabs\)/);
  assert.equal(read('tabs.go'), 'func f() {\n\tif x {\n\t\ty()\n\t\tz()\n\t}\n}\n');
  r = await edit('q.ts', 'log(“it’s done – ok”);\nnext();', 'log(“it’s done – fine”);\nnext();');
  assert.match(r.content, /typographic quotes, typographic dashes/);
  assert.equal(read('q.ts'), 'log("it\'s done - fine");\nnext();\n');
  r = await edit('nb.txt', 'alpha\u00a0beta\ngam\u200bma delta', 'alpha\u00a0BETA\ngam\u200bma delta');
  assert.equal(read('nb.txt'), 'alpha BETA\ngamma delta\n');
  r = await edit('esc.ts', 'const s = \\"a\\";\nconst t = \\"b\\";', 'const s = \\"A\\";\nconst t = \\"b\\";');
  assert.match(r.content, /\\" escapes/);
  assert.equal(read('esc.ts'), 'const s = "A";\nconst t = "b";\n');
  r = await edit('nl.ts', 'one();\\ntwo();', 'one();\\ntwo();\\ntwoAndAHalf();');
  assert.match(r.content, /matched ignoring literal \\n sequences/);
  assert.equal(read('nl.ts'), 'one();\ntwo();\ntwoAndAHalf();\nthree();\n');
  r = await edit('num.ts', '     2\tb();\n     3\tc();', 'b();\nC();');
  assert.match(r.content, /matched ignoring read_file's line-number prefixes; applied at lines 2–3/);
  assert.equal(read('num.ts'), 'a();\nb();\nC();\n');
});

test('rule 2: character fixes touch only the characters old_string added, not the file’s own joiners', async () => {
  const { read, edit } = setup({ 'e.ts': 'const e = "👩\u200d👧";\nnext();\n' });
  const r = await edit('e.ts', 'const e = "👩\u200d👧";\nne\u200bxt();', 'const e = "👩\u200d👧!";\nne\u200bxt(1);');
  assert.match(r.content, /matched ignoring zero-width characters/);
  assert.equal(read('e.ts'), 'const e = "👩\u200d👧!";\nnext(1);\n');
});

test('rule 2: it applies only where exactly one block fits and none misses by a line', async () => {
  const twice = 'function a() {\n  x = 1;\n}\nfunction b() {\n    x = 1;\n}\n';
  const near = 'if (ok) {\n  run(1);\n}\nif (ok) {\n  run(2);\n}\n';
  const { read, edit } = setup({ 'twice.ts': twice, 'near.ts': near });
  const r = await edit('twice.ts', 'x = 1;  \n}', 'x = 2;\n}');
  assert.equal(r.code, 'no_match');
  assert.match(r.content, /it fits 2 places \(lines 2–3; lines 5–6\)/);
  assert.equal(read('twice.ts'), twice);
  const n = await edit('near.ts', 'if (ok) {  \n  run(1);', 'if (ok) {\n  run(9);');
  assert.match(n.content, /Lines 1–2 fit it up to trailing whitespace, but lines 4–5 differ from it in one line only/);
  assert.equal(read('near.ts'), near);
});

test('rule 3: blank lines dropped or added, elisions and a changed token are refused, naming the place', async () => {
  const text = 'import x from "x";\n\nexport function main() {\n  const a = 1;\n\n  return a;\n}\n';
  const { read, edit } = setup({ 'm.ts': text });
  const cases: [string, RegExp][] = [
    ['export function main() {\n  const a = 1;\n  return a;\n}', /closest place is lines 3–7/],
    ['import x from "x";\n\n\nexport function main() {', /closest place is lines 1–3/],
    [
      'export function main() {\n  // ... existing code ...\n}',
      /leaves lines out \("\.\.\."\)[\s\S]*closest place is lines 3–7/,
    ],
    [
      'export function main() {\n  const b = 1;\n',
      /closest place is lines 3–4[\s\S]*- old_string: " {2}const b = 1;"\n {2}\+ file 4: " {2}const a = 1;"/,
    ],
  ];
  for (const [old, why] of cases) {
    const r = await edit('m.ts', old, 'changed();');
    assert.equal(r.code, 'no_match', old);
    assert.match(r.content, why);
  }
  assert.equal(read('m.ts'), text);
});

test('rule 4: a refusal ranks places over all lines, and says so plainly about \\n and line numbers', async () => {
  const text = 'function f() {\n  a();\n}\n\nfunction g() {\n  b();\n}\n\nfunction h() {\n  c(1);\n}\n';
  const { edit } = setup({ 'f.ts': text });
  // Starts with `}`: the first line alone resembles three places; all of it points at one.
  let r = await edit('f.ts', '}\n\nfunction h() {\n  c(2);', 'x');
  assert.match(r.content, /closest place is lines 7–10/);
  r = await edit('f.ts', 'function h() {\\n  c(2);', 'x');
  assert.match(r.content, /is one line holding literal \\n sequences[\s\S]*closest place is lines 9–10/);
  r = await edit('f.ts', '     9\tfunction h() {\n    10\t  c(2);', 'x');
  assert.match(r.content, /starts its lines with read_file's line numbers[\s\S]*closest place is lines 9–10/);
});

test('rule 5: not_unique, replace_all and CRLF keep their meaning; an exact match says where else it fits', async () => {
  const { read, edit } = setup({
    'w.txt': 'one\r\n  two  \r\nthree\r\n',
    'dup.ts': 'if (a) {\n  go();\n}\n  if (a) {\n    go();\n  }\n',
  });
  await edit('w.txt', 'two\nthree', 'TWO\nthree\nfour');
  assert.equal(read('w.txt'), 'one\r\n  TWO  \r\nthree\r\nfour\r\n');
  const r = await edit('dup.ts', 'if (a) {\n  go();\n}', 'if (b) {\n  go();\n}');
  assert.match(
    r.content,
    /line 1\); the text also matches lines 4–6 up to whitespace; check that line 1 is the place you meant\./,
  );
  assert.equal((await edit('dup.ts', 'go();', 'stop();')).code, 'not_unique');
  await edit('dup.ts', 'go();', 'stop();', { replace_all: true });
  assert.equal(read('dup.ts'), 'if (b) {\n  stop();\n}\n  if (a) {\n    stop();\n  }\n');
});

test('a 5 MB file: the whole-line search stays near linear and applies the one fitting block', async () => {
  const body: string[] = [];
  for (let i = 0; i < 150_000; i++)
    body.push(
      i % 3 === 0 ? '}' : `  call(${i % 97}); // a filler line, long enough to make the file big, number ${i % 500}`,
    );
  body.push('}', '  function target() {', '      return 41;', '  }');
  const text = `${body.join('\n')}\n`;
  assert.ok(text.length > 5_000_000);
  const { read, edit } = setup({ 'big.ts': text });
  // Two spaces less, and trailing whitespace: the one block that fits is found by its rare lines.
  const r = await edit('big.ts', 'function target() {  \n    return 41;\n}', 'function target() {\n    return 42;\n}');
  assert.match(r.content, /applied at lines 150002–150004/);
  assert.ok(read('big.ts').endsWith('\n}\n  function target() {\n      return 42;\n  }\n'));
  const miss = await edit('big.ts', '}\n  function target() {\n      return 40;', 'x');
  assert.match(miss.content, /closest place is lines 150001–150003/);
});
