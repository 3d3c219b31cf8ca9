/**
 * read_file of a Jupyter notebook: its cells (lib/media/notebook_view.ts) from `offset` for `limit`
 * cells, with the read recorded as any read is, so notebook_edit may change it. A file that is not a
 * valid notebook is left to the plain text read, with the reason. Read lane.
 */
import { createHash } from 'node:crypto';
import type { BigIntStats } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { fmtInt, truncationMarker } from '../core/budget.ts';
import type { ReadRecord } from '../core/read_record.ts';
import { quote } from '../core/text.ts';
import { fail, ok, type ToolResult } from '../core/tool.ts';
import { continueAt, type Wording } from '../core/wording.ts';
import { eolOf } from '../files/text_file.ts';
import { imageFromBase64 } from '../media/image.ts';
import { parseNotebook, renderNotebook } from '../media/notebook_view.ts';

/** Larger notebooks are refused: they are parsed whole. */
const MAX_NOTEBOOK_BYTES = 64 * 1024 * 1024;
/** Cells shown by default. */
export const NOTEBOOK_CELLS = 200;

export interface NotebookRead {
  fh: FileHandle;
  file: string;
  shown: string;
  st: BigIntStats;
  offset: number;
  limit: number | undefined;
  /** A PDF's pages ("3-5"). */
  pages: string | undefined;
  words: Wording;
}

/** The notebook's answer, or why it is read as text instead. */
export async function readNotebook(r: NotebookRead): Promise<ToolResult | { asText: string }> {
  const size = Number(r.st.size);
  if (size > MAX_NOTEBOOK_BYTES)
    return fail(
      'too_large',
      `Cannot read ${quote(r.shown)}: a notebook of ${fmtInt(size)} bytes is over the ${fmtInt(MAX_NOTEBOOK_BYTES)} read whole.`,
    );
  const bytes = await r.fh.readFile();
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return { asText: 'it is not UTF-8' };
  }
  const nb = parseNotebook(text.replace(/^\uFEFF/, ''));
  if (!nb.ok) return { asText: nb.why };
  const total = nb.value.cells.length;
  if (total > 0 && r.offset > total)
    return fail(
      'invalid_args',
      `offset ${r.offset} is past the last cell of ${quote(r.shown)}, which has ${fmtInt(total)} cells.`,
    );
  const view = await renderNotebook(nb.value, r.offset, r.limit ?? NOTEBOOK_CELLS, imageFromBase64);
  const record = recordOf(r, bytes, text, view.first > 1 || view.last < total);
  const kind = [
    nb.value.language,
    nb.value.nbformat ? `nbformat ${nb.value.nbformat}.${nb.value.nbformat_minor ?? 0}` : '',
  ];
  const head = `Notebook ${quote(r.shown)}: ${fmtInt(total)} cells (${kind.filter(Boolean).join(', ') || 'nbformat 4'}); change a cell with notebook_edit and its id.`;
  const more =
    view.last < total
      ? `\n${truncationMarker(`showing cells ${view.first}-${view.last} of ${fmtInt(total)}`, `continue with ${continueAt(r.words, view.last + 1)}`)}`
      : '';
  const body = total === 0 ? 'It has no cells.' : view.text;
  const result = ok(`${head}\n\n${body}${more}`, {
    read: record,
    cells: { first: view.first, last: view.last, total },
  });
  return view.images.length > 0 ? { ...result, images: view.images } : result;
}

function recordOf(r: NotebookRead, bytes: Buffer, text: string, partial: boolean): ReadRecord {
  return {
    path: r.file,
    size: bytes.length,
    mtimeMs: Number(r.st.mtimeMs),
    mtimeNs: String(r.st.mtimeNs),
    ctimeNs: String(r.st.ctimeNs),
    ino: Number(r.st.ino),
    sha256: createHash('sha256').update(bytes).digest('hex'),
    encoding: 'utf-8',
    bom: text.startsWith('\uFEFF'),
    eol: eolOf(text),
    partial,
    readAt: Date.now(),
  };
}
