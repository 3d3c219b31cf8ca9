/**
 * Adversarial edits: each one made the matcher apply an edit somewhere other than the model meant, or
 * with a result other than it meant, through the real edit_file and apply_patch tools on real files.
 * Each must now be refused (the file untouched, the answer naming the place) — a refusal costs a
 * turn, a wrong application silently damages code.
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
  /** The edit is refused and the file keeps its bytes. */
  const refused = async (file: string, old_string: string, new_string: string) => {
    const before = read(file);
    const r = await edit(file, old_string, new_string);
    assert.equal(r.code, 'no_match', `${file}: expected a refusal, got: ${r.content}`);
    assert.equal(read(file), before);
    return r;
  };
  const patch = (...body: string[]) =>
    rt.call('apply_patch', { patch: ['*** Begin Patch', ...body, '*** End Patch'].join('\n') });
  return { rt, read, edit, refused, patch };
}

test('a new line that would shift left of column 0 is refused, not pinned to column 0', async () => {
  const { refused } = setup({ 'a.py': 'x = 1\nif a:\n    y = 2\n' });
  // old_string is 4 spaces deeper than the file; `z = 0` was written one level left of `x = 1`.
  await refused('a.py', '    x = 1\n    if a:', '    x = 1\nz = 0\n    if a:');
});

test('a TSV whose rows start with digits and a tab: an ambiguous literal match is not retried without the "line numbers"', async () => {
  const { refused } = setup({ 'd.tsv': 'id\tv\n1\tx\n2\ty\nz\n1\tx\n2\ty\nq\nx\ny\n' });
  // The literal rows fit twice (up to trailing whitespace): ambiguous. Stripping "1\t" must not pick lines x, y.
  await refused('d.tsv', '1\tx \n2\ty', '1\tX\n2\tY');
});

test('Python: with the first line copied from mid-indentation, a new line at column 0 leaves the function; refuse', async () => {
  const { refused } = setup({ 'f.py': 'def f():\n    if a:\n        b()\n    c()\n' });
  // Exact from inside `    if a:`; the model wrote `if a:` at column 0 and `d()` beside it, meaning the if's level.
  await refused('f.py', 'if a:\n        b()', 'if a:\n        b()\nd()');
  // The same with a trailing-whitespace difference (the whole-line matcher's first-line exemption).
  await refused('f.py', 'if a:  \n        b()', 'if a:\n        b()\nd()');
});

test('characters the file has and old_string lacks (\\" escapes, NBSP, curly quotes) are not lost from a rewritten line', async () => {
  const { refused, edit, read } = setup({
    'e.ts': 'const m = "say \\"hi\\"";\nnext();\n',
    'n.ts': 'const sep = "a\u00a0b";\nnext();\n',
    'c.md': 'He said \u201chi\u201d.\nNext line.\n',
    'k.ts': 'const sep = "a\u00a0b";\nnext();  \n',
  });
  await refused('e.ts', 'const m = "say "hi"";\nnext();', 'const m = "say "bye"";\nnext();');
  await refused('n.ts', 'const sep = "a b";\nnext();', 'const sep = "a b"; // x\nnext();');
  await refused('c.md', 'He said "hi".\nNext line.', 'He said "hello".\nNext line.');
  // A line kept as it was keeps the file's own bytes, so that still applies.
  const r = await edit('k.ts', 'const sep = "a b";\nnext();', 'const sep = "a b";\nnext(1);');
  assert.equal(r.code, undefined, r.content);
  assert.equal(read('k.ts'), 'const sep = "a\u00a0b";\nnext(1);  \n');
});

test('a one-line old_string with \\n inside a string literal the file changed is not split into lines elsewhere', async () => {
  const { refused } = setup({ 'g.ts': 'log("a\\nc");\nlog("a\nb");\n' });
  await refused('g.ts', 'log("a\\nb");', 'log("a\\nz");');
});

test('apply_patch on an unread file whose context matches exactly at two places is refused', async () => {
  const { patch, read } = setup({ 'u.txt': 'a\nb\nc\na\nb\nc\n' });
  const r = await patch('*** Update File: u.txt', '@@', ' a', '-b', '+B');
  assert.equal(r.code, 'not_read', r.content);
  assert.match(r.content, /lines 1.2 and 4.5|more than one place/);
  assert.equal(read('u.txt'), 'a\nb\nc\na\nb\nc\n');
});

test('a block that differs in its one significant line, at old_string’s own indentation, counts as a near place', async () => {
  const { refused } = setup({ 'n.ts': 'if (a) {\n  foo(2);\n}\n    if (b) {\n      foo(1);\n    }\n' });
  // Lines 5–6 fit up to indentation, but lines 2–3 are old_string to the byte except foo(2): the file
  // may have changed there since the read. Only `}` is shared, and it must anchor the search too.
  const r = await refused('n.ts', '  foo(1);\n}  ', '  foo(1);\n  bar();\n}');
  assert.match(r.content, /lines 2–3 differ from it in one line only/);
});

test('apply_patch: an @@ line that fits two places only loosely is refused, not taken at the first', async () => {
  const { rt, patch, read } = setup({
    'c.py': 'class A:\n    def run(self):\n        x = 1\nclass B:\n    def run(self):\n        x = 1\n',
  });
  await rt.call('read_file', { file_path: 'c.py' });
  const r = await patch('*** Update File: c.py', '@@ def run(self):', '-        x = 1', '+        x = 2');
  assert.equal(r.code, 'no_match', r.content);
  assert.match(r.content, /fits lines 2 and 5/);
  assert.equal(
    read('c.py'),
    'class A:\n    def run(self):\n        x = 1\nclass B:\n    def run(self):\n        x = 1\n',
  );
});

test('replace_all over matches inside the indentation does not double the indentation at every place', async () => {
  const { rt, read } = setup({ 'r.ts': '\tfoo(1);\n\tbar();\n\tfoo(1);\n' });
  await rt.call('read_file', { file_path: 'r.ts' });
  // old_string dropped the tab, new_string has it: a literal splice would give `\t\tfoo(2);` twice.
  const r = await rt.call('edit_file', {
    file_path: 'r.ts',
    old_string: 'foo(1);',
    new_string: '\tfoo(2);',
    replace_all: true,
  });
  assert.equal(r.code, 'no_match', r.content);
  assert.equal(read('r.ts'), '\tfoo(1);\n\tbar();\n\tfoo(1);\n');
  // The same indentation on both sides splices as before.
  const ok = await rt.call('edit_file', {
    file_path: 'r.ts',
    old_string: 'foo(1);',
    new_string: 'foo(2);',
    replace_all: true,
  });
  assert.equal(ok.code, undefined, ok.content);
  assert.equal(read('r.ts'), '\tfoo(2);\n\tbar();\n\tfoo(2);\n');
});

test('a block at old_string’s own indentation with a line added or dropped since the read counts as a near place', async () => {
  const inserted =
    'function a() {\n  setup();\n  log();\n  run();\n}\nnamespace N {\n    function a() {\n      setup();\n      run();\n    }\n}\n';
  const dropped =
    'function a() {\n  setup();\n  run();\n}\nnamespace N {\n    function a() {\n      setup();\n      log();\n      run();\n    }\n}\n';
  const { refused } = setup({ 'i.ts': inserted, 'd.ts': dropped });
  // Lines 7–10 fit up to indentation, but lines 1–5 are old_string at its own indentation with log()
  // added since the read: the model may well have meant those.
  await refused(
    'i.ts',
    'function a() {\n  setup();\n  run();\n}',
    'function a() {\n  setup();\n  run();\n  done();\n}',
  );
  await refused(
    'd.ts',
    'function a() {\n  setup();\n  log();\n  run();\n}',
    'function a() {\n  setup();\n  log();\n  run();\n  done();\n}',
  );
});

test('a TSV row edit whose rows all changed is not taken as line numbers to strip and applied to bare lines', async () => {
  const { refused, edit, read } = setup({ 't.tsv': '1\tx\tA\n2\ty\tB\n3\tz\tC\nx\tq\ny\tq\n' });
  // Rows 1 and 2 are no longer `1\tx\tq` / `2\ty\tq`; stripping "1\t" and "2\t" fits lines 4–5.
  await refused('t.tsv', '1\tx\tq\n2\ty\tq', '1\tx\tQ\n2\ty\tQ');
  // Real read_file prefixes that name the line the block fits still apply.
  const r = await edit('t.tsv', '     4\tx\tq\n     5\ty\tq', 'x\tQ\ny\tQ');
  assert.equal(r.code, undefined, r.content);
  assert.equal(read('t.tsv'), '1\tx\tA\n2\ty\tB\n3\tz\tC\nx\tQ\ny\tQ\n');
});

test('Python: a first line without its indentation and the other lines shifted too is refused, not framed by guess', async () => {
  const { refused } = setup({ 'g.py': 'def f():\n    if a:\n        b()\n    e()\n' });
  // Read as "first line copied mid-line, the rest 6 columns short", c() would land at column 6: inside
  // the if at an indentation Python rejects, where the model meant the if's level.
  await refused('g.py', 'if a:\n  b()', 'if a:\n  b()\nc()');
});

test('apply_patch: a loosely matched chunk whose + line has no sure place, or whose - line would lose an NBSP, is refused', async () => {
  const files = {
    'a.py': 'x = 1\nif a:\n    y = 2\n',
    's.py': 's = "a\u00a0b"\nnext()  \n',
    'f.py': 'def f():\n    if a:\n        b()\n    c()\n',
  };
  const { rt, patch, read } = setup(files);
  for (const f of Object.keys(files)) await rt.call('read_file', { file_path: f });
  const cases = [
    ['*** Update File: a.py', '@@', '     x = 1', '+z = 0', '     if a:'],
    ['*** Update File: s.py', '@@', '-s = "a b"', '+s = "a c"', ' next()'],
    ['*** Update File: f.py', '@@', ' if a:  ', '         b()', '+d()'],
  ];
  for (const body of cases) {
    const r = await patch(...body);
    assert.equal(r.code, 'no_match', `${body[0]}: ${r.content}`);
    assert.match(r.content, /cannot be placed there for sure/);
  }
  for (const [f, text] of Object.entries(files)) assert.equal(read(f), text);
});

test('deleting whole lines matched loosely removes them with their line breaks, as an exact deletion would', async () => {
  const { edit, read } = setup({
    'd.ts': 'x();\n  a();  \n  b();\ny();\n',
    'c.ts': 'x();\r\n  a();\r\n  b();\r\ny();\r\n',
  });
  // Before: a blank line was left where a() and b() were.
  let r = await edit('d.ts', 'a();\nb();\n', '');
  assert.equal(r.code, undefined, r.content);
  assert.equal(read('d.ts'), 'x();\ny();\n');
  r = await edit('c.ts', 'a();\nb();\n', '');
  assert.equal(r.code, undefined, r.content);
  assert.equal(read('c.ts'), 'x();\r\ny();\r\n');
});

test('an exact match from mid-line whose partial line new_string moves (lines inserted around it) is refused', async () => {
  const { refused, edit, read } = setup({
    'p.ts': 'export function foo() {\n  a();\n}\n',
    's.ts': 'a();\nconst v = f(x); // note\n',
  });
  // Spliced, `export function ` would end up in front of bar, and `// note` behind extra().
  await refused('p.ts', 'foo() {\n  a();', 'bar() {}\nfoo() {\n  a();');
  await refused('s.ts', 'a();\nconst v = f(x);', 'a();\nconst v = f(x);\nextra();');
  // Changing the partial line in place still splices exactly.
  const r = await edit('p.ts', 'foo() {\n  a();', 'foo(b) {\n  a(b);\n  c();');
  assert.equal(r.code, undefined, r.content);
  assert.equal(read('p.ts'), 'export function foo(b) {\n  a(b);\n  c();\n}\n');
});

test('an exact match that overlaps a second occurrence of itself is not_unique, not applied at the first', async () => {
  const { edit, read } = setup({ 'o.ts': 'if (a) {\n  if (b) {\n    go();\n}\n}\n}\n' });
  // `}\n}` occurs at lines 4 and 5; a scan that skips past the first match saw only one.
  const r = await edit('o.ts', '}\n}', '}\n  done();\n}');
  assert.equal(r.code, 'not_unique', r.content);
  assert.match(r.content, /lines 4, 5/);
  assert.equal(read('o.ts'), 'if (a) {\n  if (b) {\n    go();\n}\n}\n}\n');
});
