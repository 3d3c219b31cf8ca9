/**
 * The planner and the posting lists: the trigrams a literal requires (folded, non-ASCII left out when
 * case-insensitive), plans that fall back to a scan, and segments that decode to exactly the files
 * encoded, as varint deltas and as bitmaps.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { literalTrigrams, trigramsOf } from '../../../lib/search/index/ngrams.ts';
import { candidates, planQuery, requiredLiteralsOf } from '../../../lib/search/index/plan.ts';
import { encodeSegment, PairBuffer, Segment } from '../../../lib/search/index/segment.ts';

const key = (s: string) => (s.charCodeAt(0) << 16) | (s.charCodeAt(1) << 8) | s.charCodeAt(2);

test('index plan: literals become folded trigrams; nothing usable means a scan', () => {
  assert.deepEqual(literalTrigrams('AbcD', false), [key('abc'), key('bcd')]);
  assert.deepEqual(trigramsOf(Buffer.from('ABCabc')).sort(), [key('abc'), key('bca'), key('cab')].sort());
  // Case-insensitive: trigrams with a non-ASCII byte say nothing (other bytes may match).
  assert.deepEqual(literalTrigrams('née', true), []);
  assert.equal(literalTrigrams('née', false).length, 2, 'case-sensitive: the bytes themselves');
  assert.equal(planQuery(requiredLiteralsOf('ab', { ignoreCase: false, fixedStrings: false })), undefined);
  assert.equal(planQuery(requiredLiteralsOf('a|bcdef', { ignoreCase: false, fixedStrings: false })), undefined);
  assert.equal(planQuery(requiredLiteralsOf('.*', { ignoreCase: false, fixedStrings: false })), undefined);
  assert.deepEqual(planQuery(requiredLiteralsOf('fo+bar', { ignoreCase: false, fixedStrings: false })), [
    [[key('bar')]],
  ]);
  assert.deepEqual(planQuery(requiredLiteralsOf('a.b(c', { ignoreCase: true, fixedStrings: true })), [
    [[key('a.b'), key('.b('), key('b(c')]],
  ]);
  // Unicode case folding: ASCII k and s also match K and ſ, so their trigrams are dropped.
  assert.deepEqual(planQuery({ literals: [['kiss']], caseInsensitive: true, unicodeCase: true }), undefined);
  // AND of ORs: every group must be satisfied by one of its alternatives.
  assert.equal(planQuery({ literals: [['abc', 'xy'], ['defg']], caseInsensitive: false })?.length, 1);
});

test('index plan: segments decode to the files encoded, sparse and dense, and candidates intersect', () => {
  const files = 1000;
  const pairs = new PairBuffer(16);
  const texts: string[] = [];
  for (let f = 0; f < files; f++) {
    // "com" in every third file (a bitmap), "rar" in every 97th, "abc"/"bcd" by other rules.
    const t = `${f % 3 === 1 ? 'com ' : ''}${f % 97 === 0 ? 'rar ' : ''}${f % 3 === 0 ? 'abcd' : 'abc'}`;
    texts.push(t);
    pairs.add(trigramsOf(Buffer.from(t)), f);
  }
  const seg = new Segment(encodeSegment(pairs, files), 0);
  const listOf = (k: string) => {
    const out: number[] = [];
    seg.forEach(key(k), (f) => out.push(f));
    return out;
  };
  for (const k of ['com', 'rar', 'abc', 'bcd', 'zzz']) {
    const want = texts.flatMap((t, f) => (t.includes(k) ? [f] : []));
    assert.deepEqual(listOf(k), want, k);
    assert.equal(seg.count(key(k)), want.length, `count of ${k}`);
  }
  const plan = planQuery({ literals: [['rar'], ['com', 'zzzz']], caseInsensitive: false });
  assert.ok(plan);
  const both = texts.flatMap((t, f) => (t.includes('rar') && t.includes('com') ? [f] : []));
  assert.deepEqual(candidates(plan, [seg], files), both);
  // A group letting a common share of the files through (abc: all of them) is left out: looser, not wrong.
  const loose = planQuery({ literals: [['rar'], ['abc']], caseInsensitive: false });
  assert.ok(loose);
  const rar = texts.flatMap((t, f) => (t.includes('rar') ? [f] : []));
  assert.deepEqual(candidates(loose, [seg], files), rar);
  // Within a literal too: a trigram in a common share of the files (com: 9 of 10) is not decoded once
  // a rarer one has narrowed the files; file 9 lacks it and is let through, file 0 (the match) stays.
  const few = new PairBuffer(16);
  const small = ['common', ...Array.from({ length: 8 }, () => 'com'), 'omm mmo mon'];
  for (const [f, t] of small.entries()) few.add(trigramsOf(Buffer.from(t)), f);
  const commonPlan = planQuery({ literals: [['common']], caseInsensitive: false });
  assert.ok(commonPlan);
  assert.deepEqual(candidates(commonPlan, [new Segment(encodeSegment(few, small.length), 0)], small.length), [0, 9]);
});

test('index build: a file larger than the pair buffer yields the same pairs, sorted, as a small one', () => {
  // Random-ish bytes with upper case: many distinct trigrams, folded.
  let x = 12345;
  const big = Buffer.alloc(50_000, 0);
  for (let i = 0; i < big.length; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    big[i] = 65 + ((x >>> 16) % 40);
  }
  const want = [...new Set(trigramsOf(big))].sort((a, b) => a - b);
  const roomy = new PairBuffer(big.length);
  roomy.addFile(big, 3);
  assert.deepEqual(
    [...roomy.keys.subarray(0, roomy.length)].sort((a, b) => a - b),
    want,
  );
  const tight = new PairBuffer(16);
  tight.addFile(Buffer.from('abcd'), 0);
  tight.addFile(big, 1);
  assert.deepEqual([...tight.keys.subarray(2, tight.length)], want, 'counted, grown, written in key order');
  assert.deepEqual([...new Set(tight.files.subarray(2, tight.length))], [1]);
  const seg = new Segment(encodeSegment(tight, 2), 0);
  assert.equal(seg.count(key('abc')), want.includes(key('abc')) ? 2 : 1);
  assert.equal(seg.count(want[0] as number), (want[0] as number) === key('abc') || want[0] === key('bcd') ? 2 : 1);
});

/** Segments of `per` files each, their postings read through a counting reader, as the store serves them. */
function segmentsOf(texts: readonly string[], per: number) {
  const reads = { n: 0 };
  const parts: Segment[] = [];
  for (let base = 0; base < texts.length; base += per) {
    const pairs = new PairBuffer(16);
    const chunk = texts.slice(base, base + per);
    for (const [f, t] of chunk.entries()) pairs.add(trigramsOf(Buffer.from(t)), f);
    const bytes = encodeSegment(pairs, chunk.length);
    const head = Segment.headBytes(new Uint32Array(bytes.buffer, bytes.byteOffset, 1)[0] as number);
    parts.push(
      new Segment(bytes.subarray(0, head), base, (from, to) => {
        reads.n++;
        return bytes.subarray(head + from, head + to);
      }),
    );
  }
  return { parts, reads };
}

test('index plan: over many segments, candidates hold every matching file; a group that rules out files narrows all of them', () => {
  let x = 7;
  const rand = (n: number) => {
    x = (x * 1103515245 + 12345) >>> 0;
    return x % n;
  };
  const words = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel'];
  const texts = Array.from({ length: 3000 }, () =>
    Array.from({ length: 1 + rand(4) }, () => words[rand(words.length)]).join(' '),
  );
  const { parts } = segmentsOf(texts, 100);
  for (let trial = 0; trial < 200; trial++) {
    const literals = Array.from({ length: 1 + rand(3) }, () =>
      Array.from({ length: 1 + rand(2) }, () => words[rand(words.length)] as string),
    );
    const plan = planQuery({ literals, caseInsensitive: false });
    assert.ok(plan);
    const truth = texts.flatMap((t, f) => (literals.every((any) => any.some((w) => t.includes(w))) ? [f] : []));
    const got = candidates(plan, parts, texts.length);
    assert.deepEqual(
      [...got].sort((a, b) => a - b),
      got,
      'ascending',
    );
    const held = new Set(got);
    assert.ok(
      truth.every((f) => held.has(f)),
      `${JSON.stringify(literals)}: a matching file missing`,
    );
  }
  // Two literals, each in a quarter of the files, together in a sixteenth: the second rules out three
  // quarters of what the first lets through, so it is applied everywhere and the answer is exact.
  const halves = Array.from(
    { length: 2000 },
    (_, f) => `${f % 4 === 0 ? 'xylophone' : ''} ${(f >> 2) % 4 === 0 ? 'quizzical' : ''}`,
  );
  const h = segmentsOf(halves, 100);
  const plan = planQuery({ literals: [['xylophone'], ['quizzical']], caseInsensitive: false });
  assert.ok(plan);
  assert.deepEqual(
    candidates(plan, h.parts, halves.length),
    halves.flatMap((t, f) => (t.includes('xylophone') && t.includes('quizzical') ? [f] : [])),
  );
});

test('index plan: a later group that rules out almost nothing is dropped after a sample; one read per segment per group', () => {
  // "rarest" in 1 file of 10 (the first group), "common" in all of them but one: the second group is
  // tried on the first candidates, rules out too few, and is not looked up in the remaining segments.
  const texts = Array.from(
    { length: 10_000 },
    (_, f) => `${f % 10 === 0 ? 'rarest ' : ''}${f === 5000 ? '' : 'commons'}`,
  );
  const { parts, reads } = segmentsOf(texts, 100);
  const plan = planQuery({ literals: [['rarest'], ['commons']], caseInsensitive: false });
  assert.ok(plan);
  const got = candidates(plan, parts, texts.length);
  assert.deepEqual(
    got,
    texts.flatMap((t, f) => (t.includes('rarest') ? [f] : [])),
    'the rare files, the one without "commons" among them',
  );
  // The first group: one read per segment (its keys read ahead together); the second: only the sample's.
  assert.ok(reads.n < parts.length * 1.5, `${reads.n} reads for ${parts.length} segments`);
  assert.ok(reads.n >= parts.length, 'every segment read for the first group');
  // A digit class's alternatives, all read ahead in one read per segment.
  reads.n = 0;
  const digits = Array.from({ length: 1000 }, (_, f) => (f % 10 === 0 ? `ERROR 77${(f / 10) % 10}')` : 'ERROR 77 x'));
  const d = segmentsOf(digits, 100);
  const classPlan = planQuery(requiredLiteralsOf("ERROR 77\\d'\\)", { ignoreCase: false, fixedStrings: false }));
  assert.ok(classPlan, 'a plan for the digit class');
  assert.deepEqual(
    candidates(classPlan, d.parts, digits.length),
    digits.flatMap((t, f) => (t.endsWith("')") ? [f] : [])),
  );
  // Two groups of the class's triples are selective (the literal is in every file): each of them, ten
  // alternatives, costs one read per segment.
  assert.equal(d.reads.n, 2 * d.parts.length, 'one read per segment per group');
});
