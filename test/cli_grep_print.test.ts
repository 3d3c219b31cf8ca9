/**
 * `mewcode grep` prints from the tool's data, not by re-reading its text: `--json` is ripgrep's JSON
 * Lines (compared with `rg --json` on the same real files), colour comes from where the pattern
 * matched, and a context line whose text looks like a match line keeps its shape.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runCli } from './helpers/cli.ts';
import { rg } from './helpers/rg.ts';
import { tempDir, writeTree } from './helpers/temp.ts';

function tree(): string {
  const root = tempDir('mewcode-json-');
  writeTree(root, {
    'a.ts': 'const x = 1;\nfoo(bar); foo(baz);\nnothing here\nfoo at the end foo\n',
    'b/c.md': 'héllo wörld foo\nline two\n\nfoo\n',
    'b/d.txt': 'no match at all\n',
    'e.txt': 'ctx-5-looks:12:like a match line\nfoo\n',
  });
  return root;
}

/** What both print, per event: its type, path, number, line text and submatches (byte offsets). */
function shape(jsonLines: string): unknown[] {
  return jsonLines
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { type: string; data: Record<string, unknown> })
    .map(({ type, data }) => {
      if (type === 'summary') {
        const s = data.stats as Record<string, number>;
        return { type, matched_lines: s.matched_lines, matches: s.matches, with_match: s.searches_with_match };
      }
      // rg is given `.` to search (with none it would read its stdin): its paths start with ./
      const path = (data.path as { text: string }).text.replace(/^\.\//, '');
      if (type === 'begin') return { type, path };
      if (type === 'end') {
        const s = data.stats as Record<string, number>;
        return { type, path, matched_lines: s.matched_lines, matches: s.matches };
      }
      return {
        type,
        path,
        n: data.line_number,
        text: (data.lines as { text: string }).text,
        submatches: data.submatches,
      };
    });
}

for (const args of [['foo'], ['-C', '1', 'foo'], ['-i', 'HÉLLO'], ['-w', 'foo'], ['-F', 'o(b']]) {
  test(`cli grep --json is ripgrep's JSON Lines: ${args.join(' ')}`, async () => {
    const root = tree();
    const ours = await runCli(['grep', ...args, '--json'], { cwd: root });
    assert.equal(ours.code, 0, ours.err);
    const theirs = rg(root, ['--json', '--sort', 'path', ...args]);
    assert.equal(theirs.status, 0, theirs.stderr);
    assert.deepEqual(shape(ours.out), shape(theirs.out));
  });
}

test('cli grep --json with nothing found prints only the summary and exits 1', async () => {
  const r = await runCli(['grep', 'zzz_absent', '--json'], { cwd: tree() });
  assert.equal(r.code, 1);
  assert.deepEqual(shape(r.out), [{ type: 'summary', matched_lines: 0, matches: 0, with_match: 0 }]);
  assert.match(r.err, /No matches for "zzz_absent"/);
});

test('cli grep --json refuses -l and -c, as rg does, naming why', async () => {
  for (const flag of ['-l', '-c']) {
    const r = await runCli(['grep', 'foo', flag, '--json'], { cwd: tree() });
    assert.equal(r.code, 2, flag);
    assert.match(r.err, /--json .* cannot be combined with -l, -c/);
    assert.equal(r.out, '');
  }
});

test('cli grep colours the matches it found, and a context line stays a context line', async () => {
  const root = tree();
  const r = await runCli(['grep', '-H', '-n', '-A', '1', 'like', 'e.txt', '--color', 'always'], { cwd: root });
  assert.equal(r.code, 0, r.err);
  const M = (s: string) => `\u001b[35m${s}\u001b[39m`;
  const G = (s: string) => `\u001b[32m${s}\u001b[39m`;
  const R = (s: string) => `\u001b[1m\u001b[31m${s}\u001b[39m\u001b[22m`;
  assert.equal(
    r.out,
    `${M('e.txt')}:${G('1')}:ctx-5-looks:12:${R('like')} a match line\n${M('e.txt')}-${G('2')}-foo\n`,
  );
  const two = await runCli(['grep', '-Hn', 'foo', 'a.ts', '--color', 'always'], { cwd: root });
  assert.equal(
    two.out.split('\n')[0],
    `${M('a.ts')}:${G('2')}:${R('foo')}(bar); ${R('foo')}(baz);`,
    'every match on a line is painted',
  );
});

test('cli grep --json: a pattern that could backtrack is not scanned again for its matches (no submatches)', async () => {
  const root = tree();
  const ours = await runCli(['grep', 'fo+', '--json'], { cwd: root });
  assert.equal(ours.code, 0, ours.err);
  const theirs = rg(root, ['--json', '--sort', 'path', 'fo+']);
  const withoutSubmatches = (events: unknown[]) =>
    events.map((e) => (typeof e === 'object' && e && 'submatches' in e ? { ...e, submatches: [] } : e));
  const ourEvents = shape(ours.out);
  for (const e of ourEvents) if (typeof e === 'object' && e && 'submatches' in e) assert.deepEqual(e.submatches, []);
  // Counts of matches follow: one a matching line where its matches are not known.
  const strip = (events: unknown[]) =>
    withoutSubmatches(events).map((e) => {
      if (typeof e !== 'object' || e === null) return e;
      const { matches: _m, ...rest } = e as Record<string, unknown>;
      return rest;
    });
  assert.deepEqual(strip(ourEvents), strip(shape(theirs.out)));
});

test('cli grep: a line that matches a backtracking pattern once prints at once, coloured, piped or as JSON', async () => {
  // Finding the line takes one match; finding all of its matches would backtrack without end.
  const root = tempDir('mewcode-backtrack-');
  writeTree(root, { 'cat.txt': `aab ${'a'.repeat(34)}!\nplain line\n` });
  for (const extra of [['--color', 'never'], ['--color', 'always'], ['--json']]) {
    const r = await runCli(['grep', '(a+)+b', ...extra], { cwd: root });
    assert.equal(r.code, 0, `${extra.join(' ')}: ${r.err}`);
    assert.match(r.out, /aab a+!/, extra.join(' '));
  }
});

test('cli grep --json: a line of a megabyte reports the matches of its first 64 KiB', async () => {
  const root = tempDir('mewcode-longline-');
  writeTree(root, { 'long.txt': `${'a'.repeat(1024 * 1024)}\n` });
  const r = await runCli(['grep', 'a', '--json'], { cwd: root });
  assert.equal(r.code, 0, r.err);
  const match = r.out
    .split('\n')
    .map((l) => (l ? JSON.parse(l) : undefined))
    .find((e) => e?.type === 'match');
  assert.equal(match.data.lines.text.length, 1024 * 1024 + 1, 'the whole line');
  assert.equal(match.data.submatches.length, 64 * 1024);
});
