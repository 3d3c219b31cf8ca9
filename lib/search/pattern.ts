/**
 * The search façade's pattern: grep's pattern compiled once on a thread, whoever asks for it in a
 * call — the tool (does it compile, may it run on the main thread?), the index's planner (its required
 * literals) and an inline shard (its scanner). A worker compiles
 * it once for all the shards of a search it is handed. Compiling is pure, so a compiled pattern is
 * kept for the next asker; the scanners it holds are reset by every user before use (hits.ts).
 */
import type { Result } from '../core/result.ts';
import { INLINE_MAX_PATTERN } from './linear_pattern.ts';
import { compileRegex, type RegexOptions, type RegexSpec } from './matcher.ts';

export interface SearchPattern {
  readonly source: string;
  readonly options: Readonly<RegexOptions>;
  readonly spec: RegexSpec;
  /** It cannot backtrack and is short enough to run on the main thread, where nothing could stop it. */
  readonly inlineSafe: boolean;
}

/** Patterns kept per thread: a search's own, with room for a few calls running side by side. */
const KEPT = 16;
const kept = new Map<string, Result<SearchPattern, string>>();

export function compilePattern(source: string, o: RegexOptions): Result<SearchPattern, string> {
  const options = { ignoreCase: o.ignoreCase, fixedStrings: o.fixedStrings, multiline: o.multiline ?? false };
  const key = JSON.stringify([source, options.ignoreCase, options.fixedStrings, options.multiline]);
  const hit = kept.get(key);
  if (hit) {
    kept.delete(key); // most recently used last
    kept.set(key, hit);
    return hit;
  }
  const spec = compileRegex(source, options);
  const made: Result<SearchPattern, string> = spec.ok
    ? {
        ok: true,
        value: {
          source,
          options,
          spec: spec.value,
          inlineSafe: spec.value.linear && source.length <= INLINE_MAX_PATTERN,
        },
      }
    : spec;
  kept.set(key, made);
  if (kept.size > KEPT) kept.delete(kept.keys().next().value as string);
  return made;
}
