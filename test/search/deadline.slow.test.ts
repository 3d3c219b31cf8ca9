/**
 * Every grep pattern that could backtrack runs under a deadline, in a worker, with or without a pool:
 * the main thread keeps serving other calls and timers while it runs, and a cancel or the deadline
 * stops it. Only provably linear patterns (no quantifier, no alternation) run on the main thread.
 * Events are asserted, never durations; the suite's timeouts are only a safety net.
 */
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import { Registry } from '../../lib/core/registry.ts';
import { okValue } from '../../lib/core/result.ts';
import { boundedGlob, INLINE_MAX_PATTERN, linearPattern } from '../../lib/search/linear_pattern.ts';
import { grep } from '../../lib/tools/grep.ts';
import { runtimeAt } from '../helpers/runtime.ts';
import { tempDir, writeTree } from '../helpers/temp.ts';

/** The reported pattern: no nested group, yet polynomial backtracking on a line of a's and an x. */
const REPORTED = `${'a*'.repeat(24)}[!?]x`;
const LINE = `${'a'.repeat(40)}x\n`;
const SAFETY = { timeout: 180_000 };

test('deadline: only patterns without repetition or alternation in their parsed tree count as linear', () => {
  const rows: [string, boolean, boolean?][] = [
    ['TODO', true],
    ['foo\\(bar\\)', true],
    ['[ab]c.d', true],
    ['[*+?{|]', true],
    ['\\*\\+\\?\\{\\|', true],
    ['(?:ab)(?<n>c)(?P<m>d)(?=d)(?<!e)(?i)x', true],
    ['(a)\\1', false], // not ripgrep syntax: rejected before it runs
    ['\\x{41}\\u00e9\\b\\w[[:upper:]&&[A-M]]', true], // braces and brackets of escapes and classes are not quantifiers
    [REPORTED, false],
    ['(a|aa)+', false],
    ['a*', false],
    ['a+', false],
    ['a?', false],
    ['a{2}', false],
    ['a|b', false],
    ['[]*]+', false], // `]` right after `[` is a literal in ripgrep's syntax: the class is `[]*]`
    ['[]*]', true],
    ['\\p{L}', true],
    ['a{,3}', false], // not ripgrep syntax
    ['a*', true, true], // fixed strings are literals
    ['x'.repeat(INLINE_MAX_PATTERN), true],
    ['x'.repeat(INLINE_MAX_PATTERN + 1), false],
  ];
  for (const [pattern, linear, fixed = false] of rows)
    assert.equal(linearPattern(pattern, fixed), linear, `${pattern} (fixed: ${fixed})`);
});

test('deadline: globs with at most one * a segment, one ** and two wildcards in all count as bounded', () => {
  const rows: [string, boolean][] = [
    ['*.ts', true],
    ['**/*.ts', true],
    ['src/**/*.{js,ts}', true],
    ['*/*.md', true],
    ['.github/**', true],
    ['[*][*]x*', true], // classes hold literal stars
    ['\\*\\*x*', true],
    ['*/*/*.ts', false],
    ['**/test/**/*.ts', false],
    ['*a*b', false],
    [`${'*a'.repeat(20)}*b`, false],
    ['+(a|aa)b', false],
    ['@(x)', false],
    ['{*a,b}', false],
  ];
  for (const [pattern, bounded] of rows) assert.equal(boundedGlob(pattern), bounded, pattern);
});

for (const workers of [2, 0])
  test(
    `deadline: a glob that backtracks (glob's pattern, grep's file filter) runs in a worker; the main thread serves meanwhile; a cancel stops it (workers: ${workers})`,
    SAFETY,
    async () => {
      const root = tempDir();
      writeTree(root, { [`${'a'.repeat(60)}`]: 'x\n' });
      const rt = runtimeAt(root, { workers });
      after(() => rt.close());
      const events: string[] = [];
      const stop = new AbortController();
      const running = rt.call('glob', { pattern: `${'*a'.repeat(20)}*b` }, { signal: stop.signal }).then((r) => {
        events.push('glob answered');
        return r;
      });
      // grep's file filter is a glob too: with it, even a literal pattern leaves this thread.
      const stopGrep = new AbortController();
      const filtered = rt
        .call('grep', { pattern: 'x', glob: `${'*a'.repeat(20)}*b` }, { signal: stopGrep.signal })
        .then((r) => {
          events.push('grep answered');
          return r;
        });
      assert.equal((await rt.call('glob', { pattern: '*' })).content, 'a'.repeat(60));
      events.push('a bounded glob answered');
      stop.abort();
      stopGrep.abort();
      const [r, g] = await Promise.all([running, filtered]);
      assert.equal(events[0], 'a bounded glob answered');
      assert.deepEqual(events.slice(1).sort(), ['glob answered', 'grep answered']);
      assert.equal(r.code, 'cancelled', r.content);
      assert.equal(g.code, 'cancelled', g.content);
    },
  );

for (const workers of [2, 0])
  test(`deadline: the reported pattern never runs on the main thread (workers: ${workers})`, SAFETY, async () => {
    const root = tempDir();
    writeTree(root, { 'a.txt': LINE, 'b.txt': 'aaa!x\n' });
    const rt = runtimeAt(root, { workers, readTimeoutMs: 5_000 });
    after(() => rt.close());
    const r = await rt.call('grep', { pattern: REPORTED });
    // A worker answers (V8's linear fallback may finish it) or its deadline does; either way not inline.
    if (r.code !== 'timeout') assert.equal(r.content, 'b.txt:1:aaa!x');
    if (r.code === undefined) assert.equal(r.meta?.inline, false);
    const single = await rt.call('grep', { pattern: REPORTED, path: 'a.txt' });
    assert.ok(single.code === 'timeout' || single.content.startsWith('No matches'), single.content);
  });

for (const workers of [2, 0])
  test(
    `deadline: while a runaway pattern runs, the main thread serves other calls and timers; a cancel stops it (workers: ${workers})`,
    SAFETY,
    async () => {
      const root = tempDir();
      mkdirSync(path.join(root, 'd'));
      const rt = runtimeAt(root, { workers });
      after(() => rt.close());
      // The tree is remembered as holding no files; once it has one, that must not make it "small".
      assert.match((await rt.call('grep', { pattern: 'x', path: 'd' })).content, /^No matches/);
      writeTree(root, { 'd/a.txt': LINE });
      const events: string[] = [];
      const stop = new AbortController();
      // Case-insensitive: V8's linear fallback does not take /i, so this backtracks until stopped.
      const running = rt
        .call('grep', { pattern: REPORTED, path: 'd', case_insensitive: true }, { signal: stop.signal })
        .then((r) => {
          events.push('grep answered');
          return r;
        });
      const read = await rt.call('read_file', { file_path: 'd/a.txt' });
      assert.equal(read.isError, false);
      events.push('read_file answered');
      await new Promise((r) => setTimeout(r, 1));
      events.push('a timer fired');
      stop.abort();
      const r = await running;
      assert.deepEqual(events, ['read_file answered', 'a timer fired', 'grep answered']);
      assert.equal(r.code, 'cancelled', r.content);
    },
  );

test(
  'deadline: a runaway pattern stops at the deadline with its worker, and the runtime goes on (workers: 0)',
  SAFETY,
  async () => {
    const root = tempDir();
    writeTree(root, { 'a.txt': LINE });
    const rt = runtimeAt(root, { workers: 0, readTimeoutMs: 1_000 });
    after(() => rt.close());
    const r = await rt.call('grep', { pattern: REPORTED, case_insensitive: true });
    assert.equal(r.code, 'timeout', r.content);
    assert.match(r.content, /^grep stopped at its deadline: the pattern may backtrack catastrophically/);
    assert.equal(
      (await rt.call('grep', { pattern: 'ax' })).content,
      'a.txt:1:aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaax',
    );
  },
);

test('deadline: with no worker to stop it, a pattern that could run away is refused, not run', async () => {
  const root = tempDir();
  writeTree(root, { 'a.txt': LINE });
  const registry = new Registry([grep]);
  const decision = { allow: true, by: 'default' as const, reason: 'test' };
  const env = { root, authorize: async () => okValue({ paths: [root as never], decision }) };
  const r = await registry.execute('grep', { pattern: REPORTED }, env);
  assert.equal(r.code, 'invalid_args');
  assert.match(r.content, /could backtrack without end and there is no worker to stop it at a deadline/);
  const literal = await registry.execute('grep', { pattern: 'ax' }, env);
  assert.equal(literal.content, 'a.txt:1:aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaax');
});
