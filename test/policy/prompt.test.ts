/**
 * The prompter and how it draws a request (prompt.ts, prompt_render.ts), over real streams: answers,
 * the 10 KiB limit, one question at a time, and the drawing — every row within the width, nothing
 * dropped, every invisible character escaped.
 */
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { test } from 'node:test';
import { okValue } from '../../lib/core/result.ts';
import { type PromptRequest, render, streamPrompter } from '../../lib/prompt/prompt.ts';
import { columns, DIFF_ROWS, SPACE_RUN, visible, wrap } from '../../lib/prompt/render.ts';

const run = (command: string, always = true): PromptRequest => ({
  tool: 'bash',
  asks: [{ kind: 'run', subject: command }],
  always,
});

/** A prompter on a pair of real streams, and what it wrote. */
function terminal() {
  const input = new PassThrough();
  const output = new PassThrough();
  let shown = '';
  output.on('data', (c: Buffer) => {
    shown += c.toString();
  });
  return { input, prompter: streamPrompter(input, output), shown: () => shown };
}

test('prompt: y or Y allows once, A always (only when offered), anything else or end of input denies', async () => {
  for (const [typed, always, answer] of [
    ['y\n', true, 'once'],
    ['Y\n', true, 'once'],
    ['A\n', true, 'always'],
    ['A\n', false, 'deny'],
    ['a\n', true, 'deny'],
    ['yes\n', true, 'deny'],
    ['', true, 'deny'],
  ] as const) {
    const t = terminal();
    const a = t.prompter.ask(run('ls', always));
    t.input.end(typed);
    assert.equal(await a, answer, JSON.stringify(typed));
    assert.ok(t.shown().endsWith(always ? '.mewcode/settings.local.json) › ' : 'asks for this every time) › '));
  }
});

test('prompt: a request over 10 KiB is denied unread, and its preview is never computed', async () => {
  const t = terminal();
  let previewed = 0;
  const answer = await t.prompter.ask({
    tool: 'write_file',
    asks: [{ kind: 'write', subject: 'x'.repeat(20_000) }],
    always: true,
    preview: async () => {
      previewed++;
      return { note: 'never' };
    },
  });
  assert.equal(answer, 'deny');
  assert.equal(previewed, 0);
  assert.equal(
    t.shown(),
    'mewcode: denied a permission request of 20010 characters without showing it (over 10240).\n',
  );
});

test('prompt: questions are asked one at a time; the second is drawn once the first is answered', async () => {
  const t = terminal();
  const first = t.prompter.ask(run('echo first'));
  const second = t.prompter.ask(run('echo second'));
  await new Promise((resolve) => setImmediate(resolve));
  assert.ok(t.shown().includes('echo first') && !t.shown().includes('echo second'));
  t.input.write('y\n');
  assert.equal(await first, 'once');
  await new Promise<void>((resolve) => {
    const poll = () => (t.shown().includes('echo second') ? resolve() : setImmediate(poll));
    poll();
  });
  t.input.write('n\n');
  assert.equal(await second, 'deny');
});

test('prompt drawing: every row fits the width and the rows give back every character', () => {
  const nasty = `echo hello${' '.repeat(230)}; touch PWNED\u202e \u4e2d\u6587${'\u4e2d'.repeat(50)} e\u0301\u0301\u0301x\ttab ${'y'.repeat(500)}`;
  for (const width of [20, 33, 60, 80, 137]) {
    const rows = render(run(nasty), undefined, width).split('\n');
    for (const r of rows) assert.ok(columns(r) <= width, `${width}: ${JSON.stringify(r)} is ${columns(r)} columns`);
    const body = rows.filter((r) => /^ {2}[│┆] /.test(r)).map((r) => r.slice(4));
    assert.equal(body.join(''), visible(nasty), `${width}: characters were dropped`);
  }
  assert.ok(visible(nasty).startsWith(`echo hello␠×230; touch PWNED\\u202e 中文`));
  // Two combining marks stay on their letter; a third is escaped, so a stack cannot draw over rows.
  assert.ok(visible(nasty).includes('e\u0301\u0301\\u0301x\\ttab'));
  // A run just under the limit stays spaces; prose wraps at spaces.
  assert.equal(visible(`a${' '.repeat(SPACE_RUN - 1)}b`), `a${' '.repeat(SPACE_RUN - 1)}b`);
  assert.deepEqual(wrap('one two three four', 10, '', '', true), ['one two ', 'three four']);
  assert.deepEqual(wrap('one two three four', 9, '', '', true), ['one two ', 'three ', 'four']);
  assert.deepEqual(wrap('abcdefghij', 4, '', '', true), ['abcd', 'efgh', 'ij']);
});

test('prompt drawing: a diff is shown in the gutter, cut after DIFF_ROWS rows with where the whole of it is', () => {
  const request: PromptRequest = { tool: 'write_file', asks: [{ kind: 'write', subject: 'a.txt' }], always: true };
  const small = render(
    request,
    { diff: '--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-a\n+b\u202e', save: () => okValue('unused') },
    80,
  );
  assert.equal(
    small,
    [
      'MewCode: write_file wants to write:',
      '  │ a.txt',
      'The change it would make:',
      '  │ --- a/a.txt',
      '  │ +++ b/a.txt',
      '  │ @@ -1 +1 @@',
      '  │ -a',
      '  │ +b\\u202e',
      'Allow? [y] once  [n] deny  [A] always (saved in .mewcode/settings.local.json) › ',
    ].join('\n'),
  );
  let saved = 0;
  const diff = Array.from({ length: 100 }, (_, i) => `+${i}`).join('\n');
  const big = render(request, { diff, save: () => okValue(`/tmp/whole-${++saved}.txt`) }, 80);
  assert.equal(big.split('\n').filter((r) => r.startsWith('  │ ')).length, 1 + DIFF_ROWS);
  assert.ok(big.includes(`  │ +${DIFF_ROWS - 1}\n  … ${100 - DIFF_ROWS} more lines of the diff not shown`));
  assert.ok(big.includes('the whole diff is in:\n    /tmp/whole-1.txt\n'));
  assert.equal(saved, 1);
  const note = render(request, { note: 'the call would fail (not_read): read it first' }, 80);
  assert.ok(note.includes('\n  (no diff to show: the call would fail (not_read): read it first)\n'));
});
