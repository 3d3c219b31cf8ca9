/**
 * A line longer than 64 KiB is confirmed from windows around the required literal's occurrences
 * when the pattern's matches look at nothing around them (regex/span.ts, hits.ts): with a bound on
 * their span the windows decide; without one a window's match decides, and a line with none is
 * tested whole (a match reaching farther than any window, or none at all). Answers must be rg's — count, files and content — whatever sits near the windows' edges: matches
 * reaching as far from the literal as the pattern allows, multi-byte characters (two to four bytes)
 * inside and beside matches, many occurrences in one line, CRLF line ends; and for invalid UTF-8
 * (where rg and this searcher differ) and a CRLF end (whose \r is not part of the line here) the same
 * as a short line with the same bytes around the match.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseRegex } from '../../lib/search/regex/parse.ts';
import { isLocal, matchSpan } from '../../lib/search/regex/span.ts';
import { runtimeAt } from '../helpers/runtime.ts';
import { requireTool } from '../helpers/system_tools.ts';
import { tempDir, writeTree } from '../helpers/temp.ts';
import { ourLines, rgLines } from './rg_lines.ts';

requireTool('rg');
const LONG = 200_000;
/** One long line: filler with `parts` written at the given offsets (as UTF-8 bytes). */
function line(parts: [number, string][], eol = '\n'): Buffer {
  const b = Buffer.alloc(LONG, 'x');
  for (const [at, s] of parts) b.write(s, at);
  return Buffer.concat([b, Buffer.from(eol)]);
}

const root = tempDir();
writeTree(root, {
  // A match as far before and after the literal as `.{0,6}` lets it reach, in 4-byte characters.
  'far.txt': line([[100_000, '😀😀😀😀😀😀ERROR 771😀😀😀😀😀😀']]),
  // The literal many times, the only match at the last one, near the line's end.
  'many.txt': line([
    ...Array.from({ length: 40 }, (_, i): [number, string] => [1000 + i * 4000, 'ERROR 77x']),
    [LONG - 30, "ERROR 775')"],
  ]),
  // Occurrences closer together than a window, the match at the second.
  'close.txt': line([
    [50_000, 'ERROR 77a ERROR 77b ERROR 773é'],
    [120_000, 'é'.repeat(40)],
  ]),
  // Two- and three-byte characters around, the line ending in CRLF.
  'crlf.txt': line([[LONG - 40, 'éé€ERROR 776€éé']], '\r\n'),
  // No match: the literal without what the pattern wants after it.
  'nomatch.txt': line([
    [70_000, 'ERROR 77'],
    [150_000, 'ERROR 77 '],
  ]),
  'short.txt': "ERROR 771') short\n",
  // A second occurrence inside the first's window (44 bytes a side for the first pattern) whose match
  // reaches past that window's end: it needs a window of its own.
  'reach.txt': line([
    [100_000, 'ERROR 77x'],
    [100_083, "ERROR 775')"],
  ]),
  // A 3-byte character cut by the first window's end (40 bytes a side for the last pattern): decoded
  // whole, it is no U+FFFD.
  'straddle.txt': line([
    [100_000, 'ERROR 771'],
    [100_069, 'ERROR 772€'],
  ]),
  // A match that begins at the literal and ends 140 KB later, far past any window (`x+y`).
  'farreach.txt': line([
    [10_000, 'ERROR 778'],
    [150_000, 'y'],
  ]),
  // A second long line in one file, after a matching short one.
  'two.txt': Buffer.concat([Buffer.from("ERROR 770')\n"), line([[10, 'ERROR 779']]), line([[199_000, 'ERROR 77']])]),
});
const rt = runtimeAt(root, { workers: 0 });

const PATTERNS = [
  "ERROR 77\\d'\\)",
  '.{0,6}ERROR 77\\d.{0,6}',
  '(?:😀|é){2,6}ERROR 77[0-9]',
  'ERROR 77\\d(?:€|😀){1,3}',
  'ERROR 77[a-z]',
  'é{3}|ERROR 773é',
  'ERROR 77\\d\\x{FFFD}',
  // Unbounded: a window's match, or else the whole line (none begins with an unbounded repetition:
  // on a line of 200,000 x's with no match the backtracking engine is quadratic, windows or not).
  'ERROR 77\\d.*',
  'ERROR 77[0-9]x+y',
  'ERROR 773é[^y]*é{40}',
  'ERROR 77\\d(?:€|😀)+é*',
  // Not windowed (an assertion): the whole line, as before.
  'ERROR 77\\d[^y]*$|ERROR 77[a-z]',
  '\\bERROR 77\\d\\b',
];

for (const pattern of PATTERNS)
  test(`long lines by windows: ${pattern} (count, files, content) as rg`, async () => {
    const count = await ourLines(rt, { pattern, output_mode: 'count' }, 200);
    assert.deepEqual(count, rgLines(root, ['-c', pattern], 200).sort());
    const files = await ourLines(rt, { pattern, output_mode: 'files_with_matches' }, 200);
    assert.deepEqual(files, rgLines(root, ['-l', pattern], 200).sort());
    assert.deepEqual(await ourLines(rt, { pattern }, 60), rgLines(root, [pattern], 60));
  });

test('long lines by windows: invalid UTF-8 around a match answers as a short line with the same bytes', async () => {
  const dir = tempDir();
  // Lone continuation bytes, a cut-off sequence and 0xff on both sides of the literal.
  const near = Buffer.from([0x80, 0xbf, 0xe2, 0x82, 0x41, 0xff, 0x20]);
  const body = Buffer.concat([near, Buffer.from('ERROR 774'), near]);
  const at = (n: number) => Buffer.concat([Buffer.alloc(n, 'x'), body, Buffer.alloc(n, 'x'), Buffer.from('\n')]);
  // And a CRLF line end right after the literal: the \r is not part of the line.
  const crlf = (n: number) => Buffer.concat([Buffer.alloc(n, 'x'), Buffer.from('ERROR 776\r\n')]);
  writeTree(dir, {
    'long.txt': at(100_000),
    'short.txt': at(5),
    'cr-long.txt': crlf(100_000),
    'cr-short.txt': crlf(5),
  });
  const r = runtimeAt(dir, { workers: 0 });
  try {
    // What matched in each: the same patterns in both, at least one of them (an answer of nothing in
    // both would say nothing), as many lines each.
    let matched = 0;
    const patterns = [
      '.{0,7}ERROR 774.{0,7}',
      '\\x{FFFD}.{0,5}ERROR 77\\d',
      'ERROR 774[^x]{6}',
      'ERROR 774[^x]{7}',
      'A.{2}ERROR',
    ];
    for (const pattern of patterns) {
      const got = await ourLines(r, { pattern, output_mode: 'count' }, 200);
      const invalid = got.filter((l) => !l.startsWith('cr-'));
      assert.ok(invalid.length === 0 || invalid.join() === 'long.txt:1,short.txt:1', `${pattern}: ${got}`);
      if (got.length) matched++;
    }
    assert.equal(matched, 4);
    assert.deepEqual(await ourLines(r, { pattern: 'ERROR 776\\s', output_mode: 'count' }, 200), []);
    assert.deepEqual(await ourLines(r, { pattern: 'ERROR 776.?$', output_mode: 'count' }, 200), [
      'cr-long.txt:1',
      'cr-short.txt:1',
    ]);
  } finally {
    await r.close();
  }
});

test('match span: bounded patterns get 4 bytes a character; unbounded ones and assertions none', () => {
  const span = (p: string) => {
    const t = parseRegex(p, { i: false });
    assert.ok(t.ok);
    return matchSpan(t.value);
  };
  assert.equal(span('abc'), 12);
  assert.equal(span('a{2,5}(?:bc|d)'), 4 * 7);
  assert.equal(span('a[0-9]?.'), 12);
  assert.equal(span('a+'), undefined);
  assert.equal(span('a.*'), undefined);
  assert.equal(span('^abc'), undefined);
  assert.equal(span('abc\\b'), undefined);
  assert.equal(span('a{1000}b{1000}c{1000}d{1000}e{1000}'), undefined); // over 4,096 characters
});

test('local patterns: none with an anchor, a word boundary or a lookaround, however deep', () => {
  const local = (p: string) => {
    const t = parseRegex(p, { i: false });
    assert.ok(t.ok);
    return isLocal(t.value);
  };
  assert.equal(local('a+b.*c'), true);
  assert.equal(local('(?:a|b{2,})+[^x]*'), true);
  assert.equal(local('a(?:b|c$)'), false);
  assert.equal(local('(?:x(?:\\bz)+)?y'), false);
  assert.equal(local('(?=a)b'), false);
});
