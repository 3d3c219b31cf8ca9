import assert from 'node:assert/strict';
import { closeSync, openSync, writeFileSync, writeSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { generateFixture } from '../../bench/fixture.ts';
import { runtimeAt } from '../helpers/runtime.ts';
import { tempDir, writeTree } from '../helpers/temp.ts';

const root = tempDir();
writeTree(root, {
  'hundred.txt': Array.from({ length: 100 }, (_, i) => `hit ${i + 1}`).join('\n'),
  'more/extra.txt': 'hit extra\n',
  'crlf.txt': 'alpha end\r\nbeta\r\n',
  'bin.dat': Buffer.concat([Buffer.from('needle\0\0'), Buffer.from('needle')]),
  'src/a.ts': 'const price = 5;\nconst total = price * 2; // needle\n',
  'src/b.ts': 'nothing here\n',
  'ctx.txt': 'one\ntwo\nneedle three\nfour\nfive\nsix\nneedle seven\neight\n',
  'evil.txt': `${'a'.repeat(32)}!\n`,
});
writeFileSync(path.join(root, 'wide.txt'), `${'x'.repeat(499)}😀${'y'.repeat(1000)} needle\n`);
const big = openSync(path.join(root, 'huge-line.txt'), 'w');
const block = 'z'.repeat(1024 * 1024);
for (let i = 0; i < 20; i++) writeSync(big, block); // one 20 MB line, longer than a search chunk
writeSync(big, ' needle at the end\nsecond line needle\n');
closeSync(big);

const at = (r: string, workers: number, readTimeoutMs?: number) =>
  runtimeAt(r, { workers, ...(readTimeoutMs ? { readTimeoutMs } : {}) });
const rt = at(root, 2);
const grep = (input: Record<string, unknown>) => rt.call('grep', input);

test('grep: exactly head_limit results carry no truncation note; one more does', async () => {
  const exact = await grep({ pattern: '^hit \\d+$', path: 'hundred.txt' });
  assert.equal(exact.content.split('\n').length, 100);
  assert.doesNotMatch(exact.content, /truncated/);
  const over = await grep({ pattern: '^hit', head_limit: 100 });
  const lines = over.content.split('\n');
  assert.equal(
    lines[100],
    '[truncated: showing the first 100 results; more exist; raise head_limit (0 for all) or narrow pattern, path or glob]',
  );
  assert.equal(
    (await grep({ pattern: '^hit', head_limit: 0 })).content.split('\n').length,
    101,
    'binary files that cannot match are not even noted',
  );
});

test('grep: content lines are path:line: text, sorted by path then line', async () => {
  const r = await grep({ pattern: 'needle', glob: '*.ts' });
  assert.equal(r.content, 'src/a.ts:2:const total = price * 2; // needle');
});

test('grep: context lines use path-line- and groups are separated by --', async () => {
  const r = await grep({ pattern: 'needle', path: 'ctx.txt', context: 1 });
  assert.equal(
    r.content,
    [
      'ctx.txt-2-two',
      'ctx.txt:3:needle three',
      'ctx.txt-4-four',
      '--',
      'ctx.txt-6-six',
      'ctx.txt:7:needle seven',
      'ctx.txt-8-eight',
    ].join('\n'),
  );
  const merged = await grep({ pattern: 'needle', path: 'ctx.txt', before: 3, after: 0 });
  assert.equal(
    merged.content,
    [
      'ctx.txt-1-one',
      'ctx.txt-2-two',
      'ctx.txt:3:needle three',
      'ctx.txt-4-four',
      'ctx.txt-5-five',
      'ctx.txt-6-six',
      'ctx.txt:7:needle seven',
    ].join('\n'),
  );
});

test('grep: files_with_matches and count modes', async () => {
  assert.equal((await grep({ pattern: 'needle', output_mode: 'files_with_matches', path: 'src' })).content, 'src/a.ts');
  assert.equal((await grep({ pattern: 'needle', output_mode: 'count', path: 'ctx.txt' })).content, 'ctx.txt:2');
});

test('grep: binary files are skipped and counted', async () => {
  const r = await grep({ pattern: 'needle', output_mode: 'files_with_matches' });
  assert.doesNotMatch(r.content, /bin\.dat/);
  assert.match(
    r.content,
    /\n\[note: skipped 1 binary file that may match; pass binary: "text" to search it as text\]$/,
  );
  const asText = await grep({ pattern: 'needle', output_mode: 'files_with_matches', binary: 'text', head_limit: 0 });
  assert.match(asText.content, /bin\.dat/);
  assert.doesNotMatch(asText.content, /binary file/);
});

test('grep: the other literals a regex requires rule out files and lines before they are decoded, never a match', async () => {
  const dir = tempDir();
  writeTree(dir, {
    'both.bin': Buffer.from('function fooError(x)\0'),
    'one.bin': Buffer.from('function foo(x)\0'),
    'split.ts': 'function foo() {}\nthrow new Error(1);\n',
    'hit.ts': 'function barError(y) {}\nfunction baz() {}\n',
  });
  const r = await runtimeAt(dir, { workers: 0 }).call('grep', { pattern: 'function\\s+\\w+Error\\(', head_limit: 0 });
  assert.equal(
    r.content,
    'hit.ts:1:function barError(y) {}\n[note: skipped 1 binary file that may match; pass binary: "text" to search it as text]',
    'only the binary file holding both literals may match',
  );
  // A NUL past the first read, after a match: the file still may match (rg prints the line before it).
  const late = tempDir();
  writeTree(late, {
    'late.bin': `function fooError(x)\n${`${'a'.repeat(100)}\n`.repeat(3000)}function bar\0\n`,
  });
  const skipped = await runtimeAt(late, { workers: 0 }).call('grep', { pattern: 'function\\s+\\w+Error\\(' });
  assert.match(skipped.content, /\[note: skipped 1 binary file that may match; /);
});

test('grep: a CRLF line matches at $ and prints without the CR', async () => {
  assert.equal((await grep({ pattern: 'end$', path: 'crlf.txt' })).content, 'crlf.txt:1:alpha end');
});

test('grep: matched lines over 500 characters are cut on a character boundary', async () => {
  const r = await grep({ pattern: 'needle$', path: 'wide.txt' });
  assert.equal(r.content, `wide.txt:1:${'x'.repeat(499)} … [truncated: line has 1,508 characters]`);
});

test('grep: a line longer than a search chunk is found once, and memory stays bounded by the chunk', async () => {
  const r = await grep({ pattern: 'needle', path: 'huge-line.txt' });
  const lines = r.content.split('\n');
  assert.equal(lines.length, 2);
  assert.match(lines[0] ?? '', /^huge-line\.txt:1:z{500} … \[truncated: the line is longer than the search buffer\]$/);
  assert.equal(lines[1], 'huge-line.txt:2:second line needle');
});

test('grep: an invalid regex is invalid_args with the parser message', async () => {
  const r = await grep({ pattern: '(unclosed' });
  assert.equal(r.code, 'invalid_args');
  assert.equal(
    r.content,
    'Invalid pattern "(unclosed": unclosed group: add the missing ")" (a literal "(" is written \\() (at offset 9). Escape special characters, or pass fixed_strings: true.',
  );
  assert.equal((await grep({ pattern: '[z-a]' })).code, 'invalid_args');
  assert.match((await grep({ pattern: 'x', glob: '[abc' })).content, /^Invalid glob "\[abc"/);
});

test('grep: fixed strings are literal', async () => {
  assert.equal(
    (await grep({ pattern: 'price * 2', fixed_strings: true })).content,
    'src/a.ts:2:const total = price * 2; // needle',
  );
});

test('grep: no match says so and is not an error', async () => {
  const r = await grep({ pattern: 'zzz_nothing', path: 'src' });
  assert.deepEqual([r.isError, r.content], [false, 'No matches for "zzz_nothing" in "src".']);
});

test('grep: a catastrophic pattern stops at its deadline as a timeout, and the pool keeps serving', async () => {
  // The pattern backtracks for hours on evil.txt: the deadline is the only thing that can end it,
  // however fast or loaded the machine. Each runtime's short deadline applies to that call alone.
  const catastrophic = { pattern: '^(a+)+$', case_insensitive: true, path: 'evil.txt' };
  const expected = /^grep stopped at its deadline: the pattern may backtrack catastrophically/;
  // The runtime's read deadline (readTimeoutMs), on a runtime that makes no other call.
  const short = await at(root, 1, 400).call('grep', catastrophic);
  assert.equal(short.code, 'timeout');
  assert.match(short.content, expected);
  // The same pool serving on: its own deadline stays the generous default, the catastrophic call
  // gets a short one of its own, so only that call can hit a deadline.
  const served = at(root, 1);
  assert.equal((await served.call('read_file', { file_path: 'src/b.ts' })).content, '     1\tnothing here');
  const r = await served.call('grep', catastrophic, { signal: AbortSignal.timeout(400) });
  assert.equal(r.code, 'timeout');
  assert.match(r.content, expected);
  const next = await served.call('grep', { pattern: 'needle', path: 'src' });
  assert.equal(next.content, 'src/a.ts:2:const total = price * 2; // needle');
  const again = await served.call('read_file', { file_path: 'src/b.ts' });
  assert.equal(again.content, '     1\tnothing here');
});

test('grep and glob: results are identical inline, through the pool, and for any worker count', async () => {
  const tree = tempDir();
  generateFixture(tree, { files: 1200, seed: 3, big: false });
  const runtimes = [at(tree, 0), at(tree, 1), at(tree, 2), at(tree, 3)];
  const calls: [string, Record<string, unknown>][] = [
    ['grep', { pattern: 'TODO', head_limit: 0 }],
    ['grep', { pattern: 'Handler', head_limit: 37 }],
    ['grep', { pattern: 'error', case_insensitive: true, output_mode: 'count', head_limit: 0 }],
    ['grep', { pattern: 'console', output_mode: 'files_with_matches', head_limit: 15 }],
    ['grep', { pattern: 'throw', context: 2, head_limit: 50 }],
    ['glob', { pattern: '**/*.ts', limit: 100_000 }],
    ['glob', { pattern: '**/*.{md,json}', limit: 25 }],
  ];
  for (const [name, input] of calls) {
    const results = await Promise.all(runtimes.map((r) => r.call(name, input)));
    const base = results[0];
    assert.ok(base && !base.isError && base.content.length > 0);
    for (const r of results.slice(1))
      assert.deepEqual(
        { ...r, meta: { ...r.meta, inline: 0 } },
        { ...base, meta: { ...base.meta, inline: 0 } },
        `${name} ${JSON.stringify(input)}`,
      );
  }
});
