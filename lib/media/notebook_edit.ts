/**
 * One change to a notebook's JSON text — a cell's source replaced, a cell inserted after another, a
 * cell deleted — made as a text edit of that cell alone (jsonc-parser's modify), so every byte outside
 * it stays as it was: the notebook's indentation, key order, metadata and other cells. Pure.
 */
import { randomBytes } from 'node:crypto';
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

/** A cell named by its id, or by `cell-N` (its 1-based position) when the notebook has no ids. */
export const cellLabel = (c: NotebookCell, n: number) => c.id ?? `cell-${n}`;

export function changeNotebook(text: string, change: NotebookChange): Result<ChangedNotebook, string> {
  const nb = parseNotebook(text);
  if (!nb.ok) return errValue(`the notebook cannot be edited: ${nb.why}`);
  const cells = nb.value.cells;
  const at = change.cellId === undefined ? -1 : cells.findIndex((c, i) => cellLabel(c, i + 1) === change.cellId);
  if (change.cellId !== undefined && at < 0) {
    const ids = cells.slice(0, 20).map((c, i) => cellLabel(c, i + 1));
    return errValue(
      `no cell has the id ${JSON.stringify(change.cellId)}; the notebook's cells are ${ids.join(', ')}${cells.length > 20 ? ', …' : ''} (read it with read_file to see them)`,
    );
  }
  if (change.mode !== 'insert' && at < 0) return errValue(`${change.mode} needs cell_id: the cell to ${change.mode}`);
  const fmt = formattingOf(text);
  if (change.mode === 'delete') {
    const gone = cellLabel(cells[at] as NotebookCell, at + 1);
    return okValue({ text: edited(text, fmt, [[['cells', at], undefined]]), id: gone, at: at + 1 });
  }
  const source = change.source ?? '';
  if (change.mode === 'insert') {
    const cell = newCell(change.cellType ?? 'code', source, nb.value.nbformat_minor ?? 0, cells);
    const id = (cell.id as string | undefined) ?? `cell-${at + 2}`;
    return okValue({ text: edited(text, fmt, [[['cells', at + 1], cell]], true), id, at: at + 2 });
  }
  const old = cells[at] as NotebookCell;
  return okValue({
    text: edited(text, fmt, replacement(old, at, source, change.cellType)),
    id: cellLabel(old, at + 1),
    at: at + 1,
  });
}

type Change = [(string | number)[], unknown];

/** `text` with each change made in turn, each one a text edit of its own place. */
function edited(text: string, fmt: FormattingOptions, changes: Change[], insert = false): string {
  let t = text;
  for (const [path, value] of changes)
    t = applyEdits(
      t,
      modify(t, path, value, { formattingOptions: fmt, ...(insert ? { isArrayInsertion: true } : {}) }),
    );
  return t;
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
