/**
 * Keeping the journal bounded: entries older than the age limit go, then the oldest entries until
 * the blobs the rest hold fit the size cap; the newest entry always stays, so the last change can be
 * undone whatever its size. Blobs no remaining entry names are deleted. Runs under the journal's lock.
 * Main thread.
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import type { Entry } from './entries.ts';
import type { JournalStore } from './store.ts';

export interface Bounds {
  /** Bytes of blobs kept at most (default 1 GiB). */
  maxBytes: number;
  /** Age of the oldest entry kept, in ms (default 30 days). */
  maxAgeMs: number;
}

export const DEFAULT_BOUNDS: Bounds = { maxBytes: 1024 ** 3, maxAgeMs: 30 * 24 * 60 * 60 * 1000 };

/** Inline bytes the index keeps at most, whatever the cap: the index is read whole, as one string. */
const MAX_INLINE = 128 * 1024 ** 2;

const blobsOf = (e: Entry) => e.files.flatMap((f) => [f.b, f.a]).filter((i) => i !== null);

/** The entries to keep (newest first until one is too old or too much) and the bytes their blobs take. */
export function keep(entries: readonly Entry[], bounds: Bounds, now: number): { kept: Entry[]; bytes: number } {
  const seen = new Set<string>();
  let bytes = 0;
  let inline = 0;
  let first = entries.length;
  for (let i = entries.length - 1; i >= 0; i--) {
    const e = entries[i] as Entry;
    let more = 0;
    let moreInline = 0;
    // An inline image is stored in every entry that holds it; a blob once.
    for (const b of blobsOf(e))
      if (b.d !== undefined) moreInline += b.d.length;
      else if (!seen.has(b.h)) more += b.n;
    const newest = i === entries.length - 1;
    const tooMuch = bytes + more + moreInline > bounds.maxBytes || inline + moreInline > MAX_INLINE;
    if (!newest && (now - e.t > bounds.maxAgeMs || tooMuch)) break;
    for (const b of blobsOf(e)) if (b.d === undefined) seen.add(b.h);
    bytes += more + moreInline;
    inline += moreInline;
    first = i;
  }
  return { kept: entries.slice(first), bytes };
}

/** Collects the journal now (call under its lock); the bytes its blobs take afterwards. */
export function collect(store: JournalStore, bounds: Bounds, now = Date.now()): number {
  const entries = store.read();
  const { kept, bytes } = keep(entries, bounds, now);
  if (kept.length === entries.length) return bytes;
  store.rewrite(kept);
  const live = new Set(kept.flatMap((e) => blobsOf(e).flatMap((b) => (b.d === undefined ? [b.h] : []))));
  const objects = path.join(store.dir, 'objects');
  for (const sub of list(objects))
    for (const name of list(path.join(objects, sub))) {
      const hash = `${sub}${name}`;
      if (/^[0-9a-f]{64}$/.test(hash) && !live.has(hash)) store.removeBlob(hash);
    }
  return bytes;
}

function list(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}
