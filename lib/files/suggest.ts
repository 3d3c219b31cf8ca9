/**
 * File helpers private to the tools: "did you mean" names for a missing path. Accept only checked
 * paths. Run in whichever lane the calling tool runs in.
 */
import { closeSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fdPath, openExactDir } from '../core/descriptors.ts';
import { type CheckedPath, inside } from '../core/paths.ts';

/** Up to `max` names near a missing path that look like what was meant, shown relative to the root. */
export function similarNames(root: string, missing: CheckedPath, max = 3): string[] {
  // Walk up to the nearest directory that exists; the component below it is what was misspelt.
  let dir = path.dirname(missing);
  let wanted = path.basename(missing);
  while (!isDir(dir) && inside(path.dirname(dir), root) && dir !== root) {
    wanted = path.basename(dir);
    dir = path.dirname(dir);
  }
  if (!inside(dir, root) || !isDir(dir)) return [];
  // Listed through a descriptor checked to be `dir` itself: a directory swapped for a symlink since
  // must not show names from wherever it points.
  const opened = openExactDir(dir);
  if (!opened.ok) return [];
  let entries: import('node:fs').Dirent[];
  try {
    entries = readdirSync(fdPath(opened.value), { withFileTypes: true }).slice(0, 10_000);
  } catch {
    return [];
  } finally {
    closeSync(opened.value);
  }
  const scored: { name: string; score: number }[] = [];
  for (const e of entries) {
    const score = similarity(wanted, e.name);
    if (score < Number.POSITIVE_INFINITY) scored.push({ name: e.name + (e.isDirectory() ? '/' : ''), score });
  }
  scored.sort((a, b) => a.score - b.score || a.name.localeCompare(b.name));
  return scored.slice(0, max).map((s) => {
    const rel = path.relative(root, path.join(dir, s.name)).split(path.sep).join('/');
    return s.name.endsWith('/') && !rel.endsWith('/') ? `${rel}/` : rel;
  });
}

/** Lower is closer; infinity means unrelated. */
function similarity(wanted: string, name: string): number {
  const a = wanted.toLowerCase();
  const b = name.toLowerCase();
  if (a === b) return 0;
  const stem = (s: string) => (s.lastIndexOf('.') > 0 ? s.slice(0, s.lastIndexOf('.')) : s);
  if (stem(a) === stem(b)) return 1; // same name, other extension
  // A misspelt stem with any extension counts too (`mian.ts` → `main.tsx`).
  const allowed = Math.max(2, Math.floor(Math.min(a.length, b.length) / 3));
  const d = levenshtein(a, b, 8);
  if (d <= allowed) return 1 + d;
  const ds = levenshtein(stem(a), stem(b), 8);
  if (ds <= allowed) return 2 + ds;
  if (b.startsWith(a) || a.startsWith(b)) return 10;
  return Number.POSITIVE_INFINITY;
}

/** Edit distance, giving up (returning `cap + 1`) once it must exceed `cap`. */
function levenshtein(a: string, b: string, cap: number): number {
  if (Math.abs(a.length - b.length) > cap) return cap + 1;
  let prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const v = Math.min(
        (prev[j] ?? 0) + 1,
        (cur[j - 1] ?? 0) + 1,
        (prev[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
      cur.push(v);
      rowMin = Math.min(rowMin, v);
    }
    if (rowMin > cap) return cap + 1;
    prev = cur;
  }
  return prev[b.length] ?? cap + 1;
}

function isDir(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}
