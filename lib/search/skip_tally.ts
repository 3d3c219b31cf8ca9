/** What a search's walk and shards skipped, added together into one tally by reason. */
import type { SkipTally } from '../core/answers.ts';
import type { SkipCounts } from './shards.ts';

/** Adds skip counts together. */
export function mergeSkipped(all: readonly SkipCounts[]): SkipTally {
  const out: SkipTally = {};
  for (const s of all) {
    for (const [k, c] of Object.entries(s) as [keyof SkipTally, { dirs: number; files: number }][]) {
      const t = out[k] ?? { dirs: 0, files: 0 };
      t.dirs += c.dirs;
      t.files += c.files;
      out[k] = t;
    }
  }
  return out;
}
