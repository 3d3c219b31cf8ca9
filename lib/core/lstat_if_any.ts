/**
 * The state of whatever is at a path, or undefined when nothing can be stat'ed there — for callers
 * that treat "gone" and "not reachable any more" alike. `lstatSync`'s `throwIfNoEntry: false` only
 * quiets ENOENT: a path whose parent was replaced by a file still throws ENOTDIR (and a directory
 * made unsearchable, EACCES), which in a watch listener would end the process.
 */
import { type BigIntStats, lstatSync, type Stats, statSync } from 'node:fs';

export function lstatIfAny(p: string): Stats | undefined {
  try {
    return lstatSync(p, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

/** As lstatIfAny, with the nanoseconds (bigint fields): for comparisons that must be exact. */
export function lstatBigIfAny(p: string): BigIntStats | undefined {
  try {
    return lstatSync(p, { bigint: true, throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

/** As lstatIfAny, following a symlink at the end: what the path leads to. */
export function statIfAny(p: string): Stats | undefined {
  try {
    return statSync(p, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

/** As statIfAny, with the nanoseconds. */
export function statBigIfAny(p: string): BigIntStats | undefined {
  try {
    return statSync(p, { bigint: true, throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}
