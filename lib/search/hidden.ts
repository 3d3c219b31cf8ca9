/**
 * Entries searched although hidden or ignored, as in ripgrep: a file grep's positive glob names is
 * searched whatever ignore files and the hidden rule say (rg's `-g` is an override: `-g '*.ts'`
 * searches `.prettierrc.ts`, `-g '*.log'` searches ignored logs — in directories the walk enters; an
 * ignored or hidden directory stays unvisited); a hidden entry an ignore file re-includes by a `!`
 * rule (`!.env`) is not hidden. The globs are matched exactly as grep's file filter matches it
 * (shards.ts), so what is admitted here is what the filter then keeps. It is also tested while
 * planning shards on the main thread, so grep passes it only when `boundedGlob` allows it there.
 */
import { globVerdict } from './file_types.ts';
import { IgnoreRules, type Layer } from './ignore.ts';

let cached: { key: string; test: (rel: string) => boolean | undefined } | undefined;

/** Whether grep's globs name this file: the last glob that matches it is a positive one. */
export function globNames(o: { fileGlobs?: readonly string[] }, rel: string, isDir: boolean): boolean {
  if (isDir || !o.fileGlobs?.length) return false;
  const key = o.fileGlobs.join('\0');
  if (cached?.key !== key) cached = { key, test: globVerdict(o.fileGlobs) };
  return cached.test(rel) === true;
}

/** Whether an ignore file re-includes this hidden entry by a `!` rule. */
export function reincluded(o: { useIgnore: boolean }, stack: readonly Layer[], rel: string, isDir: boolean): boolean {
  return o.useIgnore && IgnoreRules.match(stack, rel, isDir)?.verdict === 'unignored';
}
