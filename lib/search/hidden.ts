/**
 * Entries searched although hidden or ignored, as in ripgrep: a file grep's positive glob names is
 * searched whatever ignore files and the hidden rule say (rg's `-g` is an override: `-g '*.ts'`
 * searches `.prettierrc.ts`, `-g '*.log'` searches ignored logs — in directories the walk enters; an
 * ignored or hidden directory stays unvisited); a hidden entry an ignore file re-includes by a `!`
 * rule (`!.env`) is not hidden. The glob is matched exactly as grep's file filter matches it
 * (shards.ts), so what is admitted here is what the filter then keeps. It is also tested while
 * planning shards on the main thread, so grep passes it only when `boundedGlob` allows it there.
 */
import picomatch from 'picomatch';
import { IgnoreRules, type Layer } from './ignore.ts';

let cached: { glob: string; test: (rel: string) => boolean } | undefined;

function globTest(glob: string): (rel: string) => boolean {
  if (cached?.glob !== glob) cached = { glob, test: picomatch(glob, { dot: true, basename: !glob.includes('/') }) };
  return cached.test;
}

/** Whether grep's glob names this file (a negated glob names nothing). */
export function globNames(o: { fileGlob?: string }, rel: string, isDir: boolean): boolean {
  return !isDir && o.fileGlob !== undefined && !o.fileGlob.startsWith('!') && globTest(o.fileGlob)(rel);
}

/** Whether an ignore file re-includes this hidden entry by a `!` rule. */
export function reincluded(o: { useIgnore: boolean }, stack: readonly Layer[], rel: string, isDir: boolean): boolean {
  return o.useIgnore && IgnoreRules.match(stack, rel, isDir)?.verdict === 'unignored';
}
