import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compileGlob, compileRegex, requiredLiteral } from '../../lib/search/matcher.ts';

const literals: [string, string | undefined][] = [
  ['TODO', 'TODO'],
  ['function\\s+\\w+Handler', 'function'],
  ['\\bstate\\b', 'state'],
  ['(user|order)Cache', 'Cache'],
  ['user|order', undefined],
  ['colou?r', 'colo'],
  ['ab*c', 'a'],
  ['x+yz', 'yz'],
  ['[A-Z]{5}', undefined],
  ['^\\s*$', undefined],
  ['\\.log\\(', '.log('],
  ['(?:foo)+bar', 'bar'],
  ['a{0,3}bcd', 'bcd'],
  ['\\{\\n\\s+// TODO', '// TODO'],
  ['\\d{3}-\\d{4}', '-'],
  ['(unclosed', undefined],
];
for (const [pattern, expected] of literals) {
  test(`matcher: the required literal of /${pattern}/ is ${JSON.stringify(expected)}`, () => {
    assert.equal(requiredLiteral(pattern), expected);
    if (expected === undefined) return;
    // Soundness: every string the regex matches contains the literal.
    const re = new RegExp(pattern);
    for (const sample of [
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
      '{\n   // TODO',
      '555-1234',
    ]) {
      if (re.test(sample)) assert.ok(sample.includes(expected), `${sample} matches /${pattern}/ but lacks ${expected}`);
    }
  });
}

test('matcher: case-insensitive patterns prefilter on an ASCII literal, case-sensitive ones on bytes', () => {
  const ci = compileRegex('Error \\d+', { ignoreCase: true, fixedStrings: false });
  assert.ok(ci.ok && ci.value.literalFolded === 'error ' && ci.value.literal === undefined);
  const cs = compileRegex('über', { ignoreCase: false, fixedStrings: false });
  assert.ok(cs.ok && cs.value.literal?.equals(Buffer.from('über')));
  const uni = compileRegex('\\p{Lu}+', { ignoreCase: false, fixedStrings: false });
  assert.ok(uni.ok && uni.value.line.unicode, '\\p{…} compiles with the u flag');
  const fixed = compileRegex('a.b(', { ignoreCase: false, fixedStrings: true });
  assert.ok(fixed.ok && fixed.value.line.test('xa.b(y') && !fixed.value.line.test('axb('));
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
