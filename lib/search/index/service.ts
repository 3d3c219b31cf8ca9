/**
 * The index of one search root, as a runtime uses it: loaded lazily from the cache directory, kept
 * fresh, asked before each grep. Fresh means: every file the index holds either is as it was when
 * indexed or is marked changed (then it is a candidate of every search, so it is read as without an
 * index). Changes are learned from the write lane (`noteWrite`, before the write's answer returns),
 * from directory watches in a warm runtime, and — when there are no watches (a one-shot call, or the
 * system refused them) — by the search's shards, which compare each indexed file's inode, size, mtime
 * and ctime with the indexed ones before skipping it (skip.ts). A warm runtime opens its watches and
 * compares every indexed file's state in the background when it starts using an index
 * (background_check.ts); its searches meanwhile check each file's state as a one-shot call's do, and
 * none is served without a walk. Main thread.
 */
import path from 'node:path';
import { lstatIfAny } from '../../core/lstat_if_any.ts';
import type { DenySpec } from '../denied.ts';
import { type GitUser, IGNORE_FILES } from '../ignore.ts';
import { baseOf, dirOf } from '../rel_paths.ts';
import { type CheckProgress, checkInBackground, type RulesAtStart } from './background_check.ts';
import type { IndexRunner } from './build.ts';
import { buildIndexSafely } from './build_safe.ts';
import { EventsDuringBuild } from './during_build.ts';
import { keptWalkHolds } from './kept_check.ts';
import { COMMON_SHARE, candidates, estimate, planQuery, requiredLiteralsOf } from './plan.ts';
import type { Segment } from './segment.ts';
import { indexCurrent, indexFileFor, type LoadedIndex, readIndex } from './store.ts';
import {
  directFiles,
  type PrefilterAnswer,
  type PrefilterQuery,
  summarise,
  type WalkSummary,
  walkedWhole,
} from './summary.ts';
import { rootIdentity, rulesOutsideWatches } from './sweep.ts';
import { type KeptWalk, readWalkRecord, type WalkRecord, writeWalkRecord } from './walk_record.ts';
import { type DirWatch, drainEvents } from './watch.ts';

/** Trees smaller than this are not indexed on their own: a scan of them takes milliseconds. */
export const MIN_INDEXED_FILES = 2000;

interface IndexOptions {
  root: string;
  /** 'build': a warm runtime's (builds one after its first large search); 'existing': only an index already on disk. */
  use: 'build' | 'existing';
  /** Watch indexed directories (warm runtimes); otherwise check every file's state per search. */
  watch: boolean;
  runner: IndexRunner;
  cacheDir: string;
  deny?: DenySpec;
  /** Where the user's git config is (the global excludes file), as the runtime's searches have it. */
  gitUser?: GitUser;
  minFiles?: number;
  racyMs?: number;
  /** Called when a build is in use (the build's own buffers and tables are dead then). */
  onBuilt?: () => void;
  /** Called when a loaded index's background check ended, its pool tasks done. */
  onChecked?: () => void;
}

const IGNORE_NAMES = new Set<string>(IGNORE_FILES);
/** The name of this process's write-lane temporary file (lib/files/atomic.ts puts the pid in it). */
const WRITE_TEMP = new RegExp(`^\\..*\\.${process.pid}\\.[0-9a-f]{8}\\.mewcode-tmp$`);

export class SearchIndex {
  readonly file: string;
  #idx: LoadedIndex | undefined;
  #dirs = new Set<string>();
  #changed = new Set<string>();
  /** Bumped whenever the tree's shape (entries, ignore rules) may have changed. */
  #shape = 0;
  #summaries = new Map<string, WalkSummary>();
  /** Walks (by key) that went on past their results to be learned and ran out of time, at which shape. */
  #outOfTime = new Map<string, number>();
  /**
   * A directory may exist that no watch covers (made or replaced since the build, or un-ignored by a
   * rule change: the build never entered it), so walks cannot be summarised until a rebuild.
   */
  #unwatched = false;
  /** Ignore files with another hard link, whose writes no watch may see (sweep.ts). */
  #linkedIgnores: string[] = [];
  /**
   * The rule files outside the tree (ignore_outer.ts `inputs`: parents' ignore files, `.git` and
   * `info/exclude`, git config, the global excludes file), which no watch sees either.
   */
  #outsideRules: string[] = [];
  /** Their states and the linked ignore files' when watching began: a change is a rule change. */
  #rulesUnwatched = '';
  /** The watched root's identity (sweep.ts `rootIdentity`). */
  #rootId = '';
  /** When the last build ended and how long it took: rebuilds keep to a tenth of the time. */
  #lastBuild = { at: 0, ms: 0 };
  #watch: DirWatch | undefined;
  /** The builds running, each noting the events seen meanwhile for the index it makes. */
  #recording = new Set<EventsDuringBuild>();
  #building: Promise<unknown> | undefined;
  /** The background check of the index in use (background_check.ts), while it runs. */
  #check: { done: Promise<void> } | undefined;
  /**
   * The walk summaries kept beside the index file (walk_record.ts): read with an index loaded from
   * disk, written when this runtime learns one while the tree is as the build left it.
   */
  #record: WalkRecord | undefined;
  /** The one-shot check of the kept walk that the first searches of a loaded index wait for. */
  #keptCheck: { idx: LoadedIndex; settled: boolean; holds: Promise<{ changed: string[] } | undefined> } | undefined;
  /** The shape when the index in use came into use: while it stays so, nothing changed the tree's shape. */
  #pristine = -1;
  #loaded = false;
  #closed = false;
  /**
   * Awaited between slices of the background check, after the event loop's turn: what a test holds
   * the check at to change files while it runs. None in use.
   */
  betweenCheckSlices: ((p: CheckProgress) => Promise<void> | void) | undefined;

  readonly o: IndexOptions;

  constructor(o: IndexOptions) {
    this.o = o;
    this.file = indexFileFor(o.root, o.cacheDir);
  }

  get loaded(): LoadedIndex | undefined {
    return this.#idx;
  }

  /** How many indexed files are marked changed since the build. */
  get changedCount(): number {
    return this.#changed.size;
  }

  /** The background check of the index in use is running: searches check each file's state. */
  get checking(): boolean {
    return this.#check !== undefined;
  }

  /** Builds (or rebuilds) the index now and starts using it (its check done, but for files it finds changed). */
  async build(): Promise<{ ok: true; index: LoadedIndex } | { ok: false; message: string }> {
    const started = Date.now();
    const seen = new EventsDuringBuild();
    this.#recording.add(seen);
    const r = await buildIndexSafely({
      root: this.o.root,
      file: this.file,
      runner: this.o.runner,
      ...(this.o.deny ? { deny: this.o.deny } : {}),
      ...(this.o.gitUser ? { gitUser: this.o.gitUser } : {}),
      ...(this.o.racyMs !== undefined ? { racyMs: this.o.racyMs } : {}),
    });
    // Events queued meanwhile are let in (and recorded) first: watch.ts `update` keeps live watches.
    if (this.#watch) await drainEvents();
    this.#recording.delete(seen);
    this.#lastBuild = { at: Date.now(), ms: Date.now() - started };
    if (!r.ok) return { ok: false, message: r.error.message };
    if (this.#closed) r.value.close();
    else {
      this.#use(r.value, seen);
      try {
        this.o.onBuilt?.();
      } catch {
        // The caller's hook (a collection) failing does not undo a build that is in use.
      }
    }
    await this.#check?.done;
    return { ok: true, index: r.value };
  }

  /** The write lane changed (or deleted) the file at `realPath`. */
  noteWrite(realPath: string): void {
    const rel = path.relative(this.o.root, realPath);
    if (rel.startsWith('..') || path.isAbsolute(rel)) return;
    this.#event(rel.split(path.sep).join('/'), true);
  }

  /** What a grep under `dir` (a real path) should skip. */
  async prefilter(q: PrefilterQuery): Promise<PrefilterAnswer> {
    const rel = path.relative(this.o.root, q.dir);
    if (rel.startsWith('..') || path.isAbsolute(rel)) return { index: 'outside the indexed root' };
    if (q.invert) return { index: 'inverted: scanned' };
    const plan = planQuery(requiredLiteralsOf(q.pattern, q));
    if (!plan) return { index: 'no literal of 3+ bytes to look up: scanned' };
    // Without watches the shards compare each file's state before skipping it (in parallel).
    if (this.#ensure() && this.#watch) await drainEvents();
    // The root renamed away (a copy put in its place): the watches follow the old tree. Without them
    // the shards check every file's state, until a rebuild watches the new tree.
    if (this.#watch && rootIdentity(this.o.root) !== this.#rootId) this.#dropWatches();
    // Taken after the wait: a build finishing meanwhile closes the index it replaces.
    const idx = this.#idx;
    if (!idx || this.#closed) return { index: this.#building ? 'building: scanned' : 'no index: scanned' };
    const files = idx.rels;
    const n = files.length;
    const at = rel.split(path.sep).join('/');
    const prefix = at === '' ? '' : `${at}/`;
    // Until the background check ends, files changed before their watch opened may be unmarked.
    const checking = this.#check !== undefined;
    // The kept walk's check needs only the file table: the pool compares states while this thread
    // reads the key tables (a runtime's first search), once the pool has had a turn to take its tasks.
    if (checking && at === '' && this.#startKept(q, idx)) {
      await new Promise((turn) => setImmediate(turn));
      if (this.#idx !== idx) return this.prefilter(q);
    }
    let parts: Segment[];
    try {
      parts = idx.parts;
    } catch {
      this.#unusable(idx); // a key table damaged on disk: as if none had loaded, so a rebuild comes
      return { index: this.#building ? 'building: scanned' : 'no index: scanned' };
    }
    let found: number[];
    try {
      if (estimate(plan, parts) > COMMON_SHARE * n) return { index: 'common: scanned' };
      found = candidates(plan, parts, n);
    } catch {
      return { index: 'index unreadable: scanned' };
    }
    const cands = found.map((f) => files.relOf(f));
    for (const c of this.#changed) cands.push(c);
    if (cands.length > COMMON_SHARE * n) return { index: 'common: scanned' };
    // A walk kept from an earlier runtime may stand in for this one once the tree is checked as a
    // one-shot search checks it (states compared in the pool): that costs less than the walk.
    if (checking && at === '') {
      const now = await this.#keptNow(q, idx);
      if (now === 'late') {
        await this.#check?.done;
        return this.prefilter(q);
      }
      if (now) {
        for (const c of now.changed) this.#mark(c);
        const all = [...new Set([...cands, ...now.changed])];
        const direct = { files: directFiles(all, '', { shape: this.#shape, ...now.walk }), skipped: now.walk.skipped };
        const prefilter = { table: idx.table, prefix, candidates: all, validate: false };
        return { index: 'served without a walk', prefilter, direct };
      }
    }
    const answer: PrefilterAnswer = {
      index: checking ? 'served, index check running' : 'served',
      prefilter: { table: idx.table, prefix, candidates: cands, validate: !this.#watch || checking },
    };
    if (checking) return answer;
    // Only a warm runtime's default walk of a directory the index covers can be summarised: its
    // directories are watched, and everything it may skip is decided inside them.
    const summarised = at === '' || this.#dirs.has(at);
    // A positive file glob is an override: its walk also meets ignored and hidden files, so it is
    // never learned as (nor served from) the directory's summary.
    if (this.#watch && rulesOutsideWatches(this.#outsideRules, this.#linkedIgnores) !== this.#rulesUnwatched)
      this.#rulesChanged();
    if (!this.#watch || this.#unwatched || !q.walk.useIgnore || q.walk.hidden || !summarised) return answer;
    if (q.walk.fileGlobs?.length) return answer;
    const key = walkKey(at, q);
    const known = this.#summaries.get(key);
    if (known && known.shape === this.#shape) {
      const direct = { files: directFiles(cands, prefix, known), skipped: known.skipped };
      return { ...answer, index: 'served without a walk', direct };
    }
    answer.walkOn = this.#outOfTime.get(key) !== this.#shape;
    answer.learn = this.#learner(key, at, prefix, files);
    return answer;
  }

  /** What learns the walk of `at` (under `key`) that a search is about to make, at the tree's shape now. */
  #learner(key: string, at: string, prefix: string, files: LoadedIndex['rels']): PrefilterAnswer['learn'] {
    const shape = this.#shape;
    return (results, planned) => {
      if (this.#shape !== shape) return;
      // A walk stopped at its results teaches nothing (it once started a rebuild: a runtime that
      // loaded an index with no walk kept rebuilt the whole tree after its first head-limited grep);
      // one that walked on and ran out of time is not tried again till the tree changes shape (one
      // kept from walking on, on the main thread, may be tried again).
      if (!walkedWhole(results)) {
        if (this.#outOfTime.size > 64) this.#outOfTime.clear();
        if (results.some((r) => r.outOfTime)) this.#outOfTime.set(key, shape);
        return;
      }
      const s = summarise(shape, results, planned, prefix, files, this.#dirs);
      if (!s) return this.#rebuild(); // it missed an indexed file or met an unwatched directory: only a rebuild brings the summary back
      if (this.#summaries.size > 64) this.#summaries.clear();
      this.#summaries.set(key, s);
      if (at === '') this.#keep({ key, unindexed: s.unindexed, skipped: s.skipped });
    };
  }

  /** A search of `dir` walked `files` files: a warm runtime indexes a large tree in the background. */
  noteSearch(dir: string, files: number): void {
    if (this.o.use !== 'build' || this.#building || this.#closed || dir !== this.o.root) return;
    // An index file this version cannot read (an older format, or one that failed to load) is rebuilt.
    const usable = this.#idx !== undefined || (!this.#loaded && indexCurrent(this.file));
    const many = this.#idx && this.#changed.size > Math.max(1000, 0.05 * this.#idx.rels.length);
    // A directory no watch covers (made or replaced since the build) stops walk-less searches till a rebuild.
    const stale = many || (this.#watch !== undefined && this.#unwatched);
    if (usable && !stale) return;
    if (files < (this.o.minFiles ?? MIN_INDEXED_FILES)) return;
    this.#rebuild();
  }

  /** A warm runtime rebuilds in the background; searches meanwhile use the index as it is. */
  #rebuild(): void {
    if (this.o.use !== 'build' || this.#building || this.#closed) return;
    if (Date.now() - this.#lastBuild.at < 10 * this.#lastBuild.ms) return;
    // A build answers its failures; anything else it throws must not end the process.
    this.#building = this.build()
      .catch(() => undefined)
      .finally(() => {
        this.#building = undefined;
      });
  }

  /** Resolves when the builds and checks running in the background are done. */
  async settled(): Promise<void> {
    while (this.#building || this.#check) await (this.#building ?? this.#check?.done);
  }

  close(): void {
    this.#closed = true;
    this.#idx?.close();
    this.#watch?.close();
    this.#watch = undefined;
  }

  #ensure(): LoadedIndex | undefined {
    if (this.#loaded || this.#building) return this.#idx;
    this.#loaded = true;
    const idx = readIndex(this.file, this.o.root);
    if (idx) this.#use(idx, undefined, this.o.watch ? readWalkRecord(this.file, idx) : undefined);
    return this.#idx;
  }

  /**
   * `seen`: what the watches saw while the build that made `idx` ran (none for an index loaded);
   * `record`: the walks kept beside a loaded index.
   */
  #use(idx: LoadedIndex, seen?: EventsDuringBuild, record?: WalkRecord): void {
    if (this.#idx !== idx) this.#idx?.close();
    this.#idx = idx;
    this.#loaded = true;
    // Watched: every directory the build's walk entered, even one holding no indexed file.
    this.#dirs = new Set(['', ...idx.dirs]);
    // And every directory holding an indexed file, with those above it: the table names each once.
    for (const held of idx.rels.dirs())
      for (let d = held; d !== '' && !this.#dirs.has(d); d = dirOf(d)) this.#dirs.add(d);
    this.#changed = new Set();
    this.#record = record;
    if (!this.o.watch) return;
    this.#shape++;
    this.#pristine = this.#shape;
    this.#rootId = rootIdentity(this.o.root);
    this.#unwatched = false; // a directory the watches cannot take is reported lost while they open
    this.#startCheck(idx, seen);
  }

  /**
   * Whatever changed since each file was read, found in the background: the watches (kept across a
   * rebuild, updated to the new directories) see what comes after they open, and saw it in `seen` for
   * a directory watched all through the build; the rest is found by its state.
   */
  #startCheck(idx: LoadedIndex, seen: EventsDuringBuild | undefined): void {
    const check = { done: Promise.resolve() };
    this.#check = check; // replaces one still running for the index before: it stops at its next slice
    const live = () => !this.#closed && this.#check === check;
    const run = checkInBackground({
      root: this.o.root,
      ...(this.o.gitUser ? { gitUser: this.o.gitUser } : {}),
      idx,
      runner: this.o.runner,
      dirs: this.#dirs,
      watching: this.#watch,
      seen,
      event: (rel, named, lost) => this.#event(rel, named, lost),
      watched: (w) => {
        this.#watch = w;
      },
      unlike: (rel, file) => {
        if (!file) this.#shape++;
        this.#mark(rel);
      },
      live,
      between: (p) => this.betweenCheckSlices?.(p),
      first: () => (this.#keptCheck?.idx === idx ? this.#keptCheck.holds : undefined),
    });
    // Unfinished (a pool task failed, or a bug threw), the watches vouch for nothing.
    check.done = run
      .then((rules) => {
        if (live()) this.#checked(rules, seen);
      })
      .catch(() => {
        if (live()) this.#dropWatches();
      })
      .finally(() => {
        if (this.#check === check) this.#check = undefined;
      });
  }

  /**
   * Each search checks each file's state from now on, as without watches, until a rebuild watches
   * anew (started here).
   */
  #dropWatches(): void {
    this.#watch?.close();
    this.#watch = undefined;
    this.#check = undefined; // a check running would compare states with no watches behind them
    this.#rebuild();
  }

  /**
   * The background check ended: the watches and the index's marks now vouch for every file. Without
   * `rules` it did not finish: the system refused the watches, or a pool task failed.
   */
  #checked(rules: RulesAtStart | undefined, seen: EventsDuringBuild | undefined): void {
    if (!rules) {
      if (this.#watch) this.#dropWatches();
      return;
    }
    this.#unwatched ||= rules.unwatched;
    this.#linkedIgnores = rules.linked;
    this.#outsideRules = rules.outside;
    this.#rulesUnwatched = rulesOutsideWatches(this.#outsideRules, this.#linkedIgnores);
    for (const [rel, named, lost] of seen?.events ?? []) this.#event(rel, named, lost);
    this.#restoreWalks();
    try {
      this.o.onChecked?.();
    } catch {
      // The caller's hook failing does not undo a check that ended.
    }
  }

  /** Whether nothing changed the tree's shape since the build, as far as this runtime knows. */
  #asBuilt(): boolean {
    return this.#watch !== undefined && !this.#unwatched && this.#shape === this.#pristine;
  }

  /**
   * The check found the tree as the build left it: the walks kept with its index, made when it was so
   * too, stand for this runtime's (only the root's, as they were kept).
   */
  #restoreWalks(): void {
    const r = this.#record;
    if (!r || !this.#asBuilt() || r.rules !== this.#rulesUnwatched) return;
    for (const w of r.walks)
      this.#summaries.set(w.key, { shape: this.#shape, unindexed: w.unindexed, skipped: w.skipped });
  }

  /**
   * The kept walk for `q` and the files changed since the build, when the tree is as the build left
   * it (kept_check.ts) — one check for the searches that come while it runs; 'late' for one that
   * comes after it, which waits for the background check instead (changes since are unwatched).
   */
  async #keptNow(
    q: PrefilterQuery,
    idx: LoadedIndex,
  ): Promise<{ walk: KeptWalk; changed: string[] } | 'late' | undefined> {
    const walk = this.#keptWalk(q);
    if (!walk) return undefined;
    const k = this.#keptCheck;
    if (k?.idx !== idx) this.#startKept(q, idx);
    else if (k.settled) return 'late';
    const holds = await this.#keptCheck?.holds;
    return holds && this.#idx === idx && !this.#closed ? { walk, changed: holds.changed } : undefined;
  }

  /** The walk kept for `q`'s walk of the root, if a record holds one. */
  #keptWalk(q: PrefilterQuery): KeptWalk | undefined {
    const r = this.#record;
    if (!r || !q.walk.useIgnore || q.walk.hidden || q.walk.fileGlobs?.length) return undefined;
    return r.walks.find((w) => w.key === walkKey('', q));
  }

  /** Starts the check of the kept walk for `q` on `idx` unless one was; whether one was started now. */
  #startKept(q: PrefilterQuery, idx: LoadedIndex): boolean {
    const r = this.#record;
    if (!r || this.#keptCheck?.idx === idx || !this.#keptWalk(q)) return false;
    const check = { root: this.o.root, idx, runner: this.o.runner, dirs: this.#dirs, rules: r.rules };
    const started = {
      idx,
      settled: false,
      holds: keptWalkHolds({ ...check, ...(this.o.gitUser ? { gitUser: this.o.gitUser } : {}) }).catch(() => undefined),
    };
    void started.holds.finally(() => {
      started.settled = true;
    });
    this.#keptCheck = started;
    return true;
  }

  /** `idx` cannot be used after all (loaded, its key tables then found damaged): dropped, as if never loaded. */
  #unusable(idx: LoadedIndex): void {
    if (this.#idx !== idx) return;
    this.#idx = undefined;
    idx.close();
    this.#watch?.close();
    this.#watch = undefined;
    this.#check = undefined;
  }

  /** A walk of the root learned while the tree is as built is kept for the runtimes that load this index. */
  #keep(walk: KeptWalk): void {
    const idx = this.#idx;
    if (!idx || this.#check || !this.#asBuilt()) return;
    const rules = rulesOutsideWatches(this.#outsideRules, this.#linkedIgnores);
    if (rules !== this.#rulesUnwatched) return;
    const had = this.#record?.builtAt === idx.builtAt && this.#record.size === idx.size ? this.#record : undefined;
    if (had?.walks.some((w) => w.key === walk.key)) return;
    const record = { builtAt: idx.builtAt, size: idx.size, rules, walks: [...(had?.walks ?? []), walk] };
    if (writeWalkRecord(this.file, record)) this.#record = record;
  }

  /** A rule changed: a directory the build never entered (ignored) may now be walked, unwatched. */
  #rulesChanged(): void {
    this.#unwatched = true;
    this.#rebuild();
  }

  /**
   * Something happened to the entry `rel`. Named and still a file the index holds: its content may
   * have changed. Anything else — a new entry (unless it is already gone again, as a write's temporary
   * file is), a removed one, an ignore file, an event naming nothing — may change the tree's shape.
   */
  #event(rel: string, named: boolean, lost?: boolean): void {
    for (const s of this.#recording) s.add([rel, named, lost]);
    if (lost) this.#unwatched = true;
    const base = baseOf(rel);
    if (!named || IGNORE_NAMES.has(base)) {
      if (named) this.#rulesChanged();
      this.#shape++;
      this.#mark(rel);
      return;
    }
    const st = lstatIfAny(path.join(this.o.root, rel));
    if (st?.isDirectory() && (!this.#dirs.has(rel) || this.#watch?.replaced(rel))) this.#unwatched = true;
    if (st?.isFile() && (this.#idx?.rels.idOf(rel) ?? -1) >= 0) this.#mark(rel);
    // Any other entry that came or went may be one a walk met or counted as skipped (an ignored or
    // hidden file) — except this process's write lane temporary file, gone again by the time its event
    // is read (another's, or a file named like one, may have been met by a walk).
    else if (st || !WRITE_TEMP.test(base)) {
      this.#shape++;
      this.#mark(rel);
    }
  }

  #mark(rel: string): void {
    const files = this.#idx?.rels;
    if (!files) return;
    if (files.idOf(rel) >= 0) this.#changed.add(rel);
    // A directory's files are one run of the table's path order.
    if (rel === '' || this.#dirs.has(rel))
      for (const f of files.under(rel === '' ? '' : `${rel}/`)) this.#changed.add(files.relOf(f));
  }
}

/** A walk summary's key: the walked directory, the deny patterns and the search's filter. */
const walkKey = (at: string, q: PrefilterQuery) =>
  `${at}\0${JSON.stringify(q.walk.deny ?? null)}\0${JSON.stringify(q.filter ?? null)}`;
