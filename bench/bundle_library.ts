/**
 * A checkout's built library, for probes that compare builds: the single file `dist/mewcode.mjs`, or
 * `dist/lib.mjs` in a checkout from before the single file came back.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

export function bundleLibraryUrl(checkout: string): string {
  const dist = path.join(path.resolve(checkout), 'dist');
  const older = path.join(dist, 'lib.mjs');
  return pathToFileURL(existsSync(older) ? older : path.join(dist, 'mewcode.mjs')).href;
}
