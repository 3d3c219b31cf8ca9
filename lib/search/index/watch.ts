/**
 * Change tracking between index builds, for a warm runtime: one inotify watch (fs.watch) per indexed
 * directory. Any event names the entry that changed; the caller marks it (and, for a directory,
 * everything indexed below it) as changed, which makes it a candidate of every search until the next
 * build. Events are delivered by the event loop, so a search first lets one I/O poll pass
 * (`drainEvents`): a change made before the search began is then known. Main thread.
 */
import { type FSWatcher, lstatSync, watch } from 'node:fs';
import path from 'node:path';

export interface DirWatch {
  /**
   * Watches exactly `dirs` from now on: a rebuild keeps the watches of the directories it still
   * indexes (15k watches cost ~0.3 s to close and reopen, and their memory twice until collected).
   * False when the system refuses a watch (then nothing is watched any more).
   */
  update(dirs: Iterable<string>): boolean;
  /** The watch of `dir` is dead (its directory removed or moved) or follows another inode: unwatched. */
  replaced(dir: string): boolean;
  /**
   * When (performance.now()) the live watch of `dir` began, undefined when there is none or it died:
   * a change to an entry of `dir` after that raised an event.
   */
  watchedSince(dir: string): number | undefined;
  close(): void;
}

/**
 * Watches `dirs` (relative to `root`); `changed(rel, named)` gets the entry's path relative to the
 * root and whether the event named it — else `rel` is the directory itself (an event naming nothing,
 * or a failed watch); `lost` says the watch itself may be dead (its directory was removed or moved
 * away: new files in one made again under the name would go unseen). Undefined when the system refuses a watch (too many: max_user_watches); then
 * the caller checks files by their state instead.
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
  const watchers = new Map<string, { w: FSWatcher; ino: number; dead: boolean; since: number }>();
  const inoOf = (dir: string) => lstatSync(path.join(root, dir), { throwIfNoEntry: false })?.ino ?? -1;
  const close = () => {
    for (const { w } of watchers.values()) w.close();
    watchers.clear();
  };
  const update = (want: Iterable<string>): boolean => {
    const keep = new Set(want);
    for (const [dir, { w, ino, dead }] of watchers)
      if (!keep.has(dir) || dead || inoOf(dir) !== ino) {
        w.close();
        watchers.delete(dir);
      }
    try {
      for (const dir of keep) {
        if (watchers.has(dir)) continue;
        const ino = inoOf(dir);
        const self = path.basename(path.join(root, dir));
        const entry = { w: undefined as unknown as FSWatcher, ino, dead: false, since: 0 };
        // An entry named like its directory is taken for a self-event too: unwatched until a rebuild.
        const lose = () => {
          entry.dead = true;
          changed(dir, false, true);
        };
        entry.w = watch(path.join(root, dir), { persistent: false }, (_type, name) => {
          if (name === self) lose();
          if (name) changed(dir ? `${dir}/${name}` : String(name), true);
          else changed(dir, false);
        });
        entry.w.on('error', lose);
        entry.since = performance.now(); // the watch is in place from here on
        watchers.set(dir, entry);
      }
    } catch {
      close();
      return false;
    }
    return true;
  };
  const replaced = (dir: string) => {
    const had = watchers.get(dir);
    return had !== undefined && (had.dead || inoOf(dir) !== had.ino);
  };
  const watchedSince = (dir: string) => {
    const had = watchers.get(dir);
    return had && !had.dead ? had.since : undefined;
  };
  return update(dirs) ? { update, replaced, watchedSince, close } : undefined;
}

/** Lets the event loop run one I/O poll, so watch events already queued by the kernel are delivered. */
export async function drainEvents(): Promise<void> {
  // An immediate set from the check phase runs after the next poll phase.
  await new Promise((r) => setImmediate(r));
  await new Promise((r) => setImmediate(r));
}
