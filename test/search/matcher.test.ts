import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compileGlob, compileRegex } from '../../lib/search/matcher.ts';

const rx = (pattern: string, ignoreCase = false) => {
  const r = compileRegex(pattern, { ignoreCase, fixedStrings: false });
  assert.ok(r.ok, `${pattern}: ${r.ok ? '' : r.error}`);
  return r.value;
};

// The required literals, AND of ORs, and the byte prefilter's literal (the best one-string clause).
const literals: [string, string[][] | undefined, string | undefined][] = [
  ['TODO', [['TODO']], 'TODO'],
  ['function\\s+\\w+Handler', [['function'], ['Handler']], 'function'],
  ['\\bstate\\b', [['state']], 'state'],
  ['(user|order)Cache', [['orderCache', 'userCache'], ['erCache']], 'erCache'],
  ['user|order', [['order', 'user'], ['er']], 'er'], // a shared suffix is a one-string clause
  ['colou?r', [['colo'], ['r']], 'colo'],
  ['ab*c', [['a'], ['c']], 'a'],
  ['x+yz', [['x'], ['yz']], 'yz'],
  ['[A-Z]{5}', undefined, undefined],
  ['^\\s*$', undefined, undefined],
  ['\\.log\\(', [['.log(']], '.log('],
  ['(?:foo)+bar', [['foo'], ['bar']], 'foo'],
  ['a{0,3}bcd', [['bcd']], 'bcd'],
  ['\\d{3}-\\d{4}', [['-']], '-'],
  // escapes are the characters they name: the old prefilter required the bytes "41" and "00e9"
  ['\\x41ssert', [['Assert']], 'Assert'],
  ['caf\\u00e9', [['café']], 'café'],
  ['\\x{1F600}', [['😀']], '😀'],
  ['[Tt]odo', [['Todo', 'todo'], ['odo']], 'odo'],
  ['(?i:ab)c', [['ABc', 'Abc', 'aBc', 'abc'], ['c']], 'c'],
  ['(?x) a b', [['ab']], 'ab'],
  ['a(?=b)c', [['ac']], 'ac'],
  ['', undefined, undefined],
];
const samples = [
  'functionx  userHandler',
  'state',
  'orderCache',
  'color',
  'colour',
  'ac',
  'abbc',
  'xxyz',
  'a.log(',
  'foobar',
  'bcd',
  '555-1234',
  'Assert',
  'café',
  '😀',
  'Todo',
  'todo',
  'ABc',
  'abc',
  'a b',
  'ab',
];
for (const [pattern, clauses, prefilter] of literals) {
  test(`matcher: /${pattern}/ requires ${JSON.stringify(clauses)}, prefilters on ${JSON.stringify(prefilter)}`, () => {
    const spec = rx(pattern);
    assert.deepEqual(spec.requiredLiterals()?.clauses, clauses);
    assert.equal(spec.literal?.toString('utf8'), prefilter);
    // Soundness: every sample the regex matches satisfies every clause.
    for (const sample of samples)
      if (spec.line.test(sample))
        for (const c of clauses ?? [])
          assert.ok(
            c.some((l) => sample.includes(l)),
            `${sample} matches /${pattern}/ but has none of ${c}`,
          );
  });
}

test('matcher: case-insensitive patterns prefilter on an ASCII literal, case-sensitive ones on bytes', () => {
  const ci = rx('Error \\d+', true);
  assert.ok(ci.literalFolded === 'error ' && ci.literal === undefined);
  const req = ci.requiredLiterals();
  assert.deepEqual(req?.clauses, [['Error ']]);
  assert.equal(req?.caseInsensitive, true);
  // Where `\d` meets "Error ": "r " then a digit's first byte, ASCII or a UTF-8 lead byte.
  const triple = (a: number, b: number, c: number) => (a << 16) | (b << 8) | c;
  assert.equal(req?.triples.length, 1);
  assert.ok([0x30, 0x39, 0xd9, 0xef].every((b) => req?.triples[0]?.includes(triple(0x72, 0x20, b))));
  assert.ok(!req?.triples[0]?.includes(triple(0x72, 0x20, 0x61)), 'no letter after "Error "');
  assert.deepEqual(rx('(?i)todo').requiredLiterals(), { clauses: [['todo']], caseInsensitive: true, triples: [] });
  assert.ok(rx('über').literal?.equals(Buffer.from('über')));
  assert.ok(rx('\\p{Lu}+').line.flags.includes('v'), 'patterns compile with the v flag');
  const fixed = compileRegex('a.b(', { ignoreCase: false, fixedStrings: true });
  assert.ok(fixed.ok && fixed.value.line.test('xa.b(y') && !fixed.value.line.test('axb('));
  assert.deepEqual(fixed.ok && fixed.value.requiredLiterals(), {
    clauses: [['a.b(']],
    caseInsensitive: false,
    triples: [],
  });
});

test('matcher: a case-sensitive regex has its other required literals checked on bytes too; never U+FFFD, never with -i', () => {
  const spec = rx('function\\s+\\w+Error\\(');
  assert.equal(spec.literal?.toString(), 'function', 'candidate lines are found by the longest');
  assert.deepEqual(spec.alsoLiterals?.map(String), ['Error(']);
  const many = rx('a+bcde\\d+fg\\s+hij\\s+klmn\\s+op');
  assert.equal(many.literal?.toString(), 'bcde');
  assert.deepEqual(many.alsoLiterals?.map(String), ['klmn', 'hij', 'fg'], 'at most three others, the longest');
  assert.equal(rx('needle').alsoLiterals, undefined, 'a literal pattern has no other');
  assert.equal(
    rx('\\x{FFFD}.{0,5}ERROR 77\\d').alsoLiterals,
    undefined,
    'invalid bytes decode to U+FFFD: its bytes need not be there',
  );
  assert.equal(rx('function\\s+\\w+Error\\(', true).alsoLiterals, undefined);
});

test('matcher: a case-insensitive k or s also matches the Kelvin sign and the long s, as in rg', () => {
  const spec = rx('(?i)kiss');
  assert.equal(spec.literalFolded, 'kiss');
  // Pure: the byte search is exact, and a region holding K or ſ takes a path whose lines are confirmed.
  assert.equal(spec.pure, true);
  assert.equal(rx('(?i)todo').pure, true);
  assert.ok(spec.line.test('\u212Ai\u017F\u017F'));
});

test('matcher: globs know their base, depth and whether they name hidden directories', () => {
  const g = (p: string) => {
    const r = compileGlob(p);
    assert.ok(r.ok, p);
    return r.value;
  };
  assert.deepEqual([g('src/**/*.ts').base, g('src/**/*.ts').maxDepth], ['src', Number.POSITIVE_INFINITY]);
  assert.deepEqual([g('*.go').base, g('*.go').maxDepth], ['', 1]);
  assert.deepEqual([g('a/b/*.md').base, g('a/b/*.md').maxDepth], ['a/b', 1]);
  assert.equal(g('.github/**').namesHidden, true);
  assert.equal(g('**/.env').namesHidden, true);
  assert.equal(g('{.vscode,src}/*').namesHidden, true);
  assert.equal(g('**/*.ts').namesHidden, false);
  assert.equal(g('*.ts').match('.eslintrc.ts'), false);
  assert.equal(g('**/*.ts').match('a/b/c.ts'), true);
});
