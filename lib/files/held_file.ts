/**
 * A file held for the length of one change: in-process and cross-process locks taken (in
 * path order when several files change together), the parent directory opened and checked, the
 * current content loaded, and a `commit` that writes atomically with a compare-and-swap against what
 * was loaded, then records the new state in the ledger. Write lane, main thread.
 */
import { lstatSync, unlinkSync } from 'node:fs';
import path from 'node:path';
import { lstatBigIfAny } from '../core/lstat_if_any.ts';
import { type CheckedPath, displayPath } from '../core/paths.ts';
import { errValue, okValue, type Result } from '../core/result.ts';
import { quote } from '../core/text.ts';
import { fail, type ToolResult } from '../core/tool.ts';
import type { Wording } from '../core/wording.ts';
import { atomicWrite, type DirHandle, openDir, type WriteError } from './atomic.ts';
import type { ChangeSink, FileImage } from './changes.ts';
import { openDirFrom } from './dir_tree.ts';
import type { Ledger } from './ledger.ts';
import { acquireFileLock, withPathLock } from './locks.ts';
import { encodeText, loadText, type TextFile, type TextStyle } from './text_file.ts';

/** What holding files needs of the write lane's context: the root, and the read ledger that vouches for each file. */
interface HeldFileContext {
  root: string;
  ledger: Ledger;
  /** How a refusal says what to do (the ledger's "read it first"). */
  wording?: Wording;
  /** Told of every file written or deleted and every directory made (the journal's recorder). */
  changes?: ChangeSink;
}

export interface HeldFile {
  real: CheckedPath;
  shown: string;
  /** The file as loaded under the locks; undefined when it does not exist. */
  current: TextFile | undefined;
  /** not_read / stale against the ledger; undefined when the loaded file is the one that was read. */
  fresh(): ToolResult | undefined;
  /** Writes `text` in `style`, atomically and only if the file is still what was loaded. */
  commit(text: string, style: Pick<TextStyle, 'encoding' | 'bom' | 'eol'>): ToolResult | undefined;
  /** Deletes the file, only if it is still what was loaded. */
  remove(): ToolResult | undefined;
  /** Puts bytes back (rollback): whatever is there now is replaced, or the file re-created. */
  restore(bytes: Buffer | undefined, mode?: number): void;
  /** What the last commit left on disk (bytes and mode), for the journal. */
  readonly written: FileImage | undefined;
}

interface HoldOptions {
  /** Create missing parent directories (write_file, apply_patch's Add File). */
  createParents?: boolean;
  /** Receives the directories created for it. */
  made?: string[];
}

const imageOf = (bytes: Buffer, mode: bigint | number): FileImage => ({ bytes, mode: Number(mode) & 0o7777 });

/**
 * The held file with every change it makes told to `sink` as it happens, so a rollback is told too
 * (the recorder keeps each file's first before-image and last after-image).
 */
function reported(t: HeldFile, sink: ChangeSink): HeldFile {
  const before = t.current ? imageOf(t.current.bytes, t.current.stat.mode) : undefined;
  return {
    ...t,
    get written() {
      return t.written;
    },
    commit(text, style) {
      const err = t.commit(text, style);
      if (!err) sink.file(t.real, before, t.written);
      return err;
    },
    remove() {
      const err = t.remove();
      if (!err) sink.file(t.real, before, undefined);
      return err;
    },
    restore(bytes, mode) {
      t.restore(bytes, mode);
      sink.file(t.real, before, bytes === undefined ? undefined : imageOf(bytes, mode ?? before?.mode ?? 0o644));
    },
  };
}

/** Holds every file of one change and runs `fn` with them; releases everything afterwards. */
export async function withHeldFiles(
  ctx: HeldFileContext,
  files: readonly CheckedPath[],
  options: HoldOptions,
  fn: (targets: HeldFile[]) => ToolResult | Promise<ToolResult>,
): Promise<ToolResult> {
  const ledger = ctx.ledger;
  const order = [...new Set(files)].sort(); // one global order: two multi-file changes cannot deadlock
  const held: (() => void)[] = [];
  const dirs: DirHandle[] = [];
  const run = async (): Promise<ToolResult> => {
    for (const real of order) {
      const lock = await acquireFileLock(real);
      if (!lock.ok) {
        const who = lock.error ? ` (process ${lock.error.pid})` : '';
        return fail(
          'locked',
          `${quote(displayPath(ctx.root, real))} is locked by another writer${who}; nothing was written. Try again shortly.`,
        );
      }
      held.push(lock.value);
    }
    const targets: HeldFile[] = [];
    for (const real of files) {
      const made: string[] = [];
      const t = open(ctx.root, real, ledger, { ...options, made }, dirs, ctx.wording?.readFirst);
      for (const d of made) ctx.changes?.dir(d);
      if (!t.ok) return t.error;
      targets.push(ctx.changes ? reported(t.value, ctx.changes) : t.value);
    }
    return fn(targets);
  };
  // Nest the in-process locks in the same order.
  const nest = (i: number): Promise<ToolResult> =>
    i === order.length ? run() : withPathLock(order[i] as string, () => nest(i + 1));
  try {
    return await nest(0);
  } finally {
    for (const release of held.reverse()) release();
    for (const d of dirs) d.close();
  }
}

function open(
  root: string,
  real: CheckedPath,
  ledger: Ledger,
  options: HoldOptions,
  dirs: DirHandle[],
  readFirst?: string,
): Result<HeldFile, ToolResult> {
  const shown = displayPath(root, real);
  const parent = path.dirname(real);
  const name = path.basename(real);
  // Missing parents are made one component at a time through descriptors from the root (mkdir -p
  // by path would follow a directory swapped for a symlink meanwhile, and create them wherever it points).
  const opened = options.createParents ? openDirFrom(root, parent, true, options.made) : openDir(parent, root);
  if (!opened.ok) return errValue(fail(opened.error.code, `Cannot write ${quote(shown)}: ${opened.error.message}`));
  const dir = opened.value;
  dirs.push(dir);
  const loaded = loadText(dir, name, shown);
  if (!loaded.ok) return loaded;
  const current = loaded.value;
  const toResult = (e: WriteError | undefined) =>
    e ? fail(e.code, `Cannot write ${quote(shown)}: ${e.message}`) : undefined;

  const unchanged = () => stillLoaded(dir, name, current);

  let written: FileImage | undefined;
  return okValue({
    real,
    shown,
    current,
    get written() {
      return written;
    },
    fresh() {
      if (!current) return undefined;
      const f = ledger.verify(real, shown, current.stat, current.bytes, readFirst);
      return f.ok ? undefined : fail(f.error.code, f.error.message);
    },
    commit(text, style) {
      const data = encodeText(text, style);
      const mode = current ? Number(current.stat.mode & 0o7777n) : undefined;
      const owner = current ? { uid: Number(current.stat.uid), gid: Number(current.stat.gid) } : undefined;
      const err = atomicWrite({
        dir,
        name,
        data,
        ...(mode !== undefined ? { mode } : {}),
        ...(owner ? { owner } : {}),
        beforeRename: unchanged,
      });
      if (err) return toResult(err);
      const st = lstatSync(dir.at(name), { bigint: true });
      ledger.recordWrite(real, st, data, style);
      written = imageOf(data, st.mode);
      return undefined;
    },
    remove() {
      const err = unchanged();
      if (err) return toResult(err);
      try {
        unlinkSync(dir.at(name));
      } catch (e) {
        return fail('io', `Cannot delete ${quote(shown)}: ${(e as NodeJS.ErrnoException).code}`);
      }
      ledger.forget(real);
      return undefined;
    },
    restore(bytes, mode) {
      if (bytes === undefined) {
        try {
          unlinkSync(dir.at(name));
        } catch {
          // not there: nothing to undo
        }
      } else {
        atomicWrite({ dir, name, data: bytes, ...(mode !== undefined ? { mode } : {}) });
      }
      ledger.forget(real);
    },
  });
}

/**
 * The compare-and-swap: the file must still be the one loaded (or still absent), checked with the
 * new bytes already on disk and nothing else running on this thread until the rename.
 */
function stillLoaded(dir: DirHandle, name: string, current: TextFile | undefined): WriteError | undefined {
  const now = lstatBigIfAny(dir.at(name));
  if (!current)
    return now
      ? {
          code: 'stale',
          message: 'a file appeared there while the change was being made; nothing was written. Read it and retry.',
        }
      : undefined;
  const same =
    now?.isFile() &&
    now.ino === current.stat.ino &&
    now.size === current.stat.size &&
    now.mtimeNs === current.stat.mtimeNs &&
    now.ctimeNs === current.stat.ctimeNs;
  return same
    ? undefined
    : {
        code: 'stale',
        message: 'it changed while the change was being made; nothing was written. Read it again and retry.',
      };
}
