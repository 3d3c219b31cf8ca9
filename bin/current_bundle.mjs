/**
 * Whether the checkout's dist/ (scripts/build.ts) is current: built from the sources as they are now.
 * dist/build.json lists every source file the build read and when it was built; a listed file that is
 * gone or was modified after the build makes it stale. One stat per source (~150), about a millisecond.
 * A package installed from `npm pack` has every mtime set to 1985, older than any build: current.
 * Plain JavaScript, so it runs before (and without) tsx.
 */
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

/** The URL of the current bundle's entry under `root`, or undefined (none, stale, or MEWCODE_FROM_SOURCE=1). */
export function currentBundle(root) {
  if (process.env.MEWCODE_FROM_SOURCE === '1') return undefined;
  let info;
  try {
    info = JSON.parse(readFileSync(path.join(root, 'dist', 'build.json'), 'utf8'));
  } catch {
    return undefined;
  }
  if (typeof info?.builtAt !== 'number' || !Array.isArray(info.sources) || typeof info.entry !== 'string')
    return undefined;
  for (const rel of info.sources) {
    const st = statSync(path.join(root, rel), { throwIfNoEntry: false });
    if (!st || st.mtimeMs > info.builtAt) return undefined;
  }
  return pathToFileURL(path.join(root, 'dist', info.entry)).href;
}
