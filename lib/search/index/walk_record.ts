/**
 * Walk summaries kept beside the index file (`<index>.walks`), so a runtime that loads the index can
 * serve its first search of the root without a walk. A summary is written only when it describes the
 * tree as the build left it — learned by a runtime in which nothing changed the tree's shape since the
 * index came into use — and it is used only when the loading runtime's own check finds the same: no
 * directory and no ignore file changed since the build, no rule outside the tree changed, no indexed
 * file gone. The record names the index it belongs to (its build time and size); any other index, or
 * a record that does not read as one, is ignored. Best effort: a record that cannot be written is not
 * kept, and the next runtime walks. Main thread.
 */
import { closeSync, openSync, readFileSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { IGNORE_KINDS } from '../ignore_outer.ts';
import type { SkipCounts } from '../shards.ts';

/** One walk's summary (summary.ts `WalkSummary` without its shape): `key` is the search's. */
export interface KeptWalk {
  key: string;
  unindexed: string[];
  skipped: SkipCounts;
}

export interface WalkRecord {
  /** The index it belongs to. */
  builtAt: number;
  size: number;
  /** The rules outside the tree when the walks were made (sweep.ts `rulesOutsideWatches`). */
  rules: string;
  walks: KeptWalk[];
}

/** At most this many summaries of the root are kept (one per deny spec and search filter). */
const MAX_KEPT = 8;
/** A record larger than this is not read (a tree's unindexed paths fit many times over). */
const MAX_RECORD_BYTES = 64 * 1024 * 1024;
const REASONS = new Set<string>([...IGNORE_KINDS, 'hidden', 'denied']);

export const walkRecordFile = (indexFile: string) => `${indexFile}.walks`;

/** The record of `idx` kept beside `indexFile`, or undefined: none, another index's, or unreadable. */
export function readWalkRecord(indexFile: string, idx: { builtAt: number; size: number }): WalkRecord | undefined {
  let text: string;
  try {
    const b = readFileSync(walkRecordFile(indexFile));
    if (b.length > MAX_RECORD_BYTES) return undefined;
    text = b.toString('utf8');
  } catch {
    return undefined;
  }
  try {
    const r = JSON.parse(text) as WalkRecord;
    if (r?.builtAt !== idx.builtAt || r.size !== idx.size || typeof r.rules !== 'string') return undefined;
    if (!Array.isArray(r.walks) || r.walks.length > MAX_KEPT || !r.walks.every(validWalk)) return undefined;
    return r;
  } catch {
    return undefined;
  }
}

/** Writes `r` in place of the record beside `indexFile` (a new file renamed over it); false when it could not. */
export function writeWalkRecord(indexFile: string, r: WalkRecord): boolean {
  const file = walkRecordFile(indexFile);
  const tmp = `${file}.${process.pid}.${Date.now()}.tmp`;
  try {
    const fd = openSync(tmp, 'wx', 0o600);
    try {
      const b = Buffer.from(JSON.stringify({ ...r, walks: r.walks.slice(-MAX_KEPT) }));
      for (let done = 0; done < b.length; ) done += writeSync(fd, b, done, b.length - done);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, file);
    return true;
  } catch {
    try {
      unlinkSync(tmp);
    } catch {
      // never made
    }
    return false;
  }
}

/**
 * A summary as the index would have learned it: of the root, every path relative, inside the tree and without
 * NULs (a record naming `../x` would have a search read outside its root), known skip reasons.
 */
function validWalk(w: KeptWalk): boolean {
  // Only the root's walks are kept (service.ts `walkKey`: the walked directory first).
  if (
    typeof w?.key !== 'string' ||
    !w.key.startsWith('\0') ||
    !Array.isArray(w.unindexed) ||
    typeof w.skipped !== 'object' ||
    !w.skipped
  )
    return false;
  for (const u of w.unindexed) {
    if (typeof u !== 'string' || u === '' || u.startsWith('/') || u.includes('\0')) return false;
    if (u.split('/').some((part) => part === '' || part === '.' || part === '..')) return false;
  }
  return Object.entries(w.skipped).every(
    ([reason, c]) =>
      REASONS.has(reason) &&
      Number.isSafeInteger((c as { dirs: unknown })?.dirs) &&
      Number.isSafeInteger((c as { files: unknown })?.files),
  );
}
