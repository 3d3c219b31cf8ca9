/**
 * Change tracking between index builds, for a warm runtime: one inotify watch (fs.watch) per indexed
 * directory. Any event names the entry that changed; the caller marks it (and, for a directory,
 * everything indexed below it) as changed, which makes it a candidate of every search until the next
 * build. Events are delivered by the event loop, so a search first lets one I/O poll pass
 * (`drainEvents`): a change made before the search began is then known. Main thread.
 */
import { type FSWatcher, watch } from 'node:fs';
import path from 'node:path';

export interface DirWatch {
  close(): void;
}

/**
 * Watches `dirs` (relative to `root`); `changed(rel, named)` gets the entry's path relative to the
 * root and whether the event named it — else `rel` is the directory itself (an event naming nothing,
 * or a failed watch). Undefined when the system refuses a watch (too many: max_user_watches); then
 * the caller checks files by their state instead.
 */
export function watchDirs(
  root: string,
  dirs: Iterable<string>,
  changed: (rel: string, named: boolean) => void,
): DirWatch | undefined {
  const watchers: FSWatcher[] = [];
  const close = () => {
    for (const w of watchers) w.close();
    watchers.length = 0;
  };
  try {
    for (const dir of dirs) {
      const w = watch(path.join(root, dir), { persistent: false }, (_type, name) =>
        name ? changed(dir ? `${dir}/${name}` : String(name), true) : changed(dir, false),
      );
      w.on('error', () => changed(dir, false));
      watchers.push(w);
    }
  } catch {
    close();
    return undefined;
  }
  return { close };
}

/** Lets the event loop run one I/O poll, so watch events already queued by the kernel are delivered. */
export async function drainEvents(): Promise<void> {
  // An immediate set from the check phase runs after the next poll phase.
  await new Promise((r) => setImmediate(r));
  await new Promise((r) => setImmediate(r));
}
