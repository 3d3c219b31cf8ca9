/**
 * One change to a notebook's JSON text — a cell's source replaced, a cell inserted after another, a
 * cell deleted — made as a text edit of that cell alone (jsonc-parser's modify), so every byte outside
 * it stays as it was: the notebook's indentation, key order, metadata and other cells (a notebook
 * written on one line is the exception: see `checked`). Pure.
 */
import { randomBytes } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { applyEdits, type FormattingOptions, modify } from 'jsonc-parser';
import { errValue, okValue, type Result } from '../core/result.ts';
import { type NotebookCell, parseNotebook } from './notebook_view.ts';

export type EditMode = 'replace' | 'insert' | 'delete';

export interface NotebookChange {
  /** The cell changed, or the one a new cell goes after (absent: the new cell goes first). */
  cellId?: string;
  mode: EditMode;
  source?: string;
  cellType?: 'code' | 'markdown' | 'raw';
}

export interface ChangedNotebook {
  text: string;
  /** The id of the cell replaced, inserted or deleted, and its 1-based position. */
  id: string;
  at: number;
}

/** A cell named by its id, or by `cell-N` (its 1-based position) when it has none. */
export const cellLabel = (c: NotebookCell, n: number) => (c.id === undefined ? `cell-${n}` : String(c.id));

export function changeNotebook(text: string, change: NotebookChange): Result<ChangedNotebook, string> {
  const nb = parseNotebook(text);
  if (!nb.ok) return errValue(`the notebook cannot be edited: ${nb.why}`);
  const cells = nb.value.cells;
  const at = change.cellId === undefined ? -1 : findCell(cells, change.cellId);
  if (typeof at === 'string') return errValue(at);
  if (change.mode !== 'insert' && at < 0) return errValue(`${change.mode} needs cell_id: the cell to ${change.mode}`);
  const source = change.source ?? '';
  let plan: { changes: Change[]; insert?: boolean; id: string; at: number };
  if (change.mode === 'delete')
    plan = { changes: [[['cells', at], undefined]], id: cellLabel(cells[at] as NotebookCell, at + 1), at: at + 1 };
  else if (change.mode === 'insert') {
    const cell = newCell(change.cellType ?? 'code', source, nb.value.nbformat_minor ?? 0, cells);
    const id = (cell.id as string | undefined) ?? `cell-${at + 2}`;
    plan = { changes: [[['cells', at + 1], cell]], insert: true, id, at: at + 2 };
  } else {
    const old = cells[at] as NotebookCell;
    plan = { changes: replacement(old, at, source, change.cellType), id: cellLabel(old, at + 1), at: at + 1 };
  }
  const fmt = formattingOf(text);
  return okValue({ text: checked(text, fmt, plan.changes, plan.insert), id: plan.id, at: plan.at });
}

/**
 * The cell `id` names: its own id, else — for a cell with none — its `cell-N` name. Two cells with one
 * id are refused rather than guessed between.
 */
function findCell(cells: NotebookCell[], id: string): number | string {
  const own = cells.flatMap((c, i) => (c.id !== undefined && String(c.id) === id ? [i] : []));
  if (own.length > 1)
    return `${own.length} cells have the id ${JSON.stringify(id)} (cells ${own.map((i) => i + 1).join(', ')}); give them different ids first`;
  if (own.length === 1) return own[0] as number;
  const at = cells.findIndex((c, i) => c.id === undefined && `cell-${i + 1}` === id);
  if (at >= 0) return at;
  const ids = cells.slice(0, 20).map((c, i) => cellLabel(c, i + 1));
  return `no cell has the id ${JSON.stringify(id)}; the notebook's cells are ${ids.join(', ')}${cells.length > 20 ? ', …' : ''} (read it with read_file to see them)`;
}

type Change = [(string | number)[], unknown];

/**
 * `text` with the changes made as text edits of their own places — checked: the result must be the
 * notebook the changes describe. jsonc-parser's edit of a one-line array can go wrong (the last
 * element removed from `[{…},{…}]` left `[{…}}]`); then the notebook is written whole from its
 * parsed value instead, in the file's indentation, and every byte may change.
 */
function checked(text: string, fmt: FormattingOptions, changes: Change[], insert = false): string {
  const want = JSON.parse(text.replace(/^\uFEFF/, '')) as unknown;
  for (const [path, value] of changes) applyTo(want, path, value, insert);
  let t = text;
  try {
    for (const [path, value] of changes)
      t = applyEdits(
        t,
        modify(t, path, value, { formattingOptions: fmt, ...(insert ? { isArrayInsertion: true } : {}) }),
      );
    if (isDeepStrictEqual(JSON.parse(t.replace(/^\uFEFF/, '')), want)) return t;
  } catch {
    // not JSON any more: written whole below
  }
  const indent = fmt.insertSpaces ? ' '.repeat(fmt.tabSize ?? 1) : '\t';
  const whole = JSON.stringify(want, null, /\n/.test(text.trim()) ? indent : undefined);
  const bom = text.startsWith('\uFEFF') ? '\uFEFF' : '';
  const end = /\r?\n$/.exec(text)?.[0] ?? '';
  return bom + (fmt.eol === '\r\n' ? whole.replace(/\n/g, '\r\n') : whole) + end;
}

/** A change made to the parsed value: what the text edit must come to. */
function applyTo(doc: unknown, path: (string | number)[], value: unknown, insert: boolean): void {
  let at = doc as Record<string | number, unknown>;
  for (const key of path.slice(0, -1)) at = at[key] as Record<string | number, unknown>;
  const last = path.at(-1) as string | number;
  if (Array.isArray(at) && typeof last === 'number') {
    if (value === undefined) at.splice(last, 1);
    else if (insert) at.splice(last, 0, value);
    else at[last] = value;
  } else if (value === undefined) delete at[last];
  else at[last] = value;
}

/** The file's own indentation and line ending, so what is written looks like what was there. */
function formattingOf(text: string): FormattingOptions {
  const lead = /\n([ \t]+)"/.exec(text)?.[1] ?? ' ';
  return {
    insertSpaces: !lead.startsWith('\t'),
    tabSize: lead.startsWith('\t') ? 1 : lead.length,
    eol: text.includes('\r\n') ? '\r\n' : '\n',
  };
}

/** nbformat's source: a list of lines, each with its newline, when the notebook writes lists. */
function sourceAs(source: string, like: unknown): string | string[] {
  if (typeof like === 'string') return source;
  return source === '' ? [] : (source.match(/[^\n]*\n|[^\n]+$/g) ?? []);
}

function newCell(
  type: string,
  source: string,
  minor: number,
  cells: NotebookCell[],
): NotebookCell & Record<string, unknown> {
  const like = cells.find((c) => c.source !== undefined)?.source;
  const id = minor >= 5 ? { id: randomBytes(4).toString('hex') } : {};
  const cell = { cell_type: type, ...id, metadata: {}, source: sourceAs(source, like ?? []) };
  return type === 'code' ? { ...cell, execution_count: null, outputs: [] } : cell;
}

/**
 * The edits that give cell `at` its new source: a code cell's outputs and execution count are
 * cleared (they came from the old source), and a change of type adds or drops what the new type has.
 * Only those keys are touched; the rest of the cell keeps its bytes.
 */
function replacement(old: NotebookCell, at: number, source: string, type?: string): Change[] {
  const to = type ?? old.cell_type;
  const cell = (key: string): (string | number)[] => ['cells', at, key];
  const changes: Change[] = [[cell('source'), sourceAs(source, old.source)]];
  if (to !== old.cell_type) changes.push([cell('cell_type'), to]);
  if (to === 'code') changes.push([cell('execution_count'), null], [cell('outputs'), []]);
  else if (old.cell_type === 'code') changes.push([cell('execution_count'), undefined], [cell('outputs'), undefined]);
  return changes;
}
