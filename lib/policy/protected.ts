/**
 * Protected locations: places inside the root that no write reaches unless an --allow-write path
 * inside them names them — git's internals (hooks there run as the user) and MewCode's own settings
 * (a settings file can widen every permission). One list, for the policy and the docs.
 */
import path from 'node:path';
import { inside } from '../core/paths.ts';

export interface ProtectedLocation {
  /** Relative to the root, with `/`. */
  path: string;
  /** What it is, for the refusal. */
  what: string;
  /** Matches this location (a path relative to the root, with `/`). */
  covers(rel: string): boolean;
}

export const PROTECTED_LOCATIONS: readonly ProtectedLocation[] = [
  { path: '.git', what: 'git internals', covers: (rel) => rel === '.git' || rel.startsWith('.git/') },
  {
    path: '.mewcode/settings*.json',
    what: 'MewCode settings',
    covers: (rel) => /^\.mewcode\/settings[^/]*\.json$/.test(rel),
  },
];

/** The protected location an absolute path lies in, if any. */
export function protectedLocation(root: string, p: string): ProtectedLocation | undefined {
  if (!inside(p, root)) return undefined;
  const rel = path.relative(root, p).split(path.sep).join('/');
  return PROTECTED_LOCATIONS.find((l) => l.covers(rel));
}
