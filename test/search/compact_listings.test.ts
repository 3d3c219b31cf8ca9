import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CompactListings, type DirEntry } from '../../lib/search/compact_listings.ts';

const key = { dev: 2049, ino: 2 ** 53 - 1, mtimeMs: 1_700_000_000_123.456, ctimeMs: 1_700_000_000_789.012 };
const entries: DirEntry[] = [
  { name: 'a', kind: 'file' },
  { name: 'é 日本 😀', kind: 'dir' },
  { name: 'l\nnk', kind: 'symlink' },
  { name: 'fifo', kind: 'other' },
];

test('compact listings: a listing comes back whole only for the exact key it was kept with', () => {
  const store = new CompactListings();
  store.set('/t/d', key, entries);
  assert.deepEqual(store.get('/t/d', key), entries);
  for (const field of ['dev', 'ino', 'mtimeMs', 'ctimeMs'] as const) {
    assert.equal(store.get('/t/d', { ...key, [field]: key[field] + (field === 'ino' ? -1 : 0.001) }), undefined, field);
  }
  assert.equal(store.get('/t/other', key), undefined);
  store.set('/t/empty', key, []);
  assert.deepEqual(store.get('/t/empty', key), []);
});

test('compact listings: deleted and replaced listings never come back, their slots reused', () => {
  const store = new CompactListings();
  for (let i = 0; i < 3000; i++) store.set(`/t/${i}`, { ...key, ino: i }, [{ name: `n${i}`, kind: 'file' }]);
  assert.equal(store.size, 3000);
  store.delete('/t/7');
  assert.equal(store.get('/t/7', { ...key, ino: 7 }), undefined);
  store.set('/t/new', { ...key, ino: 9999 }, [{ name: 'fresh', kind: 'dir' }]); // takes slot 7
  assert.deepEqual(store.get('/t/new', { ...key, ino: 9999 }), [{ name: 'fresh', kind: 'dir' }]);
  assert.deepEqual(store.get('/t/2999', { ...key, ino: 2999 }), [{ name: 'n2999', kind: 'file' }]);
  store.set('/t/8', { ...key, ino: 80 }, [{ name: 'changed', kind: 'file' }]);
  assert.equal(store.get('/t/8', { ...key, ino: 8 }), undefined, 'the old key no longer serves');
  assert.deepEqual(store.get('/t/8', { ...key, ino: 80 }), [{ name: 'changed', kind: 'file' }]);
  store.clear();
  assert.equal(store.size, 0);
  assert.equal(store.get('/t/8', { ...key, ino: 80 }), undefined);
});
