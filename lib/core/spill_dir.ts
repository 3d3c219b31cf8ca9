/**
 * Where a root's spill files go: `<OS temp dir>/mewcode-spill-<uid>/<hash of the root's real path>`.
 * Both levels must be the user's own, as ssh treats ~/.ssh: created 0700 and refused when they are a
 * symlink, not a directory, owned by someone else, or writable by group or others — the temp dir is
 * shared, and whoever plants the name first would otherwise choose what read_file may read and what
 * the sweep of old files deletes. One directory per root, because read_file may read the spill files
 * of its own root and no other project's. Checked again on every use: it is a few syscalls, and a
 * spill is rare. A root's directory is made by its first spill and swept a day after its last, by
 * the first spill of a later process.
 * Runs wherever a tool runs (worker or main thread).
 */
import { createHash } from 'node:crypto';
import { lstatSync, mkdirSync, readdirSync, realpathSync, rmdirSync, rmSync, type Stats } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { errValue, okValue, type Result } from './result.ts';

/** Spill files older than this are removed when a process first uses a spill directory. */
const SPILL_TTL_MS = 24 * 60 * 60 * 1000;

const uid = () => process.geteuid?.() ?? process.getuid?.();

/** The per-user directory that holds every root's spill directory (not checked yet). */
export function spillBase(): string {
  let temp = tmpdir();
  try {
    temp = realpathSync.native(temp); // the gate compares real paths; the OS temp dir itself is trusted
  } catch {
    // a missing temp dir fails below, with the reason
  }
  return path.join(temp, `mewcode-spill-${uid() ?? 'user'}`);
}

/**
 * The spill directory of a root (its real path), or why it cannot be used. With `create: false` (the
 * path gate, at start) a missing per-root directory is not made: only a root that spills gets one.
 */
export function spillDirFor(root: string, { create = true } = {}): Result<string, string> {
  const base = spillBase();
  const own = ownDir(base, true);
  if (!own.ok) return own;
  const dir = path.join(base, createHash('sha256').update(root).digest('hex').slice(0, 16));
  const mine = ownDir(dir, create);
  if (!mine.ok) return mine;
  // Only a spill sweeps: the gate asks at every start, and a sweep lstats every spill file of every
  // root (thousands on a busy machine), a cost a one-shot grep must not pay.
  if (create) pruneOnce(base);
  return okValue(dir);
}

/**
 * Makes `dir` (0700) unless it exists or `create` is false, then accepts it only if it is the user's
 * own private directory (a missing one is accepted when not asked to create it).
 */
function ownDir(dir: string, create: boolean): Result<string, string> {
  try {
    if (create) mkdirSync(dir, { mode: 0o700 }); // never follows a symlink planted at the name: EEXIST instead
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST')
      return errValue(`the spill directory ${dir} cannot be created (${(e as NodeJS.ErrnoException).code ?? e})`);
  }
  let st: Stats;
  try {
    st = lstatSync(dir);
  } catch (e) {
    if (!create && (e as NodeJS.ErrnoException).code === 'ENOENT') return okValue(dir);
    return errValue(`the spill directory ${dir} cannot be checked (${(e as NodeJS.ErrnoException).code ?? e})`);
  }
  const fix = `remove it (rm -r ${dir}) and MewCode will create its own`;
  if (st.isSymbolicLink()) return errValue(`the spill directory ${dir} is a symbolic link; ${fix}`);
  if (!st.isDirectory()) return errValue(`the spill directory ${dir} is not a directory; ${fix}`);
  const me = uid();
  if (me !== undefined && st.uid !== me)
    return errValue(`the spill directory ${dir} belongs to uid ${st.uid}, not to you (uid ${me}); ${fix}`);
  if (st.mode & 0o022)
    return errValue(
      `the spill directory ${dir} is writable by others (mode ${(st.mode & 0o777).toString(8)}); chmod 700 it or ${fix}`,
    );
  return okValue(dir);
}

const pruned = new Set<string>();

/**
 * Removes spill files older than SPILL_TTL_MS from every root's directory, once per process. Only
 * regular files of the user's, in directories of the user's: lstat, so no link is ever followed.
 */
function pruneOnce(base: string): void {
  if (pruned.has(base)) return;
  pruned.add(base);
  const cutoff = Date.now() - SPILL_TTL_MS;
  const me = uid();
  const mine = (st: Stats) => me === undefined || st.uid === me;
  const entries = (dir: string) => {
    try {
      return readdirSync(dir);
    } catch {
      return [];
    }
  };
  for (const sub of entries(base)) {
    const dir = path.join(base, sub);
    const dst = lstatOrNull(dir);
    if (!dst?.isDirectory() || !mine(dst)) continue;
    for (const name of entries(dir)) {
      const file = path.join(dir, name);
      const st = lstatOrNull(file);
      if (name.endsWith('.txt') && st?.isFile() && mine(st) && st.mtimeMs < cutoff) rmSync(file, { force: true });
    }
    // A root that has not spilled for a day gives its directory back (a spill makes it again).
    if (dst.mtimeMs < cutoff && entries(dir).length === 0) {
      try {
        rmdirSync(dir); // fails harmlessly if a spill landed meanwhile
      } catch {
        // not empty any more
      }
    }
  }
}

function lstatOrNull(p: string): Stats | null {
  try {
    return lstatSync(p);
  } catch {
    return null; // removed meanwhile (another process pruning)
  }
}
