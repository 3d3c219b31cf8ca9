/**
 * The root's states kept up to date between a runtime's shell commands, so that a command's journal
 * looks again only at what changed instead of walking the whole root twice (on a 100k-file tree the
 * two walks cost ~2.4 s of every command, nearly all of it lstat). Each directory the walk enters gets
 * an inotify watch (search/index/watch.ts) when the walk lists it, before it stat's any of its files:
 * a file changed after its state was read raises an event. An entry added or removed between the
 * listing and the watch moved the directory's times, so a directory listed and watched the same
 * moment is listed once more. What no watch in the tree sees is looked at on every refresh: ignored
 * entries and unlisted directories (their own state, as a whole walk compares them), files with other
 * hard links (written through another name), and the ignore rules outside the tree. A lost watch or
 * lost events (the kernel's queue overflowed) make the part concerned, or the whole root, walked
 * again. Main thread; one refresh at a time (the write lane runs one command at a time).
 */
import type { BigIntStats } from 'node:fs';
import path from 'node:path';
import { lstatBigIfAny, statBigIfAny } from '../core/lstat_if_any.ts';
import { IGNORE_FILES } from '../search/ignore.ts';
import { outsideRules } from '../search/ignore_outer.ts';
import { type DirWatch, drainEvents, watchDirs } from '../search/index/watch.ts';
import { baseOf, dirOf } from '../search/rel_paths.ts';
import { FileStates } from './file_states.ts';
import { type Change, emptyChanges, isUnder, type StateChanges } from './state_changes.ts';
import { type EntryState, sameState, stateOf, type TreeScope, type TreeStates, treeStates } from './tree_states.ts';

const IGNORE_NAMES: ReadonlySet<string> = new Set(IGNORE_FILES);
/** Within this of a directory's listing (ns), a change to it may have come before its watch. */
const LISTING_RACE_NS = 50_000_000n;
/** How long a changed file is remembered for `recentFiles` (ms). */
const RECENT_MS = 1000;
/** Rounds of looking again within one refresh before the whole root is walked instead. */
const MAX_ROUNDS = 8;

/** Why a refresh has no states to give: the root is over the limit, or the watches ended. */
export type NoStates = 'cut' | 'unwatched';

export class LiveTree {
  readonly states: TreeStates = {
    files: new FileStates(),
    dirs: new Set(),
    ignored: new Map(),
    opaque: new Set(),
    cut: false,
  };
  readonly #root: string;
  readonly #scope: TreeScope;
  readonly #watch: DirWatch;
  /** Each directory's entries (files, directories, ignored entries), by path. */
  readonly #kids = new Map<string, Set<string>>();
  readonly #linked = new Set<string>();
  /**
   * Ignored directories watched themselves: an entry added, removed or renamed in one changes its
   * own state, which is what a whole walk compares (nothing under it is entered).
   */
  readonly #watchedIgnored = new Set<string>();
  readonly #recent = new Map<string, number>();
  /** Files any refresh looked at again since `takeLookedAt` last ran. */
  readonly #lookedAt = new Set<string>();
  /** What the watches said since the last refresh: walk again, list again, stat again. */
  readonly #deep = new Set<string>();
  readonly #relist = new Set<string>();
  readonly #touched = new Set<string>();
  #rulesKey = '';
  #starting = false;
  #refused = false;
  /** During a refresh: what it changed, and the directories it listed again for a race. */
  #log: StateChanges = emptyChanges();
  #rechecked = new Set<string>();
  #sinceNs = 0n;

  private constructor(root: string, scope: TreeScope) {
    this.#root = root;
    this.#scope = scope;
    const w = watchDirs(root, [], (rel, named, lost) => this.#event(rel, named, lost));
    if (!w) this.#refused = true;
    this.#watch = w ?? {
      update: () => false,
      add: () => 'refused',
      remove() {},
      replaced: () => true,
      watchedSince: () => undefined,
      close() {},
    };
    this.#rulesKey = this.#outsideKey();
  }

  /** A live tree of `root`, walked whole once; a reason instead when it is over the limit or cannot be watched. */
  static start(root: string, scope: TreeScope): LiveTree | NoStates {
    const t = new LiveTree(root, scope);
    t.#deep.add('');
    t.#starting = true;
    const done = t.#settle();
    t.#starting = false;
    if (done !== undefined) {
      t.close();
      return done;
    }
    const racyFrom = BigInt(Date.now() - RECENT_MS) * 1_000_000n;
    for (const [rel, st] of t.states.files) if (st.ctimeNs >= racyFrom) t.#recent.set(rel, Date.now());
    return t;
  }

  /** Lets the events already queued in, then looks again at what they name: what it found changed. */
  async refresh(): Promise<StateChanges | NoStates> {
    if (this.#refused) return 'unwatched'; // the watches are gone: the states can no longer be kept
    await drainEvents();
    this.#log = emptyChanges();
    const key = this.#outsideKey();
    if (key !== this.#rulesKey) this.#deep.add('');
    this.#rulesKey = key;
    this.#restatUnwatched();
    const done = this.#settle();
    if (done !== undefined) return done;
    const now = Date.now();
    for (const [rel, c] of this.#log.files) {
      this.#lookedAt.add(rel);
      if (c.after) this.#recent.set(rel, now);
    }
    for (const [rel, at] of this.#recent) if (now - at > RECENT_MS) this.#recent.delete(rel);
    return this.#log;
  }

  /**
   * The files looked at again by the refreshes since the last call (a command's own changes among
   * them): whatever was copied of them may be of another state now, and they may want a copy.
   */
  takeLookedAt(): string[] {
    const out = [...this.#lookedAt];
    this.#lookedAt.clear();
    return out;
  }

  /** Files changed within the last second, as far as the watches told: the only ones whose stat may be racy. */
  recentFiles(): Iterable<string> {
    return this.#recent.keys();
  }

  close(): void {
    this.#watch.close();
  }

  #event(rel: string, named: boolean, lost?: boolean): void {
    if (!lost && (this.#watchedIgnored.has(rel) || (named && this.#watchedIgnored.has(dirOf(rel))))) {
      this.#touched.add(named && !this.#watchedIgnored.has(rel) ? dirOf(rel) : rel); // its own state, again
      return;
    }
    if (lost) this.#deep.add(rel);
    else if (!named) this.#relist.add(rel);
    else if (IGNORE_NAMES.has(baseOf(rel))) this.#deep.add(dirOf(rel));
    else this.#touched.add(rel);
  }

  /** Works through what is to be looked at again; a reason when no states can be given. */
  #settle(): NoStates | undefined {
    this.#rechecked = new Set();
    this.#sinceNs = BigInt(Date.now()) * 1_000_000n - LISTING_RACE_NS;
    let rounds = 0;
    while (this.#deep.size + this.#relist.size + this.#touched.size > 0) {
      if (++rounds > MAX_ROUNDS) {
        this.#deep.add(''); // a tree changing faster than it is looked at: walked whole, once
        if (rounds > MAX_ROUNDS + 1) break;
      }
      const walked = this.#walkAgain();
      this.#listAgain(walked);
      this.#statAgain(walked);
      if (this.#refused) return 'unwatched';
    }
    if (this.#deep.size + this.#relist.size + this.#touched.size > 0) return 'unwatched';
    if (this.states.cut || this.states.files.size + this.states.ignored.size > this.#limit()) return 'cut';
    // The watches of directories gone are closed (each check of all costs a few ms on 15k directories).
    const dirGone = [...this.#log.dirs.values()].some((c) => !c.after);
    const ignoredGone = [...this.#log.ignored.values()].some((c) => !c.after);
    if ((dirGone || ignoredGone) && !this.#watch.update([...this.states.dirs, ...this.#watchedIgnored]))
      return 'unwatched';
    return undefined;
  }

  /** The first look may take `maxFiles`; later ones up to twice as many (a command may add files). */
  #limit(): number {
    return this.states.dirs.size === 0 ? this.#scope.maxFiles : 2 * this.#scope.maxFiles + 1000;
  }

  /** Walks again each directory asked for (the outermost ones): the directories walked. */
  #walkAgain(): string[] {
    const dirs = take(this.#deep).sort((a, b) => a.length - b.length);
    const walked: string[] = [];
    for (const d of dirs) {
      if (walked.some((w) => isUnder(d, w))) continue;
      walked.push(d);
      const st = d === '' ? undefined : lstatBigIfAny(path.join(this.#root, d));
      this.#drop(d);
      if (d !== '' && !st?.isDirectory()) {
        this.#relist.add(dirOf(d)); // a file now, or gone: its directory's listing says
        continue;
      }
      const part = treeStates(this.#root, { ...this.#scope, maxFiles: this.#limit() }, this.#part(d, Infinity));
      if (part.cut) this.states.cut = true;
      this.#merge(part);
    }
    return walked;
  }

  /** Lists again each directory asked for that was not walked again, its entries stat'ed. */
  #listAgain(walked: readonly string[]): void {
    for (const r of take(this.#relist)) {
      if (walked.some((w) => isUnder(r, w))) continue;
      if (!this.states.dirs.has(r)) {
        this.#deep.add(r); // not entered before (ignored, unlisted or new): walked whole
        continue;
      }
      const deeper: string[] = [];
      // A file no event named is as its state says (its directory is watched): not stat'ed again.
      const unchanged: string[] = [];
      const known = (rel: string) => {
        const same = !this.#touched.has(rel) && this.states.files.has(rel);
        if (same) unchanged.push(rel);
        return same;
      };
      const part = treeStates(
        this.#root,
        { ...this.#scope, maxFiles: Infinity },
        {
          ...this.#part(r, r === '' ? 1 : r.split('/').length + 1),
          deeper: (rel) => deeper.push(rel),
          unchanged: known,
        },
      );
      if (!part.dirs.has(r)) {
        this.#deep.add(r); // gone, unlisted or excluded since: walked whole (its parent's listing says)
        continue;
      }
      const now = new Set([...part.files.keys(), ...part.ignored.keys(), ...deeper, ...unchanged]);
      for (const kid of [...(this.#kids.get(r) ?? [])]) if (!now.has(kid)) this.#drop(kid);
      for (const d of deeper) if (!this.states.dirs.has(d) || this.#watch.replaced(d)) this.#deep.add(d);
      this.#merge(part);
    }
  }

  /** Stats again each entry an event named. */
  #statAgain(walked: readonly string[]): void {
    for (const rel of take(this.#touched)) {
      if (walked.some((w) => isUnder(rel, w))) continue;
      const st = lstatBigIfAny(path.join(this.#root, rel));
      if (this.states.dirs.has(rel)) {
        if (!st?.isDirectory() || this.#watch.replaced(rel)) this.#deep.add(rel);
      } else if (this.states.files.has(rel) && st && !st.isDirectory()) {
        this.#setFile(rel, stateOf(path.join(this.#root, rel)));
      } else if (this.#ignoredAgain(rel, st)) {
        // its state is taken again
      } else if (st || this.states.files.has(rel) || this.states.ignored.has(rel)) {
        this.#relist.add(dirOf(rel)); // came, went or changed kind: its directory's listing says
      } else if (this.#watch.replaced(dirOf(rel))) {
        // An entry that was never there: a temporary file come and gone, or the watch's own death
        // named after another path of its inode (watch.ts DirWatch.remove). Dead: walked again.
        this.#deep.add(dirOf(rel));
      }
    }
  }

  /** Takes an ignored entry's state again, when it is still of its kind: false when it is not that. */
  #ignoredAgain(rel: string, st: BigIntStats | undefined): boolean {
    const had = this.states.ignored.get(rel);
    if (!had || !st || this.states.opaque.has(rel) || isDir(had) !== st.isDirectory()) return false;
    const now = stateOf(path.join(this.#root, rel));
    if (now) this.#setIgnored(rel, now, false);
    return now !== undefined;
  }

  /**
   * What no watch sees: ignored entries' and unlisted directories' own states (a change is told as a
   * whole walk tells it), and files with other hard links.
   */
  #restatUnwatched(): void {
    for (const [rel, had] of this.states.ignored) {
      // An ignored file's writes and mode changes are events of its directory's watch.
      const seen = this.#watchedIgnored.has(rel) || (!isDir(had) && had.links === 1 && !this.states.opaque.has(rel));
      if (seen) continue;
      const st = stateOf(path.join(this.#root, rel));
      if (st && sameState(st, had)) continue;
      if (this.states.opaque.has(rel) || !st || (st.mode & 0o170000) !== (had.mode & 0o170000)) this.#deep.add(rel);
      else this.#setIgnored(rel, st, false);
    }
    for (const rel of this.#linked) {
      const had = this.states.files.get(rel);
      const st = stateOf(path.join(this.#root, rel));
      if (had && st && sameState(had, st)) continue;
      if (IGNORE_NAMES.has(baseOf(rel))) this.#deep.add(dirOf(rel));
      else this.#touched.add(rel);
    }
  }

  #part(start: string, depth: number) {
    return { start, depth, entered: (rel: string) => this.#entered(rel) };
  }

  /** A directory the walk just listed: watched from now on, and listed again if it may have changed meanwhile. */
  #entered(rel: string): void {
    const got = this.#watch.add(rel);
    if (got === 'refused') this.#refused = true;
    if (got !== 'opened' || this.#rechecked.has(rel)) return;
    const st = lstatBigIfAny(path.join(this.#root, rel));
    if (st && st.mtimeNs < this.#sinceNs && st.ctimeNs < this.#sinceNs) return;
    this.#rechecked.add(rel);
    this.#relist.add(rel);
  }

  #merge(part: TreeStates): void {
    for (const d of part.dirs) {
      this.#dropIf(d, 'dir');
      this.#set(this.#log.dirs, d, this.states.dirs.has(d) ? true : undefined, true);
      this.states.dirs.add(d);
      this.#kid(d, true);
    }
    for (const [rel, st] of part.files) {
      this.#dropIf(rel, 'file');
      const had = this.states.files.get(rel);
      // Unchanged: not told as looked at (an event naming it is, by statAgain).
      if (!had || !sameState(had, st)) this.#setFile(rel, st);
    }
    for (const [rel, st] of part.ignored) {
      this.#dropIf(rel, 'ignored');
      this.#setIgnored(rel, st, part.opaque.has(rel));
      if (isDir(st) && !part.opaque.has(rel)) this.#watchIgnored(rel);
    }
  }

  /** Watches an ignored directory itself; its state is taken again once the watch is open. */
  #watchIgnored(rel: string): void {
    const got = this.#watch.add(rel);
    if (got === 'refused') this.#refused = true;
    if (got !== 'opened' && got !== 'had') return;
    this.#watchedIgnored.add(rel);
    const now = stateOf(path.join(this.#root, rel));
    const had = this.states.ignored.get(rel);
    if (now && had && !sameState(now, had)) this.#setIgnored(rel, now, false);
    if (!now) this.#deep.add(rel);
  }

  /** Drops what `rel` was when it is something else `now`. */
  #dropIf(rel: string, now: 'file' | 'dir' | 'ignored'): void {
    if (now !== 'file' && this.states.files.has(rel)) this.#setFile(rel, undefined);
    if (now !== 'dir' && this.states.dirs.has(rel)) this.#drop(rel);
    if (now !== 'ignored' && this.states.ignored.has(rel)) this.#setIgnored(rel, undefined, false);
  }

  /** Forgets the entry `rel` and, for a directory, everything under it. */
  #drop(rel: string): void {
    if (this.states.files.has(rel)) this.#setFile(rel, undefined);
    if (this.states.ignored.has(rel)) this.#setIgnored(rel, undefined, false);
    if (!this.states.dirs.has(rel)) return;
    for (const kid of [...(this.#kids.get(rel) ?? [])]) this.#drop(kid);
    this.#kids.delete(rel);
    this.#watch.remove(rel); // now, not at the end: see DirWatch.remove
    this.#set(this.#log.dirs, rel, true, undefined);
    this.states.dirs.delete(rel);
    this.#kid(rel, false);
  }

  #setFile(rel: string, st: EntryState | undefined): void {
    const files = this.states.files;
    this.#set(this.#log.files, rel, files.get(rel), st);
    if (st) files.set(rel, st);
    else files.delete(rel);
    if (st && st.links > 1 && !this.#linked.has(rel)) {
      // A new link: the inode's other names in the tree changed too (their link count and ctime),
      // with no event in their directories.
      this.#linked.add(rel);
      for (const other of files.withIno(st.ino)) if (other !== rel) this.#touched.add(other);
    } else if (!st || st.links <= 1) this.#linked.delete(rel);
    this.#kid(rel, st !== undefined);
  }

  #setIgnored(rel: string, st: EntryState | undefined, opaque: boolean): void {
    const { ignored } = this.states;
    const had = ignored.get(rel);
    if (!(had && st && sameState(had, st))) this.#set(this.#log.ignored, rel, had, st);
    if (st) ignored.set(rel, st);
    else {
      ignored.delete(rel);
      if (this.#watchedIgnored.delete(rel)) this.#watch.remove(rel);
    }
    if (opaque && st) this.states.opaque.add(rel);
    else this.states.opaque.delete(rel);
    this.#kid(rel, st !== undefined);
  }

  /** Notes a change in `log`, keeping the first state it had before. */
  #set<T>(log: Map<string, Change<T>>, rel: string, before: T | undefined, after: T | undefined): void {
    if (this.#starting) return; // the first walk: every entry is new, and nothing asks what changed
    const c = log.get(rel);
    if (c) c.after = after;
    else log.set(rel, { before, after });
  }

  /** Keeps `rel` among its directory's entries, or not. */
  #kid(rel: string, present: boolean): void {
    if (rel === '') return;
    const dir = dirOf(rel);
    const kids = this.#kids.get(dir);
    if (present) {
      if (kids) kids.add(rel);
      else this.#kids.set(dir, new Set([rel]));
    } else if (kids && !this.states.files.has(rel) && !this.states.dirs.has(rel) && !this.states.ignored.has(rel)) {
      kids.delete(rel);
    }
  }

  /**
   * The states of the rule files outside the tree (ignore_outer.ts `inputs`): a change is a change of
   * what is ignored everywhere. A `.git` directory counts by its identity alone (git rewrites its
   * entries all the time; the rule files in it are inputs of their own).
   */
  #outsideKey(): string {
    const { inputs } = outsideRules(this.#root, this.#scope.gitUser);
    return inputs
      .map((f) => {
        const st = lstatBigIfAny(f);
        if (!st) return '-';
        if (st.isDirectory() && baseOf(f) === '.git') return `d${st.ino}`;
        const to = st.isSymbolicLink() ? statBigIfAny(f) : undefined;
        return `${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}>${to ? `${to.ino}:${to.size}:${to.mtimeNs}:${to.ctimeNs}` : ''}`;
      })
      .join(',');
  }
}

const isDir = (st: EntryState) => (st.mode & 0o170000) === 0o040000;

/** The members of `set`, which is emptied. */
function take(set: Set<string>): string[] {
  const out = [...set];
  set.clear();
  return out;
}
