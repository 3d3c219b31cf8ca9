/**
 * Path values shared by every layer: `CheckedPath`, the type every file helper accepts, and the two
 * pure helpers that compare and show paths. Only the path gate (lib/policy/path_gate.ts) produces a
 * `CheckedPath`; everything else only passes one on.
 */
import path from 'node:path';

declare const checked: unique symbol;
/** An absolute real path that passed the path gate. */
export type CheckedPath = string & { readonly [checked]: true };

/** True when `p` is `dir` or below it, compared by whole components (`/r` does not contain `/r-evil`). */
export function inside(p: string, dir: string): boolean {
  if (p === dir) return true;
  const prefix = dir.endsWith(path.sep) ? dir : dir + path.sep;
  return p.startsWith(prefix);
}

/** How a path is shown to the model: relative to the root with `/` separators, or absolute outside it. */
export function displayPath(root: string, p: string): string {
  if (p === root) return '.';
  if (inside(p, root)) return path.relative(root, p).split(path.sep).join('/');
  return p;
}
