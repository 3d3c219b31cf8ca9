/**
 * A shard's listing (lib/search/listing.ts) carries every path back exactly — non-ASCII ones as
 * bytes, one that is not well-formed UTF-16 as a string — however large it grows and whatever the
 * writer before it left in the thread's buffer; the merge visits all runs' paths in path order with
 * their counts, stops when asked, and released bytes are gone.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { comparePaths } from '../../lib/search/compare_paths.ts';
import { eachListed, ListingWriter, releaseListings, type ShardListing } from '../../lib/search/listing.ts';

function write(paths: readonly string[], withCounts: boolean): ShardListing {
  const w = new ListingWriter(withCounts);
  paths.forEach((p, i) => {
    w.add(p, i + 1);
  });
  return w.done();
}

function visited(listings: readonly (ShardListing | undefined)[], stopAfter = Number.POSITIVE_INFINITY) {
  const out: [string, number][] = [];
  eachListed(listings, (rel, n) => {
    if (out.length >= stopAfter) return false;
    out.push([rel, n]);
    return true;
  });
  return out;
}

test('listing: paths come back exactly, as bytes or (not well-formed) as a string, past the buffer size', () => {
  const big = Array.from({ length: 30_000 }, (_, i) => `dir/é中😀-${String(i).padStart(6, '0')}.txt`); // ~1 MB
  const small = ['a.txt', 'b/c.txt'];
  const lone = ['a.txt', 'b\ud800.txt', 'c.txt'];
  for (const paths of [big, small, lone, big, []]) {
    const l = write(paths, true);
    assert.equal(
      typeof l.names === 'string',
      paths === lone || paths.length === 0,
      'bytes unless not well-formed or empty',
    );
    assert.deepEqual(
      l.counts,
      paths.map((_, i) => i + 1),
    );
    assert.deepEqual(
      visited([l]),
      paths.map((p, i) => [p, i + 1]),
    );
  }
  assert.deepEqual(visited([write(['x', 'y'], false)]), [
    ['x', 1],
    ['y', 1],
  ]);
});

test('listing: runs are merged in path order, each path once, and the merge stops when told', () => {
  const all = Array.from({ length: 5000 }, (_, i) => `d${i % 37}/${i % 2 ? 'x-' : 'x/'}${i}.txt`).sort(comparePaths);
  const runs = [0, 1, 2, 3, 4, 5, 6].map((k) => all.filter((_, i) => i % 7 === k));
  const listings = [undefined, ...runs.map((r) => write(r, false)), write([], false)];
  assert.deepEqual(
    visited(listings).map(([rel]) => rel),
    all,
  );
  assert.equal(visited(listings, 10).length, 10);
  releaseListings(listings);
  for (const l of listings)
    if (l && typeof l.names !== 'string' && l.names.length > 0) assert.equal(l.names.buffer.byteLength, 0);
});
