/**
 * Change tracking between index builds, for a warm runtime: one inotify watch (fs.watch) per indexed
 * directory. Any event names the entry that changed; the caller marks it (and, for a directory,
 * everything indexed below it) as changed, which makes it a candidate of every search until the next
 * build. Events are delivered by the event loop, so a search first lets one I/O poll pass
 * (`drainEvents`): a change made before the search began is then known. Main thread.
 */
import { type FSWatcher, readFileSync, watch } from 'node:fs';
import path from 'node:path';
import { lstatBigIfAny } from '../../core/lstat_if_any.ts';
import { baseOf, dirOf } from '../rel_paths.ts';

/**
 * How many events the kernel queues before it drops the rest (fs.inotify.max_queued_events). The
 * process has one inotify queue, shared by every watch; libuv empties it in one read of a poll phase
 * and drops the kernel's overflow notice, so a burst this large between two check phases (an install
 * or checkout while the main thread was busy) may have lost events no watch reports: every watch of
 * the process is then taken to have missed something. (A watch opened outside this module shares the
 * queue uncounted.)
 */
const QUEUE_LIMIT = (() => {
  try {
    return Number(readFileSync('/proc/sys/fs/inotify/max_queued_events', 'utf8')) || 16384;
  } catch {
    return 16384;
  }
})();
const onOverflow = new Set<() => void>();
let burst = 0;
function counted(): void {
  if (burst++ === 0) setImmediate(() => (burst = 0));
  if (burst === QUEUE_LIMIT) for (const f of onOverflow) f();
}

export interface DirWatch {
  /**
   * Watches exactly `dirs` from now on: a rebuild keeps the watches of the directories it still
   * indexes (15k watches cost ~0.3 s to close and reopen, and their memory twice until collected).
   * Call it once the events already queued are delivered (`drainEvents`): a watch is taken for
   * replaced by what an event reported (its death, or its entry named by its parent's watch). A
   * directory that cannot be watched (gone since it was walked) is reported lost and tried again by
   * the next update. False when the system refuses a watch (then nothing is watched any more).
   */
  update(dirs: Iterable<string>): boolean;
  /**
   * Watches `dir` as well (the others as they are), anew if its watch died or follows another inode:
   * 'opened' when a watch began now, 'had' when a live one was kept, 'gone' when the directory could
   * not be watched (reported lost), 'refused' when the system took no more (nothing is watched then).
   */
  add(dir: string): 'opened' | 'had' | 'gone' | 'refused';
  /**
   * Stops watching `dir` now: a directory gone from the tree. (libuv shares one kernel watch among
   * the watches of one inode and names its own events by the first one's path: a watch of a directory
   * renamed away, left open while the new name is watched, would hide the new one's death.)
   */
  remove(dir: string): void;
  /** The watch of `dir` is dead (its directory removed or moved) or follows another inode: unwatched. */
  replaced(dir: string): boolean;
  /**
   * When (performance.now()) the live watch of `dir` began, undefined when there is none or it died:
   * a change to an entry of `dir` after that raised an event.
   */
  watchedSince(dir: string): number | undefined;
  close(): void;
}

const STATE = Symbol('watch state');

/** Errors of fs.watch that say the system will take no more watches, not that one directory is gone. */
const SYSTEM_REFUSALS = new Set(['ENOSPC', 'EMFILE', 'ENFILE', 'ENOMEM']);

/** What a watch knows of itself: its directory, the inode it was opened on, when it began, if it died. */
class WatchState {
  readonly dir: string;
  /** The directory's identity when the watch opened: inode and birth time (file systems reuse inodes). */
  readonly id: string;
  readonly since: number;
  dead = false;
  constructor(dir: string, id: string, since: number) {
    this.dir = dir;
    this.id = id;
    this.since = since;
  }
}

type Watched = FSWatcher & { [STATE]: WatchState };

/**
 * Watches `dirs` (relative to `root`); `changed(rel, named)` gets the entry's path relative to the
 * root and whether the event named it — else `rel` is the directory itself (an event naming nothing,
 * or a failed watch); `lost` says the watch itself may be dead (its directory was removed or moved
 * away: new files in one made again under the name would go unseen, or it could not be watched).
 * Undefined when the system refuses a watch (too many: max_user_watches); then the caller checks
 * files by their state instead.
 */
export function watchDirs(
  root: string,
  dirs: Iterable<string>,
  changed: (rel: string, named: boolean, lost?: boolean) => void,
): DirWatch | undefined {
  // Each watch with the inode it was opened on: a directory replaced under the same name since
  // (renamed away, made anew) is watched again, else its new files would go unseen. The inode alone
  // cannot tell (a directory removed and made again often gets the same number): a watch whose
  // directory went away reports an event naming the directory itself (libuv names self-events by the
  // watched path's base name), and is dead from then on.
  // Memory: a warm runtime holds one watch per indexed directory (15k on a 100k-file tree), so each
  // holds only its state object, and all share two listeners that find it through `this` (the
  // watcher): closures per watch cost ~0.5 KiB of heap each.
  const watchers = new Map<string, Watched>();
  // A directory removed and made again often gets the same inode number (ext4 hands it out again at
  // once): its birth time tells them apart where the file system keeps one (ext4, xfs, btrfs, tmpfs).
  const inoOf = (dir: string) => {
    const st = lstatBigIfAny(path.join(root, dir));
    return st ? `${st.ino}:${st.birthtimeNs}` : '-';
  };
  const rootBase = path.basename(root);
  const lose = (s: WatchState) => {
    s.dead = true;
    changed(s.dir, false, true);
  };
  // See Watches for what these two hold.
  const touched = new Set<string>();
  const unwatchable = new Set<string>();
  function onChange(this: Watched, _type: string, name: string | null) {
    counted();
    const s = this[STATE];
    // An entry named like its directory is taken for a self-event too: unwatched until a rebuild.
    if (name === (s.dir === '' ? rootBase : baseOf(s.dir))) lose(s);
    if (!name) return changed(s.dir, false);
    const rel = s.dir ? `${s.dir}/${name}` : String(name);
    if (watchers.has(rel)) touched.add(rel);
    changed(rel, true);
  }
  function onError(this: Watched) {
    lose(this[STATE]);
  }
  // Events may have been lost: the root is reported lost (everything below it changed), and the next
  // update checks every watch by inode.
  const overflowed = () => {
    touched.add('');
    const s = watchers.get('')?.[STATE];
    if (s) lose(s);
    else changed('', false, true);
  };
  const close = () => {
    onOverflow.delete(overflowed);
    for (const w of watchers.values()) w.close();
    watchers.clear();
    touched.clear();
    unwatchable.clear();
  };
  const set: Watches = { root, watchers, touched, unwatchable, changed, inoOf, onChange, onError, close };
  const update = (want: Iterable<string>): boolean => {
    const keep = new Set(want);
    closeStale(set, keep);
    return openWatches(set, keep);
  };
  const add = (dir: string) => {
    const had = watchers.get(dir);
    if (had && !had[STATE].dead && inoOf(dir) === had[STATE].id) return 'had';
    had?.close();
    watchers.delete(dir);
    if (!openWatches(set, new Set([dir]), false)) return 'refused';
    return watchers.has(dir) ? 'opened' : 'gone';
  };
  const remove = (dir: string) => {
    watchers.get(dir)?.close();
    watchers.delete(dir);
    unwatchable.delete(dir);
  };
  const replaced = (dir: string) => {
    if (unwatchable.has(dir)) return true;
    const had = watchers.get(dir)?.[STATE];
    return had !== undefined && (had.dead || inoOf(dir) !== had.id);
  };
  const watchedSince = (dir: string) => {
    const had = watchers.get(dir)?.[STATE];
    return had && !had.dead ? had.since : undefined;
  };
  if (!update(dirs)) return undefined;
  onOverflow.add(overflowed);
  return { update, add, remove, replaced, watchedSince, close };
}

/** The watches of one watchDirs call, what their events told since the last update, and their listeners. */
interface Watches {
  root: string;
  watchers: Map<string, Watched>;
  /**
   * Watched directories whose entry in their parent an event named since the last update: each may
   * have been replaced. Its own watch's self-event is no proof: the kernel sends it only once the old
   * directory's last holder (a shell's working directory, an open descriptor) lets go.
   */
  touched: Set<string>;
  /** Directories asked for that the last update could not watch: taken for replaced until watched. */
  unwatchable: Set<string>;
  changed: (rel: string, named: boolean, lost?: boolean) => void;
  inoOf: (dir: string) => string;
  onChange: (this: Watched, type: string, name: string | null) => void;
  onError: (this: Watched) => void;
  close: () => void;
}

/**
 * Closes the watches of directories no longer wanted, dead, or replaced under the same name (renamed
 * away, made anew): such a directory is watched again, else its new files would go unseen. Its
 * parent's watch then named its entry (`touched`), or its own watch died, or one above it did (a
 * directory above was moved away: the watches below follow the old tree, and the new one holds new
 * directories) — so only watches at or below such a one are checked by inode, not all 15k (an lstat
 * each, ~50 ms of every rebuild's main thread). The caller first lets queued events in.
 */
function closeStale(set: Watches, keep: Set<string>): void {
  const { watchers, touched, inoOf } = set;
  const suspect = new Set(touched);
  touched.clear();
  for (const [dir, w] of watchers) if (w[STATE].dead) suspect.add(dir);
  const belowSuspect = (dir: string) => {
    for (let d = dir; ; d = dirOf(d)) {
      if (suspect.has(d)) return true;
      if (d === '') return false;
    }
  };
  for (const [dir, w] of watchers)
    if (!keep.has(dir) || w[STATE].dead || (suspect.size > 0 && belowSuspect(dir) && inoOf(dir) !== w[STATE].id)) {
      w.close();
      watchers.delete(dir);
    }
}

/**
 * Opens a watch on each wanted directory not watched yet; false when the system refuses one (all are
 * closed then). `all`: `keep` is every directory wanted (those the last update could not watch and
 * not asked for again are forgotten).
 */
function openWatches(set: Watches, keep: Set<string>, all = true): boolean {
  const { root, watchers, unwatchable, changed } = set;
  // Every inode is taken before any watch opens: a directory replaced in between then differs from
  // its watch's inode, so it is taken for replaced (safe). Interleaving lstat with opening watches
  // also cost ~9 MiB more RSS on 22k directories (the allocator's pieces interleave).
  const add = [...keep].filter((dir) => !watchers.has(dir));
  const inos = add.map(set.inoOf);
  if (all) unwatchable.clear();
  else for (const dir of add) unwatchable.delete(dir);
  for (let i = 0; i < add.length; i++) {
    const dir = add[i] as string;
    let w: Watched;
    try {
      w = watch(path.join(root, dir), { persistent: false }) as Watched;
    } catch (e) {
      // The directory is gone or cannot be watched (removed, below one replaced by a file, its
      // mode changed) since it was walked: it alone is lost, and tried again by the next update. Only the
      // system's refusal (max_user_watches, descriptors) ends all watching.
      if (SYSTEM_REFUSALS.has((e as NodeJS.ErrnoException).code ?? '')) {
        set.close();
        return false;
      }
      unwatchable.add(dir);
      changed(dir, false, true);
      continue;
    }
    w[STATE] = new WatchState(dir, inos[i] as string, performance.now()); // the watch is in place from here on
    w.on('change', set.onChange);
    w.on('error', set.onError);
    watchers.set(dir, w);
  }
  return true;
}

/** Lets the event loop run one I/O poll, so watch events already queued by the kernel are delivered. */
export async function drainEvents(): Promise<void> {
  // An immediate set from the check phase runs after the next poll phase.
  await new Promise((r) => setImmediate(r));
  await new Promise((r) => setImmediate(r));
}
