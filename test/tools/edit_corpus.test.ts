/**
 * The seeded edit corpus (bench/edits/) on several seeds: the matcher applies no case wrongly, applies
 * most of them rightly, and its refusals name the intended place first. Every whitespace mistake comes
 * in both variants — only old_string carries it ([old only]), or new_string carries it too ([both]) —
 * and each variant is held on its own: no wrong apply, most applied right. The corpus is built from
 * real files of this repository and node_modules, so it is reproducible for a checkout, not across
 * dependency upgrades; `npm run bench -- --edits --seed N` prints the full table.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildCorpus, exactOnly, mewcode, score } from '../../bench/edits/corpus.ts';
import { TOLERATED } from '../../bench/edits/mistakes.ts';

const VARIANTS = Object.keys(TOLERATED).filter((k) => k.endsWith('[old only]') || k.endsWith('[both]'));

test('the corpus has both variants of every whitespace mistake', () => {
  const bases = new Set(VARIANTS.map((k) => k.replace(/ \[.*\]$/, '')));
  assert.deepEqual([...bases].sort(), [
    'first-line indent dropped',
    'indent shifted',
    'tabs <-> spaces',
    'trailing ws added',
    'trailing ws dropped',
  ]);
  assert.equal(VARIANTS.length, 2 * bases.size);
});

for (const seed of [13, 7, 101]) {
  test(`edit corpus, seed ${seed}: 0 wrong applications in either variant, ≥60% applied right, ≥95% of refusals name the place`, () => {
    const { cases } = buildCorpus(seed);
    assert.ok(cases.length > 1000, `only ${cases.length} cases`);
    if (seed === 13) assert.equal(buildCorpus(13).cases.length, cases.length, 'the same seed builds the same corpus');
    const { tally, wrong, causes } = score(cases, mewcode);
    const all = tally.all;
    assert.ok(all);
    // Whitespace shifted or kept wrongly (kind 1), a blank line at the wrong place (kind 2): none at all.
    assert.deepEqual(
      causes.whitespace.map((c) => `${c.kind} ${c.file}:${c.places[0]?.join('-')}`),
      [],
    );
    assert.deepEqual(
      causes['blank line'].map((c) => `${c.kind} ${c.file}:${c.places[0]?.join('-')}`),
      [],
    );
    assert.deepEqual(
      wrong.map((c) => `${c.kind} ${c.file}:${c.places[0]?.join('-')}`),
      [],
      'no case may be applied wrongly',
    );
    for (const kind of VARIANTS) {
      const t = tally[kind];
      assert.ok(t, `no cases of ${kind}`);
      const n = t.right + t.WRONG + t['refused, right place'] + t['refused, useless'];
      assert.ok(n >= 5, `${kind}: only ${n} cases`);
      assert.equal(t.WRONG, 0, kind);
      assert.ok(t.right >= 0.75 * n, `${kind}: applied right ${t.right} of ${n}`);
    }
    assert.ok(all.right >= 0.6 * cases.length, `applied right: ${all.right} of ${cases.length}`);
    const refused = all['refused, right place'] + all['refused, useless'];
    assert.ok(
      all['refused, right place'] >= 0.95 * refused,
      `right place: ${all['refused, right place']} of ${refused}`,
    );
    // The corpus has teeth: the exact-only rule applies some of the same cases wrongly.
    assert.ok(score(cases, exactOnly).wrong.length > 0);
  });
}
