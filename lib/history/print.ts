/**
 * Text of the journal's answers for a person: the history as a table (with the agent run and turn
 * of each call, when an agent run made them), and what an undo or redo did (stdout) and left as it
 * was (stderr, with each file's diff since the journal saw it).
 */
import type { HistoryEntry } from './journal.ts';
import type { FileChange, RewindOutcome } from './rewind.ts';

const LETTER: Record<FileChange, string> = { created: 'A', modified: 'M', deleted: 'D' };
const MAX_FILES_SHOWN = 4;

const pad2 = (n: number) => String(n).padStart(2, '0');
/** Local time, to the second: when a person made the change. */
function when(ms: number): string {
  const d = new Date(ms);
  return `${d.getFullYear()}-${pad2(d.getMonth() + 1)}-${pad2(d.getDate())} ${pad2(d.getHours())}:${pad2(d.getMinutes())}:${pad2(d.getSeconds())}`;
}

function what(e: HistoryEntry): string {
  if (e.kind === 'call') return `${e.tool ?? '?'}${e.undone ? ' (undone)' : ''}`;
  return `${e.kind} ${(e.undoes ?? []).join(',')}`;
}

function filesOf(e: HistoryEntry): string {
  const shown = e.files.slice(0, MAX_FILES_SHOWN).map((f) => `${LETTER[f.change]} ${f.path}`);
  const more = e.files.length - shown.length;
  return [...shown, ...(more > 0 ? [`+${more} more`] : [])].join(', ') || '(no file changed)';
}

/** The agent run and turn of a call, as `run/turn` (`-` for a call no agent run made). */
const turnOf = (e: HistoryEntry) => (e.run !== undefined ? `${e.run}/${e.turn ?? '?'}` : '-');

export function historyTable(list: readonly HistoryEntry[]): string {
  if (list.length === 0) return 'The journal is empty: no write tool or command has changed this root yet.\n';
  // The RUN/TURN column only when an agent run made some entry: a person's own calls have none.
  const byRuns = list.some((e) => e.run !== undefined);
  const rows = list.map((e) => [String(e.id), when(e.time), ...(byRuns ? [turnOf(e)] : []), what(e), filesOf(e)]);
  const head = ['ID', 'TIME', ...(byRuns ? ['RUN/TURN'] : []), 'CHANGE', 'FILES'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] as string).length)));
  const line = (r: string[]) =>
    `${r
      .map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i] as number)))
      .join('  ')
      .trimEnd()}\n`;
  return [head, ...rows].map(line).join('');
}

/** What a restore did (out), what it left (err), and whether it left nothing. */
export function rewindReport(o: RewindOutcome, kind: 'undo' | 'redo'): { out: string; err: string; clean: boolean } {
  const out: string[] = [];
  const took = kind === 'undo' ? `Undid ${plural('entry', o.undid)}` : `Redid (took back undo ${o.undid.join(', ')})`;
  const recorded = o.entry !== undefined ? ` (recorded as entry ${o.entry})` : '';
  const nothing = o.restored.length + o.unchanged.length + o.dirsRemoved.length === 0;
  if (nothing && o.entry === undefined) out.push(`Nothing was ${kind === 'undo' ? 'undone' : 'redone'}:`);
  else out.push(`${took}${recorded}:`);
  for (const f of o.restored) out.push(`  ${LETTER[f.change]} ${f.path}`);
  for (const p of o.unchanged) out.push(`  = ${p} (already as it was)`);
  for (const d of o.dirsRemoved) out.push(`  removed the empty directory ${d}/`);
  if (nothing) out.push('  no file was changed');
  const err: string[] = [];
  for (const c of o.conflicts)
    err.push(`left as it is: ${c.path}: ${c.why} (--force restores it anyway)`, ...(c.diff ? [c.diff] : []));
  for (const f of o.failed) err.push(`not restored: ${f.path}: ${f.message}`);
  if (o.recordError) err.push(`the restore was not recorded in the journal (${o.recordError}); it cannot be redone`);
  const text = (l: string[]) => (l.length ? `${l.join('\n')}\n` : '');
  return { out: text(out), err: text(err), clean: o.conflicts.length + o.failed.length === 0 };
}

const plural = (word: string, ids: readonly number[]) =>
  `${ids.length === 1 ? word : word.replace(/y$/, 'ies')} ${ids.join(', ')}`;
