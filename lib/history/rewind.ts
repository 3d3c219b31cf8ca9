/**
 * Carrying out a rewind's plan (entries.ts `planUndo`): each file is swapped only when it is still
 * what the journal last saw (lib/files/swap.ts), otherwise it is left as it is and reported with a
 * short diff; then the directories the undone entries created are removed when empty. The answer is
 * data; lib/history/print.ts makes text of it (for the CLI and the MCP tools). Write lane, main thread.
 */
import path from 'node:path';
import { looksBinary } from '../core/encoding.ts';
import { unifiedDiff } from '../edit/diff.ts';
import type { ChangeSink, FileImage } from '../files/changes.ts';
import { removeEmptyDir } from '../files/dir_tree.ts';
import { swapFile } from '../files/swap.ts';
import type { PlannedFile, StoredImage } from './entries.ts';
import type { JournalStore } from './store.ts';

export type FileChange = 'created' | 'modified' | 'deleted';

export interface RewindOutcome {
  /** The restore's own journal entry (it can be undone too: that is redo). */
  entry?: number;
  /** undo: the call entries taken back; redo: the undo entry reversed. */
  undid: number[];
  restored: { path: string; change: FileChange }[];
  /** Files that already were as the rewind would make them. */
  unchanged: string[];
  /** Files changed since the journal last saw them: left untouched (unless force). */
  conflicts: { path: string; why: string; diff: string }[];
  failed: { path: string; message: string }[];
  dirsRemoved: string[];
  /** The restore was made but could not be recorded (so it cannot be redone). */
  recordError?: string;
}

interface Ctx {
  root: string;
  store: JournalStore;
  force: boolean;
  sink: ChangeSink;
  onChange?: (real: string) => void;
}

export async function carryOut(
  c: Ctx,
  plan: { files: PlannedFile[]; dirs: string[] },
): Promise<Omit<RewindOutcome, 'undid'>> {
  const out: Omit<RewindOutcome, 'undid'> = { restored: [], unchanged: [], conflicts: [], failed: [], dirsRemoved: [] };
  // Deletions first (deepest first), then the directories made, then the writes: a file that a
  // command replaced by a directory comes back only once what was put under its path is gone.
  const depth = (p: string) => p.split('/').length;
  const deletions = plan.files.filter((f) => !f.to).sort((a, b) => depth(b.p) - depth(a.p));
  for (const f of deletions) await restoreOne(c, f, out);
  for (const d of plan.dirs) if (removeEmptyDir(c.root, path.join(c.root, d))) out.dirsRemoved.push(d);
  for (const f of plan.files) if (f.to) await restoreOne(c, f, out);
  return out;
}

async function restoreOne(c: Ctx, f: PlannedFile, out: Omit<RewindOutcome, 'undid'>): Promise<void> {
  const to = f.to ? image(c.store, f.to) : undefined;
  if (to === null) {
    out.failed.push({ path: f.p, message: 'its recorded bytes are missing from the journal' });
    return;
  }
  const real = path.join(c.root, f.p);
  const expect = f.expect ? { sha256: f.expect.h, mode: f.expect.m } : undefined;
  const r = await swapFile(c.root, { real, expect, to }, { force: c.force, sink: c.sink, onChange: c.onChange });
  if (r.status === 'done')
    out.restored.push({ path: f.p, change: !to ? 'deleted' : f.expect ? 'modified' : 'created' });
  else if (r.status === 'same') out.unchanged.push(f.p);
  else if (r.status === 'failed') out.failed.push({ path: f.p, message: r.message });
  else out.conflicts.push({ path: f.p, why: r.why ?? whyOf(f.expect, r.current), diff: diffOf(c.store, f, r.current) });
}

/** The bytes and mode of a stored image; null when its blob is gone. */
function image(store: JournalStore, i: StoredImage): FileImage | null {
  const bytes = store.getImage(i);
  return bytes ? { bytes, mode: i.m } : null;
}

function whyOf(expect: StoredImage | null, current: FileImage | undefined): string {
  if (!expect) return 'it was created after the agent deleted it';
  if (!current) return 'it was deleted since';
  if (current.mode !== expect.m)
    return `its mode changed since (${expect.m.toString(8)} → ${current.mode.toString(8)})`;
  return 'it was changed since';
}

const MAX_DIFF_LINES = 40;

/** What changed since the journal's after-image, as a unified diff cut to a few lines. */
function diffOf(store: JournalStore, f: PlannedFile, current: FileImage | undefined): string {
  const was = f.expect ? (store.getImage(f.expect) ?? Buffer.alloc(0)) : Buffer.alloc(0);
  const now = current?.bytes ?? Buffer.alloc(0);
  if (looksBinary(was) || looksBinary(now)) return `(binary: ${was.length} → ${now.length} bytes)`;
  const lines = unifiedDiff(f.p, was.toString('utf8'), now.toString('utf8')).split('\n');
  const cut = lines.length > MAX_DIFF_LINES;
  return [...lines.slice(0, MAX_DIFF_LINES), ...(cut ? [`… ${lines.length - MAX_DIFF_LINES} more lines`] : [])].join(
    '\n',
  );
}
