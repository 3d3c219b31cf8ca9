/**
 * When a hidden entry is searched after all, as in ripgrep: an ignore file re-includes it by a `!`
 * rule (`!.env`), or — for a file, never a directory — grep's positive glob names it (`-g '*.ts'`
 * searches `.prettierrc.ts`, while `.github/` stays unvisited). The glob is matched exactly as grep's
 * file filter matches it (shards.ts), so what is admitted here is what the filter then keeps.
 */
import picomatch from 'picomatch';
import { IgnoreRules, type Layer } from './ignore.ts';

let cached: { glob: string; test: (rel: string) => boolean } | undefined;

function globTest(glob: string): (rel: string) => boolean {
  if (cached?.glob !== glob) cached = { glob, test: picomatch(glob, { dot: true, basename: !glob.includes('/') }) };
  return cached.test;
}

export function hiddenAdmitted(
  o: { useIgnore: boolean; hiddenGlob?: string },
  stack: readonly Layer[],
  rel: string,
  isDir: boolean,
): boolean {
  if (!isDir && o.hiddenGlob !== undefined && !o.hiddenGlob.startsWith('!') && globTest(o.hiddenGlob)(rel)) return true;
  return o.useIgnore && IgnoreRules.match(stack, rel, isDir)?.verdict === 'unignored';
}
