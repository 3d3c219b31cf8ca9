/**
 * The approval prompt on a real pseudo-terminal, through the CLI: what the user approves is the whole
 * of what will run (a tail pushed out of sight by spaces, invisible and direction-changing
 * characters), a write shows its diff, a request over 10 KiB is denied unread, and "always" holds for
 * the rest of the run.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { tempDir, writeTree } from '../helpers/temp.ts';
import { onTerminal, rowsWiderThan } from '../helpers/terminal.ts';

const call = (root: string, tool: string, input: unknown) => ['--root', root, 'call', tool, JSON.stringify(input)];

/** The rows of a question's gutter block (`│` opens a line, `┆` continues it), joined back into lines. */
function gutterLines(question: string): string[] {
  const lines: string[] = [];
  for (const row of question.split('\n')) {
    if (row.startsWith('  │ ')) lines.push(row.slice(4));
    else if (row.startsWith('  ┆ ')) lines[lines.length - 1] += row.slice(4);
  }
  return lines;
}

test('prompt on a terminal: a tail after 230 spaces is on the screen, so "y" approves what the user saw', async () => {
  const root = tempDir();
  const home = tempDir();
  const command = `echo hello${' '.repeat(230)}; touch PWNED_HIDDEN`;
  const no = await onTerminal(call(root, 'bash', { command }), { env: { HOME: home }, answers: ['n'], cols: 60 });
  const q = no.questions[0] ?? '';
  assert.ok(q.includes('; touch PWNED_HIDDEN'), `the tail of the command is not on the screen:\n${q}`);
  assert.deepEqual(gutterLines(q), ['echo hello␠×230; touch PWNED_HIDDEN']);
  assert.deepEqual(rowsWiderThan(q, 60), [], 'every row fits the terminal');
  assert.equal(existsSync(path.join(root, 'PWNED_HIDDEN')), false);
  assert.equal(no.code, 1);
  // A long line is wrapped, not cut: the rows hold every character, the last one included.
  const long = `echo ${'x'.repeat(300)}; touch PWNED_WRAPPED\necho second line`;
  const wrapped = await onTerminal(call(root, 'bash', { command: long }), {
    env: { HOME: home },
    answers: ['y'],
    cols: 60,
  });
  const w = wrapped.questions[0] ?? '';
  assert.deepEqual(gutterLines(w), long.split('\n'));
  assert.ok(w.replace(/\s+/g, ' ').includes(`run this command (2 lines, ${long.length} characters):`), w);
  assert.deepEqual(rowsWiderThan(w, 60), []);
  assert.equal(wrapped.code, 0, wrapped.screen);
  assert.equal(existsSync(path.join(root, 'PWNED_WRAPPED')), true, 'approved, it ran');
});

test('prompt on a terminal: bidi, zero-width, tag and other invisible characters are escaped, never drawn', async () => {
  const root = tempDir();
  const home = tempDir();
  const invisible: [string, string][] = [
    ['\u202e', '\\u202e'], // right-to-left override
    ['\u2066', '\\u2066'], // left-to-right isolate
    ['\u061c', '\\u061c'], // Arabic letter mark
    ['\u200b', '\\u200b'], // zero-width space
    ['\u200d', '\\u200d'], // zero-width joiner
    ['\ufeff', '\\ufeff'], // zero-width no-break space
    ['\u{e0072}', '\\u{e0072}'], // tag r
    ['\u2028', '\\u2028'], // line separator
    ['\u3164', '\\u3164'], // Hangul filler
    ['\u001b', '\\u001b'], // ESC
    ['\u009b', '\\u009b'], // CSI
    ['\r', '\\r'],
    // Beyond escapeControl's list, escaped by the prompt itself:
    ['\u00a0', '\\u00a0'], // no-break space
    ['\u00ad', '\\u00ad'], // soft hyphen
    ['\ufe0f', '\\ufe0f'], // variation selector
    ['\u2800', '\\u2800'], // braille blank
    ['\u034f', '\\u034f'], // combining grapheme joiner
  ];
  const command = `echo safe${invisible.map(([c], i) => `${c}${i}`).join('')}; touch PWNED_BIDI`;
  const r = await onTerminal(call(root, 'bash', { command }), { env: { HOME: home }, answers: ['n'], cols: 60 });
  const q = r.questions[0] ?? '';
  for (const [c, shown] of invisible) {
    assert.ok(!q.includes(c), `U+${c.codePointAt(0)?.toString(16)} reached the terminal`);
    assert.ok(q.includes(shown), `${shown} is not on the screen:\n${q}`);
  }
  assert.deepEqual(gutterLines(q), [`echo safe${invisible.map(([, s], i) => `${s}${i}`).join('')}; touch PWNED_BIDI`]);
  assert.equal(existsSync(path.join(root, 'PWNED_BIDI')), false);
});

test('prompt on a terminal: a request over 10 KiB is denied without being shown', async () => {
  const root = tempDir();
  const home = tempDir();
  const command = `echo ${'a'.repeat(11_000)}; touch PWNED_LONG`;
  const r = await onTerminal(call(root, 'bash', { command }), { env: { HOME: home }, answers: [], cols: 60 });
  assert.deepEqual(r.questions, [], 'nothing was asked');
  // The tool's name counts too: 4 + 11,023.
  assert.ok(r.screen.includes('mewcode: denied a permission request of 11027 characters without showing it'));
  // Only the model's answer, shortened, holds part of it.
  assert.ok(!r.screen.includes('PWNED_LONG') && !r.screen.includes('a'.repeat(300)), 'the request was shown');
  assert.ok(r.screen.includes('more than the 10240 the prompt shows. Split it into shorter commands'), r.screen);
  assert.equal(existsSync(path.join(root, 'PWNED_LONG')), false);
  assert.equal(r.code, 1);
});

test('prompt on a terminal: edit_file and write_file show the diff they would apply', async () => {
  const root = tempDir();
  const home = tempDir();
  writeTree(root, { 'a.txt': 'line one\nline two\nline three\n', 'c.txt': 'unread\n' });
  const batch = path.join(tempDir(), 'batch.json');
  writeFileSync(
    batch,
    JSON.stringify([
      { name: 'read_file', input: { file_path: 'a.txt' } },
      { name: 'edit_file', input: { file_path: 'a.txt', old_string: 'line two', new_string: 'line 2' } },
      { name: 'write_file', input: { file_path: 'new/b.txt', content: 'first\nsecond\n' } },
      { name: 'write_file', input: { file_path: 'c.txt', content: 'replaced\n' } },
    ]),
  );
  const r = await onTerminal(['--root', root, 'batch', batch], {
    env: { HOME: home },
    answers: ['y', 'y', 'n'],
    cols: 60,
  });
  assert.equal(r.questions.length, 3, r.screen);
  const [edit = '', write = '', unread = ''] = r.questions.map((q, i) => q.slice(r.questions[i - 1]?.length ?? 0));
  assert.deepEqual(gutterLines(edit), [
    'a.txt',
    '--- a/a.txt',
    '+++ b/a.txt',
    '@@ -1,3 +1,3 @@',
    ' line one',
    '-line two',
    '+line 2',
    ' line three',
  ]);
  assert.ok(edit.includes('MewCode: edit_file wants to write:\n  │ a.txt\nThe change it would make:\n'), edit);
  assert.deepEqual(gutterLines(write).slice(4), ['+first', '+second']);
  assert.deepEqual(gutterLines(unread), ['c.txt']);
  assert.match(unread, /\(no diff to show: the call would fail \(not_read\): "c\.txt"\s+has not been read/);
  assert.equal(readFileSync(path.join(root, 'a.txt'), 'utf8'), 'line one\nline 2\nline three\n');
  assert.equal(readFileSync(path.join(root, 'new/b.txt'), 'utf8'), 'first\nsecond\n');
  assert.equal(readFileSync(path.join(root, 'c.txt'), 'utf8'), 'unread\n');
});

test('prompt on a terminal: a long diff shows its head and names the file that holds all of it', async () => {
  const root = tempDir();
  const home = tempDir();
  const content = Array.from({ length: 200 }, (_, i) => `row ${i + 1}\n`).join('');
  // Wide enough that the file's name fits on one row.
  const r = await onTerminal(call(root, 'write_file', { file_path: 'big.txt', content }), {
    env: { HOME: home },
    answers: ['n'],
    cols: 150,
  });
  const q = r.questions[0] ?? '';
  const [name, ...shown] = gutterLines(q);
  assert.equal(name, 'big.txt');
  assert.equal(shown.length, 60, 'the head fills the rows the prompt allows');
  assert.equal(shown.at(-1), '+row 57'); // after ---, +++ and @@
  const m = /… 143 more lines of the diff not shown \(over 60 rows\); the whole diff is in:\n {4}(\S+)\n/.exec(q);
  assert.ok(m?.[1], q);
  const whole = m[1];
  try {
    const diff = readFileSync(whole, 'utf8');
    assert.ok(diff.startsWith('--- a/big.txt\n+++ b/big.txt\n@@ '), diff.slice(0, 80));
    assert.ok(diff.endsWith('+row 199\n+row 200\n'));
  } finally {
    rmSync(path.dirname(whole), { recursive: true, force: true }); // this temp root's own spill directory
  }
  assert.equal(existsSync(path.join(root, 'big.txt')), false);
});

test('prompt on a terminal: "always" holds for the rest of the run, so the same command is asked once', async () => {
  const root = tempDir();
  const home = tempDir();
  const batch = path.join(tempDir(), 'batch.json');
  const echo = { name: 'bash', input: { command: 'echo hi' } };
  writeFileSync(batch, JSON.stringify([echo, { name: 'bash', input: { command: 'echo other' } }, echo]));
  const r = await onTerminal(['--root', root, 'batch', batch], { env: { HOME: home }, answers: ['A', 'n'], cols: 60 });
  assert.equal(r.questions.length, 2, `asked ${r.questions.length} times:\n${r.screen}`);
  assert.ok(r.questions[1]?.slice(r.questions[0]?.length).includes('│ echo other'));
  const results = JSON.parse(r.screen.slice(r.screen.indexOf('[{'))) as { content: string }[];
  assert.deepEqual(
    results.map((x) => x.content.split('.')[0]),
    ['exit_code: 0\nhi\n', 'The user declined: bash may not run "echo other"', 'exit_code: 0\nhi\n'],
  );
  const local = JSON.parse(readFileSync(path.join(root, '.mewcode/settings.local.json'), 'utf8'));
  assert.deepEqual(local, { permissions: { allow: ['bash(=echo hi)'] } });
});
