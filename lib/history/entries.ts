/**
 * The journal's entries as stored (one JSON line each in the index) and what the log of them means:
 * which call entries are in effect, which undos can be redone, and what the journal last saw of each
 * file. Pure data, no I/O.
 */

/**
 * A file's state in an entry: the sha256 of its bytes, mode and size; null: absent. The bytes are
 * inline (`d`, base64) when small, else in the blob named by the hash.
 */
export interface StoredImage {
  h: string;
  m: number;
  n: number;
  d?: string;
}

export interface EntryFile {
  /** Relative to the root, `/`-separated. */
  p: string;
  b: StoredImage | null;
  a: StoredImage | null;
}

export type EntryKind = 'call' | 'undo' | 'redo';

export interface Entry {
  v: 1;
  id: number;
  /** When it was recorded (ms since the epoch). */
  t: number;
  kind: EntryKind;
  /** The tool of a call entry. */
  tool?: string;
  /** The agent run and turn that made a call entry (absent for calls no agent run made). */
  run?: string;
  turn?: number;
  files: EntryFile[];
  /** Directories the entry's change created, relative to the root (parents first). */
  dirs: string[];
  /** undo: the call entries it took back; redo: the undo entry it reversed. */
  undoes?: number[];
}

/** What the log comes to: call entries in effect (oldest first) and undo entries that may be redone (last on top). */
export interface Stacks {
  done: number[];
  redo: number[];
}

/**
 * Replays the log as an editor's undo stack: a call goes on `done` and empties `redo`; an undo takes
 * its entries off `done` and goes on `redo`; a redo takes its undo off `redo` and puts that undo's
 * entries back. Entries the collection removed are skipped.
 */
export function replay(entries: readonly Entry[]): Stacks {
  const byId = new Map(entries.map((e) => [e.id, e]));
  let done: number[] = [];
  let redo: number[] = [];
  for (const e of entries) {
    const undoes = e.undoes ?? [];
    if (e.kind === 'call') {
      done.push(e.id);
      redo = [];
    } else if (e.kind === 'undo') {
      done = done.filter((id) => !undoes.includes(id));
      redo.push(e.id);
    } else {
      redo = redo.filter((id) => !undoes.includes(id));
      for (const u of undoes) for (const id of byId.get(u)?.undoes ?? []) if (byId.has(id)) done.push(id);
    }
  }
  return { done, redo };
}

/** What the journal last saw of each path it recorded: the latest after-image. */
export function latestAfter(entries: readonly Entry[]): Map<string, StoredImage | null> {
  const out = new Map<string, StoredImage | null>();
  for (const e of entries) for (const f of e.files) out.set(f.p, f.a);
  return out;
}

/** One file of a rewind: what it must be now and what it goes back to. */
export interface PlannedFile {
  p: string;
  expect: StoredImage | null;
  to: StoredImage | null;
}

/**
 * Taking back the entries `ids`: each file they changed goes back to its before-image in the
 * earliest of them that changed it, provided it is still the journal's latest after-image; the
 * directories they created go too (deepest first), when empty.
 */
export function planUndo(entries: readonly Entry[], ids: readonly number[]): { files: PlannedFile[]; dirs: string[] } {
  const latest = latestAfter(entries);
  const taken = entries.filter((e) => ids.includes(e.id));
  const to = new Map<string, StoredImage | null>();
  for (const e of taken) for (const f of e.files) if (!to.has(f.p)) to.set(f.p, f.b);
  const files = [...to].map(([p, target]) => ({ p, expect: latest.get(p) ?? null, to: target }));
  const dirs = [...new Set(taken.flatMap((e) => e.dirs))].sort((a, b) => b.length - a.length || (a < b ? 1 : -1));
  return { files, dirs };
}

/** Parses the index's text: one entry per line; a line that is not a whole entry (a torn last write) is skipped. */
export function parseIndex(text: string): { entries: Entry[]; skipped: number } {
  const entries: Entry[] = [];
  let skipped = 0;
  for (const line of text.split('\n')) {
    if (line === '') continue;
    try {
      const e = JSON.parse(line) as Entry;
      if (e?.v === 1 && Number.isInteger(e.id) && Array.isArray(e.files)) entries.push(e);
      else skipped++;
    } catch {
      skipped++;
    }
  }
  return { entries, skipped };
}
