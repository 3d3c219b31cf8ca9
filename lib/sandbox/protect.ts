/**
 * Keeping the protected locations (lib/policy/protected.ts) read-only inside the sandbox, whether they
 * exist or not. An existing entry is bound read-only onto itself: it is then a mount point in the
 * sandbox, which cannot be written, renamed, replaced or removed there (EROFS, EBUSY). A missing one
 * gets a placeholder — an empty directory made here, on the host, because a bind mount needs a mount
 * point and the root is the host's directory — bound the same way, so it cannot be created either.
 * A symlink cannot be held in place by a mount (the mount lands on its target and the link itself
 * stays replaceable), so a root whose `.git` or `.mewcode` is a symlink is refused.
 *
 * Placeholders are removed when the last sandbox that may use them is gone, and only while they are
 * still the empty directory made here (same device and inode). "May use" is tracked across
 * processes: every command registers a use under a per-root lock before bubblewrap starts, and the
 * placeholders go only when no use is left. Removing one while another sandbox still has it mounted
 * would detach that sandbox's mount (the kernel unmounts a mount point deleted in another mount
 * namespace), after which that sandbox could create the entry. Main thread, synchronous.
 */
import { createHash, randomBytes } from 'node:crypto';
import {
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  renameSync,
  rmdirSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { inside } from '../core/paths.ts';
import { errValue, okValue, type Result } from '../core/result.ts';
import { PROTECTED_LOCATIONS } from '../policy/protected.ts';
import { gitdirsOf } from './exposed.ts';
import { errText, thisProcess, withLock } from './state.ts';
import { sandboxGone, type Use } from './status.ts';

interface Placeholder {
  path: string;
  dev: number;
  ino: number;
}

interface State {
  placeholders: Placeholder[];
  uses: Use[];
}

interface Protection {
  /** bubblewrap arguments that bind every protected location read-only; they follow the root's bind. */
  args: string[];
  use: Use;
}

const keyOf = (root: string) => `root-${createHash('sha256').update(root).digest('hex').slice(0, 32)}`;

/** Registers a use of the root and returns the binds that protect it; creates the missing placeholders. */
export function protectRoot(root: string, dir: string): Result<Protection, string> {
  const key = keyOf(root);
  const use: Use = {
    id: randomBytes(8).toString('hex'),
    owner: thisProcess(),
    status: path.join(dir, `${key}-${process.pid}-${randomBytes(6).toString('hex')}.status`),
    created: Date.now(),
  };
  const locked = withLock(dir, key, (): Result<Protection, string> => {
    const state = pruned(loadState(dir, key));
    const args: string[] = [];
    for (const loc of PROTECTED_LOCATIONS) {
      const p = path.join(root, loc.name);
      const entry = ensureEntry(p, state);
      if (!entry.ok) {
        saveState(dir, key, pruned(state)); // placeholders made for this command go again
        return entry;
      }
      if (entry.value) args.push('--ro-bind', p, p);
    }
    // A `.git` file (a worktree, a submodule) names the real git directory: inside the root it is as
    // writable as the root, so it is protected too, with a worktree's common directory.
    for (const g of gitdirsOf(root)) if (inside(g, root) && g !== root) args.push('--ro-bind', g, g);
    writeFileSync(use.status, '', { mode: 0o600 });
    state.uses.push(use);
    saveState(dir, key, state);
    return okValue({ args, use });
  });
  return locked.ok ? locked.value : locked;
}

/** Ends a use; when it was the last one, removes the placeholders that are still empty and ours. */
export function releaseUse(root: string, dir: string, use: Use): void {
  const key = keyOf(root);
  withLock(dir, key, () => {
    const state = loadState(dir, key);
    state.uses = state.uses.filter((u) => u.id !== use.id);
    saveState(dir, key, pruned(state));
  });
  removeQuietly(use.status);
}

/**
 * The entry exists (and is not a symlink: bind it), a placeholder now stands in for it (bind it), or
 * the root cannot take it at all (a read-only file system, a directory this user may not write — the
 * sandbox, with the same user and no capabilities, cannot create it either: nothing to bind).
 */
function ensureEntry(p: string, state: State): Result<boolean, string> {
  for (let tries = 0; tries < 3; tries++) {
    try {
      const st = lstatSync(p);
      if (st.isSymbolicLink())
        return errValue(
          `${path.basename(p)} in the root is a symbolic link (to ${quoteLink(p)}); the sandbox can keep a real directory read-only, not a link. Replace the link with the directory it points to, or run without --sandbox`,
        );
      return okValue(true);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') return errValue(`cannot inspect ${p}: ${errText(e)}`);
    }
    try {
      mkdirSync(p, { mode: 0o755 });
      const st = lstatSync(p);
      state.placeholders.push({ path: p, dev: st.dev, ino: st.ino });
      return okValue(true);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'EROFS' || code === 'EACCES' || code === 'EPERM') return okValue(false);
      if (code !== 'EEXIST') return errValue(`cannot create ${p}: ${errText(e)}`);
      // made by someone else just now: inspect it again
    }
  }
  return errValue(`${p} keeps changing; run the command again`);
}

/** Drops uses whose sandbox is gone; with none left, removes the placeholders. */
function pruned(state: State): State {
  state.uses = state.uses.filter((u) => {
    if (!sandboxGone(u)) return true;
    removeQuietly(u.status);
    return false;
  });
  if (state.uses.length > 0) return state;
  for (const ph of state.placeholders) {
    try {
      const st = lstatSync(ph.path);
      // Only the empty directory made here: a real entry someone created since is left alone.
      if (st.isDirectory() && st.dev === ph.dev && st.ino === ph.ino && readdirSync(ph.path).length === 0)
        rmdirSync(ph.path);
    } catch {
      // already gone, or no longer ours
    }
  }
  state.placeholders = [];
  return state;
}

function loadState(dir: string, key: string): State {
  try {
    const s = JSON.parse(readFileSync(path.join(dir, `${key}.json`), 'utf8')) as State;
    return { placeholders: s.placeholders ?? [], uses: s.uses ?? [] };
  } catch {
    return { placeholders: [], uses: [] };
  }
}

function saveState(dir: string, key: string, state: State): void {
  const file = path.join(dir, `${key}.json`);
  if (state.uses.length === 0 && state.placeholders.length === 0) {
    removeQuietly(file);
    return;
  }
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(state), { mode: 0o600 });
  renameSync(tmp, file);
}

function removeQuietly(file: string): void {
  try {
    unlinkSync(file);
  } catch {
    // already gone
  }
}

function quoteLink(p: string): string {
  try {
    return JSON.stringify(readlinkSync(p));
  } catch {
    return '?';
  }
}

/** How many sandboxed commands may be using the root's placeholders right now (for tests and diagnostics). */
export function usesOf(root: string, dir: string): number {
  return loadState(dir, keyOf(root)).uses.length;
}
