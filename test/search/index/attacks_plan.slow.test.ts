/**
 * Attacks on the query planner's byte triples (regex/byte_edges.ts, regex/literals.ts `concat`,
 * index/plan.ts): every case is a pattern and file bytes where an indexed answer could differ from an
 * unindexed one if a triple clause required bytes a matching file does not hold. No break was
 * reproduced: ~6,000 random patterns (classes, zero-width parts, optional parts, alternations with
 * empty branches, partial (?i), (?-u), case-fold orbits, U+FFFD) against byte strings sampled from
 * each pattern (invalid UTF-8, BOM, CRLF) found none at unit level; the cases below are the risky
 * spots, confirmed end-to-end against a warm runtime with the index built and one without it.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { trigramsOf } from '../../../lib/search/index/ngrams.ts';
import { candidates, MAX_GROUPS, planQuery, requiredLiteralsOf } from '../../../lib/search/index/plan.ts';
import { encodeSegment, PairBuffer, Segment } from '../../../lib/search/index/segment.ts';
import { compileRegex } from '../../../lib/search/matcher.ts';
import { MAX_TRIPLES } from '../../../lib/search/regex/byte_edges.ts';
import { agedTree, assertSame, trio } from './attack_helpers.ts';

const b = (...parts: (string | number[])[]) =>
  Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'utf8') : Buffer.from(p))));

// Each probe: a file that matches the pattern, and why the triples could have ruled it out.
const PROBES: { why: string; file: Buffer; pattern: string; ci?: boolean; multiline?: boolean }[] = [
  // A class holding U+FFFD beside an invalid byte: the byte is 0xFF (neither lead nor continuation).
  { why: 'invalid byte 0xFF matched by \\W (holds U+FFFD)', file: b('ab', [0xff], 'cd\n'), pattern: 'ab\\Wcd' },
  { why: 'invalid 0xFF matched by \\p{So}', file: b('xy', [0xff], 'zw\n'), pattern: 'xy\\p{So}zw' },
  { why: 'truncated sequence E2 84 then ASCII', file: b('xy', [0xe2, 0x84], 'zw\n'), pattern: 'xy\\p{So}+zw' },
  {
    why: 'encoded surrogate ED A0 80 decodes to U+FFFD x3',
    file: b('xy', [0xed, 0xa0, 0x80], 'zw\n'),
    pattern: 'xy[^\\n\\r]{3}zw',
  },
  { why: 'overlong C0 80', file: b('xy', [0xc0, 0x80], 'zw\n'), pattern: 'xy[^a-z\\n\\r]+zw' },
  { why: 'lone continuation byte 0x80 first', file: b('xy', [0x80], 'zw\n'), pattern: 'xy[\\x{fff0}-\\x{10ffff}]zw' },
  {
    why: 'F4 90 80 80 (above U+10FFFF) decodes to U+FFFD',
    file: b('xy', [0xf4, 0x90, 0x80, 0x80], 'zw\n'),
    pattern: 'xy\\p{So}{1,4}zw',
  },
  // Case folding: the class's ASCII members under (?i) include k; the Kelvin sign is E2 84 AA.
  { why: 'Kelvin sign matched by (?i)[k] beside literal text', file: b('ab\u212acd\n'), pattern: '(?i)ab[k]cd' },
  { why: 'long s matched by (?i)[a-z]', file: b('ab\u017fcd\n'), pattern: '(?i)ab[a-z]cd' },
  { why: 'Kelvin sign as the literal beside a class', file: b('\u212a\u212a7\n'), pattern: 'kk\\d', ci: true },
  { why: 'long s as the literal in partial (?i)', file: b('x\u017f7\n'), pattern: 'x(?i:s)\\d' },
  { why: 'Å orbit (U+212B) in partial (?i)', file: b('x\u212b7\n'), pattern: 'x(?i:å)\\d' },
  { why: 'final sigma ς in (?i)', file: b('xς7\n'), pattern: '(?i)xσ\\d' },
  { why: 'micro sign µ / μ in partial (?i)', file: b('xµ7\n'), pattern: 'x(?i:μ)\\d' },
  { why: 'ǅ titlecase orbit', file: b('xǆ7\n'), pattern: '(?i)xǅ\\d' },
  // Adjacency: zero-width and optional parts between the class and the literal.
  { why: 'word boundary between class and literal', file: b('77 foo\n'), pattern: '\\d\\b foo' },
  { why: 'lookahead between', file: b('7foo\n'), pattern: '\\d(?=f)foo' },
  { why: 'lookbehind between', file: b('ab7\n'), pattern: 'ab(?<=b)\\d' },
  { why: 'empty alternative between', file: b('7bar\n'), pattern: '\\d(?:foo|)bar' },
  { why: 'optional part between', file: b('7bar\n'), pattern: '\\d(?:foo)?bar' },
  { why: 'repetition with min 0 of a class', file: b('abcd\n'), pattern: 'ab\\d*cd' },
  { why: 'lazy repetition', file: b('ab77cd\n'), pattern: 'ab\\d+?cd' },
  { why: '{2,3} of a group of a class', file: b('ab777cd\n'), pattern: 'ab(\\d){2,3}cd' },
  { why: 'nested group with capture and alternation', file: b('ab7cd\n'), pattern: 'ab((\\d)|x)cd' },
  { why: 'set operations', file: b('abXcd\n'), pattern: 'ab[\\w--\\d]cd' },
  { why: 'symmetric difference', file: b('abkcd\n'), pattern: 'ab[a-z~~x]cd' },
  { why: '(?-u) ASCII class', file: b('ab_cd\n'), pattern: '(?-u)ab\\wcd' },
  { why: '(?-u) negated class matches a non-ASCII char', file: b('abécd\n'), pattern: '(?-u:ab[^a])cd' },
  // Line ends: CRLF, $ before \r, multiline.
  { why: 'CRLF line, class then $', file: b('ab7\r\nx\n'), pattern: 'ab\\d$' },
  { why: 'multiline class then newline', file: b('ab7\r\ncd\n'), pattern: 'ab\\d\\s+cd', multiline: true },
  { why: 'multiline class then \\r\\n literal', file: b('ab7\r\ncd\n'), pattern: 'ab\\d\\r\\ncd', multiline: true },
  { why: 'a UTF-8 BOM before the match', file: b([0xef, 0xbb, 0xbf], 'ab7\n'), pattern: '^ab\\d' },
  { why: 'a class matching U+FEFF mid-line', file: b('ab\ufeffcd\n'), pattern: 'ab\\p{Cf}cd' },
  { why: 'a 4-byte member (emoji)', file: b('ab😀cd\n'), pattern: 'ab\\p{So}cd' },
  { why: 'U+10FFFF noncharacter', file: b('ab\u{10ffff}cd\n'), pattern: 'ab\\p{Cn}cd' },
  { why: 'a combining mark after a literal', file: b('abe\u0301\n'), pattern: 'abe\\p{M}' },
  { why: 'U+FFFD in the pattern beside a class', file: b('7', [0xff], 'ab\n'), pattern: '\\d\ufffdab' },
  { why: 'small class with U+FFFD', file: b('xy', [0xfe], '7\n'), pattern: 'xy[\\x{fffd}a]\\d' },
];

test('planner attack held: byte triples on every risky edge, indexed vs unindexed (unit level)', () => {
  for (const p of PROBES) {
    const o = { ignoreCase: p.ci ?? false, fixedStrings: false, multiline: p.multiline ?? false };
    const spec = compileRegex(p.pattern, o);
    assert.ok(spec.ok, p.pattern);
    // The file really matches (as the searcher decodes it: BOM dropped, CR stripped).
    let bytes = p.file;
    if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) bytes = bytes.subarray(3);
    const text = bytes.toString('utf8');
    const hit = o.multiline
      ? new RegExp(spec.value.scan.source, spec.value.scan.flags).test(text)
      : text.split('\n').some((l) => spec.value.line.test(l.replace(/\r$/, '')));
    assert.ok(hit, `${p.why}: the probe file matches ${p.pattern}`);
    const plan = planQuery(requiredLiteralsOf(p.pattern, o));
    if (!plan) continue;
    const pairs = new PairBuffer(64);
    pairs.add(trigramsOf(p.file), 0);
    // Padding files so no group is skipped as common.
    for (let f = 1; f < 4; f++) pairs.add(trigramsOf(Buffer.from(`pad ${f}\n`)), f);
    const seg = new Segment(encodeSegment(pairs, 4), 0);
    assert.ok(candidates(plan, [seg], 4).includes(0), `${p.why}: ${p.pattern} kept the file`);
  }
});

test('planner attack held: the same probes end to end, and a match across the 1 MiB streaming boundary', async () => {
  const files: Record<string, Uint8Array> = {};
  PROBES.forEach((p, i) => {
    files[`p/probe${i}.txt`] = p.file;
  });
  // A file over 1 MiB is streamed through a 1 MiB buffer during the build: the triple 'b','7' then
  // 'c' and 'a','b','7' straddle the piece boundary (bytes 1048575/1048576).
  const big = Buffer.alloc((1 << 20) + 64, 0x20);
  big[(1 << 20) - 200] = 0x0a;
  big.write('ab7cd\n', (1 << 20) - 2, 'latin1');
  files['big/boundary.txt'] = big;
  const big2 = Buffer.alloc((1 << 20) + 64, 0x20);
  big2[(1 << 20) - 200] = 0x0a;
  // A 3-byte character split by the boundary, matched by \p{So} between literals.
  big2.write('xy\u2603zw\n', (1 << 20) - 3, 'utf8');
  files['big/split.txt'] = big2;
  const t = await trio(await agedTree(files));
  const patterns: [string, boolean, boolean][] = [
    ...PROBES.map((p) => [p.pattern, p.ci ?? false, p.multiline ?? false] as [string, boolean, boolean]),
    ['ab\\dcd', false, false],
    ['b\\d', false, false],
    ['xy\\p{So}zw', false, false],
  ];
  let served = 0;
  for (const [pattern, ci, multiline] of patterns)
    for (const output_mode of ['content', 'count'] as const) {
      const how = await assertSame(
        t,
        { pattern, case_insensitive: ci, multiline, output_mode, head_limit: 0 },
        pattern,
      );
      if (how[0]?.includes('served')) served++;
    }
  // Most probes are planned and served by the index (not scanned), so the comparison tests the plan.
  assert.ok(served >= patterns.length, `served ${served} of ${patterns.length * 2}`);
});

test('planner attack held: a pattern of thousands of class edges plans a bounded number of lookups', () => {
  // 3,000 distinct two-letter literals each followed by \pL: 1,352 OR groups of up to 61 triples,
  // 113k posting lookups per segment in `candidates` before the plan kept only its cheapest groups.
  const pat = Array.from(
    { length: 3000 },
    (_, i) => `${String.fromCharCode(97 + (i % 26))}${String.fromCharCode(97 + (Math.floor(i / 26) % 26))}\\pL`,
  ).join('');
  const plan = planQuery(requiredLiteralsOf(pat, { ignoreCase: false, fixedStrings: false }));
  assert.ok(plan, 'planned');
  assert.ok(plan.length <= 2 * MAX_GROUPS, `${plan.length} groups`);
  const lookups = plan.reduce((n, g) => n + g.reduce((m, keys) => m + keys.length, 0), 0);
  assert.ok(lookups <= 2 * MAX_GROUPS * MAX_TRIPLES, `${lookups} lookups`);
});
