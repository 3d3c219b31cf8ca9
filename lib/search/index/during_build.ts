/**
 * The watch events a warm runtime sees while a rebuild runs, kept for the index that build makes: a
 * file changed after the build read it, in a directory watched since before the build began, raised
 * one of these — so once the new index is in use, only the files of directories watched for less
 * than the whole build need their states checked (sweep.ts `unlikeIndexed`). Main thread.
 */
import type { DirWatch } from './watch.ts';

/** Past this many events the list is dropped and every file's state is checked instead. */
const MAX_EVENTS = 100_000;

/** What the watch callback said: the entry, whether the event named it, whether the watch died. */
type WatchEvent = [rel: string, named: boolean, lost: boolean | undefined];

export class EventsDuringBuild {
  /** When the build began (performance.now(), as watch.ts `watchedSince`). */
  readonly since = performance.now();
  #events: WatchEvent[] | undefined = [];

  add(e: WatchEvent): void {
    if (this.#events && this.#events.push(e) > MAX_EVENTS) this.#events = undefined;
  }

  get events(): readonly WatchEvent[] {
    return this.#events ?? [];
  }

  /**
   * The directories of `dirs` whose files must be checked by their states: those `watch` has not
   * watched since before the build began; undefined (all of them) when the events were dropped.
   */
  unwatchedDuring(watch: DirWatch, dirs: Iterable<string>): Set<string> | undefined {
    if (!this.#events) return undefined;
    const out = new Set<string>();
    for (const d of dirs) {
      const since = watch.watchedSince(d);
      if (since === undefined || since >= this.since) out.add(d);
    }
    return out;
  }
}
