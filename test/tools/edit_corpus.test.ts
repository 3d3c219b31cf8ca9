/**
 * The seeded edit corpus (bench/edits/) on a fixed seed: the matcher applies no case wrongly, applies
 * most of them rightly, and its refusals name the intended place first. The corpus is built from real
 * files of this repository and node_modules, so it is reproducible for a checkout, not across
 * dependency upgrades; `npm run bench -- --edits` prints the full table.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildCorpus, exactOnly, mewcode, score } from '../../bench/edits/corpus.ts';

test('edit corpus, seed 13: 0 wrong applications, ≥60% applied right, ≥95% of refusals name the place', () => {
  const { cases } = buildCorpus(13);
  assert.ok(cases.length > 1000, `only ${cases.length} cases`);
  assert.equal(buildCorpus(13).cases.length, cases.length, 'the same seed builds the same corpus');
  const { tally, wrong } = score(cases, mewcode);
  const all = tally.all;
  assert.ok(all);
  assert.deepEqual(
    wrong.map((c) => `${c.kind} ${c.file}:${c.places[0]?.join('-')}`),
    [],
    'no case may be applied wrongly',
  );
  assert.ok(all.right >= 0.6 * cases.length, `applied right: ${all.right} of ${cases.length}`);
  const refused = all['refused, right place'] + all['refused, useless'];
  assert.ok(all['refused, right place'] >= 0.95 * refused, `right place: ${all['refused, right place']} of ${refused}`);
  // The corpus has teeth: the exact-only rule applies some of the same cases wrongly.
  assert.ok(score(cases, exactOnly).wrong.length > 0);
});
