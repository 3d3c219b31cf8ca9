/**
 * A large class beside literal text (`ERROR 77\d'\)`, `get\w+Id`) plans the byte triples across its
 * edges (lib/search/regex/byte_edges.ts). These tests check the edges against every code point the
 * class holds, that the planned candidates are a superset of the files a search matches (non-ASCII
 * digits, invalid UTF-8, the Kelvin sign, case-insensitive searches), that they do narrow, and that
 * a warm indexed runtime answers exactly as one without an index.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { rng } from '../../../bench/edits/prng.ts';
import { RACY_MS } from '../../../lib/search/dircache.ts';
import { trigramsOf } from '../../../lib/search/index/ngrams.ts';
import { candidates, planQuery, requiredLiteralsOf } from '../../../lib/search/index/plan.ts';
import { encodeSegment, PairBuffer, Segment } from '../../../lib/search/index/segment.ts';
import { compileRegex } from '../../../lib/search/matcher.ts';
import type { Node } from '../../../lib/search/regex/ast.ts';
import { classEdges, FOLDS_OUT } from '../../../lib/search/regex/byte_edges.ts';
import { parseRegex } from '../../../lib/search/regex/parse.ts';
import { caseVariants, translate } from '../../../lib/search/regex/translate.ts';
import { runtimeAt } from '../../helpers/runtime.ts';
import { tempDir, writeTree } from '../../helpers/temp.ts';
import { waitFor } from '../../helpers/wait.ts';

const classOf = (src: string, i = false): Extract<Node, { t: 'class' }> => {
  const made = parseRegex(src, { i });
  assert.ok(made.ok && made.value.t === 'class', src);
  return made.value as Extract<Node, { t: 'class' }>;
};

test('byte edges: every member of the class begins and ends with a byte the edges list', () => {
  assert.deepEqual(
    Array.from({ length: 128 }, (_, c) => c).filter((c) => caseVariants(c).some((v) => v > 127)),
    FOLDS_OUT,
    'the ASCII letters whose case variants leave ASCII',
  );
  for (const [src, i] of [
    ['\\d', false],
    ['\\w', false],
    ['[a-z]', true],
    ['[^x]', false],
    ['\\p{Greek}', false],
    ['[0-9]', false],
  ] as const) {
    const n = classOf(src, i);
    const edges = classEdges(n);
    assert.ok(edges, src);
    // The searcher's own regex for the class: membership as a search decides it.
    const t = translate(n, true);
    const re = new RegExp(`^(?:${t.source})$`, t.flags);
    const first = new Set(edges.first);
    const last = new Set(edges.last);
    for (let cp = 0; cp <= 0x10ffff; cp++) {
      if (cp >= 0xd800 && cp <= 0xdfff) continue;
      const ch = String.fromCodePoint(cp);
      if (!re.test(ch)) continue;
      const b = Buffer.from(ch, 'utf8');
      assert.ok(first.has(b[0] as number), `${src}: U+${cp.toString(16)} begins with a listed byte`);
      assert.ok(last.has(b[b.length - 1] as number), `${src}: U+${cp.toString(16)} ends with a listed byte`);
    }
    // A class holding U+FFFD matches any invalid byte, which is 0x80 or above.
    if (re.test('\ufffd')) for (let b = 0x80; b <= 0xff; b++) assert.ok(first.has(b) && last.has(b), src);
  }
});

// Texts around the edges: ASCII and non-ASCII digits (Arabic-Indic, fullwidth, mathematical), invalid
// bytes, the Kelvin sign and long s, case variants, line breaks.
const PIECES = [
  'ERROR 77',
  '7',
  '0',
  '9',
  "')",
  "'",
  ')',
  ' ',
  '\n',
  '\u0663',
  '\uff19',
  '\u{1d7d7}',
  'get',
  'Get',
  'GET',
  'Id',
  'ID',
  'id',
  '_',
  'x',
  'K',
  'k',
  '\u212a',
  's',
  '\u017f',
  'é',
  'É',
  '\ufffd',
];
const BYTES = [Buffer.from([0xff]), Buffer.from([0xc3]), Buffer.from([0xe2, 0x84])];
// Files every run holds: a long s or Kelvin sign where a case-insensitive literal has s or k, and
// invalid bytes where a pattern has U+FFFD (the searcher decodes them to it).
const FIXED = [
  Buffer.from('xa\u017f5 get\u212aId\n'),
  Buffer.from([0x78, 0xff, 0x35, 0x0a, 0x61, 0x62, 0xfe, 0x63, 0x64, 0x0a]),
  Buffer.from([0x37, 0xff, 0x27, 0x29, 0x0a]),
];
const PATTERNS: [string, boolean][] = [
  ["ERROR 77\\d'\\)", false],
  ['77\\d\\d', false],
  ['get\\w+Id', false],
  ['get\\w+id', true],
  ['(?i)get[a-z]id', false],
  ['ERROR 77\\D', false],
  ["7[^x\\n]'\\)", false],
  ['77\\W\\)', false],
  ['get\\p{L}+', false],
  ['\\dk', true],
  ['ge[t]\\wId', true],
  ["77(\\d)+'\\)", false],
  ['77\\b\\d', false],
  ['\\d\\)', false],
  ['as\\d', true],
  ['x\ufffd\\d', false],
  ['ab\ufffdcd', false],
  ['(x\ufffd5|y\ufffd6)', false],
  ['(ab\ufffdc|zz\ufffdc)d', false],
];

/** Files of filler words with a few pieces each, so that most searches are selective. */
function randomFiles(count: number, seed: number): Buffer[] {
  const rand = rng(seed).next;
  const files: Buffer[] = [];
  const filler = () =>
    Array.from({ length: 3 + Math.floor(rand() * 3) }, () => 'abcdfhjlmnopqruvwyz'[Math.floor(rand() * 19)]).join('');
  for (let f = 0; f < count; f++) {
    const parts: Buffer[] = [];
    for (let i = 0, n = 4 + Math.floor(rand() * 30); i < n; i++) {
      const r = rand();
      parts.push(
        r < 0.02
          ? (BYTES[Math.floor(rand() * BYTES.length)] as Buffer)
          : Buffer.from(r < 0.25 ? (PIECES[Math.floor(rand() * PIECES.length)] as string) : ` ${filler()} `),
      );
    }
    files.push(Buffer.concat(parts));
  }
  return [...FIXED, ...files];
}

test('byte edges: the planned candidates hold every file a search matches, and narrow', () => {
  const files = randomFiles(3000, 16);
  const pairs = new PairBuffer(64);
  for (const [f, b] of files.entries()) pairs.add(trigramsOf(b), f);
  const seg = new Segment(encodeSegment(pairs, files.length), 0);
  const texts = files.map((b) => b.toString('utf8'));
  for (const [pattern, ignoreCase] of PATTERNS) {
    const o = { ignoreCase, fixedStrings: false };
    const spec = compileRegex(pattern, { ...o, multiline: false });
    assert.ok(spec.ok, pattern);
    const matches = texts.flatMap((t, f) => (t.split('\n').some((l) => spec.value.line.test(l)) ? [f] : []));
    const plan = planQuery(requiredLiteralsOf(pattern, o));
    if (!plan) continue;
    const cand = new Set(candidates(plan, [seg], files.length));
    for (const f of matches) assert.ok(cand.has(f), `${pattern}: file ${f} matches but the plan ruled it out`);
  }
  // Narrowing: ERROR 77 everywhere, a digit after 77 in few files.
  const hay = [
    ...Array.from({ length: 50 }, (_, i) => `ERROR 77') and ERROR 5${i % 10}')`),
    "throw ERROR 773')",
    "ERROR 77\u0663')",
  ];
  const hp = new PairBuffer(64);
  for (const [f, t] of hay.entries()) hp.add(trigramsOf(Buffer.from(t)), f);
  const hs = new Segment(encodeSegment(hp, hay.length), 0);
  const plan = planQuery(requiredLiteralsOf("ERROR 77\\d'\\)", { ignoreCase: false, fixedStrings: false }));
  assert.ok(plan);
  assert.deepEqual(candidates(plan, [hs], hay.length), [50, 51], 'only the files with 77 and a digit');
});

test('byte edges: a warm indexed runtime answers class patterns exactly as a scan does', async () => {
  const root = tempDir();
  const tree: Record<string, Uint8Array> = {};
  randomFiles(400, 77).forEach((b, f) => {
    tree[`d${f % 7}/f${f}.txt`] = b;
  });
  writeTree(root, tree);
  const written = Date.now();
  await waitFor(() => Date.now() - written > RACY_MS + 100, 'the tree to leave the racy window', { everyMs: 100 });
  const cache = tempDir('mewcode-cache-');
  const warm = runtimeAt(root, { workers: 2, index: 'build', indexCacheDir: cache });
  assert.ok((await warm.searchIndex?.build())?.ok, 'built');
  const plain = runtimeAt(root, { workers: 2, index: 'off' });
  let served = 0;
  for (const [pattern, ignoreCase] of PATTERNS)
    for (const output_mode of ['content', 'files_with_matches'] as const) {
      const q = { pattern, case_insensitive: ignoreCase, output_mode, head_limit: 0 };
      const want = await plain.call('grep', q);
      const got = await warm.call('grep', q);
      assert.equal(got.content, want.content, `${JSON.stringify(q)} (${String(got.meta?.index)})`);
      if (String(got.meta?.index).startsWith('served')) served++;
    }
  assert.ok(served >= 10, `the index served most of them (${served} of ${PATTERNS.length * 2})`);
});
