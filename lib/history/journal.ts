/**
 * The journal of one root: what every write-tool call changed (recorded by the write lane through
 * `begin`, before the call's answer returns), the history of it (`list`), and rewinding it (`undo`,
 * `redo`, `rewind`), each restore queued in the write lane and journaled itself. Restores and the
 * semantics of undo/redo: docs/undo.md. Main thread.
 */
import path from 'node:path';
import { errValue, okValue, type Result } from '../core/result.ts';
import type { CallChanges, ChangeRecorder, FileImage, RecordNote } from '../files/changes.ts';
import { type Bounds, collect } from './collect.ts';
import { type Entry, type EntryKind, planUndo, replay, type StoredImage } from './entries.ts';
import { type Change, type EntryWhat, Recording } from './recording.ts';
import { carryOut, type FileChange, type RewindOutcome } from './rewind.ts';
import { JournalStore } from './store.ts';

/** One entry as the history shows it. */
export interface HistoryEntry {
  id: number;
  /** When it was recorded (ms since the epoch). */
  time: number;
  /** call: a write tool's call; undo, redo: a restore. */
  kind: EntryKind;
  tool?: string;
  /** The agent run and turn that made a call entry, when an agent run did. */
  run?: string;
  turn?: number;
  files: { path: string; change: FileChange }[];
  /** undo: the entries it took back; redo: the undo it reversed. */
  undoes?: number[];
  /** A call entry taken back by an undo (and not redone). */
  undone?: boolean;
}

export interface RewindOptions {
  /** Restore files changed since the journal saw them too (their current content is lost). */
  force?: boolean;
}

interface JournalConfig {
  root: string;
  /** This root's journal directory. */
  dir: string;
  bounds: Bounds;
  /** Runs a restore in the write lane's queue. */
  queue: <T>(fn: () => Promise<T>) => Promise<T>;
  /** Told of every path a restore wrote or deleted (the ledger). */
  onChange?: (real: string) => void;
  /** How many files of the root a shell command is compared over (default SHELL_MAX_FILES). */
  shellMaxFiles?: number;
}

/**
 * Past this many files in the root, a shell command's changes are not compared: the root's states are
 * kept in memory between commands (~25 MiB of heap and a watch per directory on 100k files, and a
 * first command that walks it all: ~2 s; docs/undo.md "Cost").
 */
export const SHELL_MAX_FILES = 200_000;

const changeOf = (b: StoredImage | null, a: StoredImage | null): FileChange =>
  b === null ? 'created' : a === null ? 'deleted' : 'modified';

export class Journal implements ChangeRecorder {
  readonly dir: string;
  readonly shellMaxFiles: number;
  readonly #c: JournalConfig;
  readonly #store: JournalStore;
  /** Blob bytes as of the last collection plus what was added since; unknown until the first. */
  #bytes: number | undefined;

  constructor(c: JournalConfig) {
    this.#c = c;
    this.dir = c.dir;
    this.shellMaxFiles = c.shellMaxFiles ?? SHELL_MAX_FILES;
    this.#store = new JournalStore(c.dir);
  }

  begin(tool: string, origin?: { run: string; turn: number }): CallChanges {
    return new Recording(this, { kind: 'call', tool, ...(origin ? { run: origin.run, turn: origin.turn } : {}) });
  }

  /** Writes one entry: its blobs, then its index line, under the journal's lock. */
  async write(e: EntryWhat & { files: Change[]; dirs: string[] }): Promise<RecordNote> {
    const ready = this.#store.ensure();
    if (!ready.ok) return { error: ready.error };
    const rel = (p: string) => path.relative(this.#c.root, p).split(path.sep).join('/');
    let added = 0;
    const put = (i: FileImage | undefined): StoredImage | null => {
      if (!i) return null;
      added += i.bytes.length;
      return this.#store.putImage(i.bytes, i.mode);
    };
    try {
      const done = await this.#store.locked(() => {
        const files = e.files.map((f) => ({ p: rel(f.real), b: put(f.before), a: put(f.after) }));
        const entry = { v: 1 as const, t: Date.now(), kind: e.kind, files, dirs: e.dirs.map(rel) };
        const id = this.#store.append({
          ...entry,
          ...(e.tool ? { tool: e.tool } : {}),
          ...(e.run !== undefined ? { run: e.run, turn: e.turn } : {}),
          ...(e.undoes ? { undoes: e.undoes } : {}),
        });
        // The first write of a process, and any that may pass the cap, collects (oldest first).
        if (this.#bytes === undefined || this.#bytes + added > this.#c.bounds.maxBytes)
          this.#bytes = collect(this.#store, this.#c.bounds);
        else this.#bytes += added;
        return id;
      });
      return done.ok ? { id: done.value } : { error: done.error };
    } catch (err) {
      return { error: `${(err as NodeJS.ErrnoException).code ?? (err as Error).message} writing ${this.dir}` };
    }
  }

  list(): HistoryEntry[] {
    const entries = this.#store.read();
    const { done } = replay(entries);
    return entries.map((e) => ({
      id: e.id,
      time: e.t,
      kind: e.kind,
      ...(e.tool ? { tool: e.tool } : {}),
      ...(e.run !== undefined ? { run: e.run, turn: e.turn } : {}),
      files: e.files.map((f) => ({ path: f.p, change: changeOf(f.b, f.a) })),
      ...(e.undoes ? { undoes: e.undoes } : {}),
      ...(e.kind === 'call' && !done.includes(e.id) ? { undone: true } : {}),
    }));
  }

  /** Takes back the last call entry in effect. */
  undo(o: RewindOptions = {}): Promise<Result<RewindOutcome, string>> {
    return this.#last('undo', 'nothing to undo: the journal has no change in effect', o);
  }

  /** Takes back the last undo (while no call came after it). */
  redo(o: RewindOptions = {}): Promise<Result<RewindOutcome, string>> {
    return this.#last('redo', 'nothing to redo: no undo since the last change', o);
  }

  /** undo: the top of the stack of calls in effect; redo: the top of the stack of undos. */
  #last(kind: 'undo' | 'redo', none: string, o: RewindOptions): Promise<Result<RewindOutcome, string>> {
    return this.#c.queue(async () => {
      const entries = this.#store.read();
      const stacks = replay(entries);
      const last = (kind === 'undo' ? stacks.done : stacks.redo).at(-1);
      if (last === undefined) return errValue(none);
      return okValue(await this.#restore(entries, kind, [last], o));
    });
  }

  /** Brings the tree back to the state right after call entry `id`: every call in effect after it is taken back. */
  rewind(id: number, o: RewindOptions = {}): Promise<Result<RewindOutcome, string>> {
    return this.#c.queue(async () => {
      const entries = this.#store.read();
      const { done } = replay(entries);
      const at = done.indexOf(id);
      if (at === -1) return errValue(notInEffect(entries, id));
      const after = done.slice(at + 1);
      if (after.length === 0) return errValue(`nothing to undo: entry ${id} is the last change in effect`);
      return okValue(await this.#restore(entries, 'undo', after, o));
    });
  }

  async #restore(entries: Entry[], kind: EntryKind, ids: number[], o: RewindOptions): Promise<RewindOutcome> {
    const rec = new Recording(this, { kind, undoes: ids });
    const plan = planUndo(entries, ids);
    const c = this.#c;
    const out = await carryOut(
      {
        root: c.root,
        store: this.#store,
        force: o.force ?? false,
        sink: rec,
        ...(c.onChange ? { onChange: c.onChange } : {}),
      },
      plan,
    );
    // Nothing restored and something refused: the entries stay in effect, and no entry is written.
    const refusedAll = out.restored.length === 0 && out.conflicts.length + out.failed.length > 0;
    const note = refusedAll ? undefined : await rec.finish(true);
    return {
      ...out,
      undid: ids,
      ...(note && 'id' in note ? { entry: note.id } : {}),
      ...(note && 'error' in note ? { recordError: note.error } : {}),
    };
  }
}

function notInEffect(entries: Entry[], id: number): string {
  const e = entries.find((x) => x.id === id);
  if (!e) return `there is no entry ${id} in the journal (mewcode history lists them; old ones are collected)`;
  if (e.kind !== 'call') return `entry ${id} is an ${e.kind}, not a change; give the id of a change`;
  return `entry ${id} was undone; redo it first, or give a change in effect`;
}
