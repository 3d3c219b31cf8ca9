/**
 * Protected locations: entries of the root that nothing the model runs may change — git's internals
 * (`.git/`: hooks and `core.fsmonitor` in its config run as the user on the next git command) and
 * MewCode's own directory (`.mewcode/`: its settings can widen every permission and add hooks that
 * run on the host, its skills are instructions the model follows). One list, used by the write tools
 * (the policy's `protected` step refuses writes in them unless an --allow-write path inside them names
 * them), by the sandbox (lib/sandbox/protect.ts keeps each one read-only inside bubblewrap,
 * whether it exists or not, grants or not) and by the README.
 */
import path from 'node:path';
import { inside } from '../core/paths.ts';

interface ProtectedLocation {
  /** The entry's name in the root (a single path component). */
  name: string;
  /** What it is, for the refusal. */
  what: string;
}

export const PROTECTED_LOCATIONS: readonly ProtectedLocation[] = [
  { name: '.git', what: 'git internals: hooks and config run as you' },
  { name: '.mewcode', what: 'MewCode settings, hooks and skills' },
];

/** The protected location an absolute path lies in (the entry itself or anything below it), if any. */
export function protectedLocation(root: string, p: string): ProtectedLocation | undefined {
  if (!inside(p, root) || p === root) return undefined;
  const first = path.relative(root, p).split(path.sep)[0];
  return PROTECTED_LOCATIONS.find((l) => l.name === first);
}
