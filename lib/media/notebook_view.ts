/**
 * A Jupyter notebook (.ipynb, nbformat 4) as read_file shows it: each cell with its number, id and
 * type, its source as it is, and its outputs cut to a budget — text and errors as text (terminal
 * colours removed), images as image blocks beside the text. What is left out is always said. Pure:
 * the caller reads the bytes and makes the images (lib/media/image.ts). Read lane.
 */
import type { ToolImage } from '../core/tool_result.ts';

/** Output characters shown per cell; the rest is counted. */
export const OUTPUT_CHARS = 2000;
/** Images shown per read. */
export const MAX_IMAGES = 8;

export interface NotebookCell {
  id?: string;
  cell_type: string;
  source: string | string[];
  outputs?: unknown[];
  execution_count?: number | null;
}

export interface Notebook {
  cells: NotebookCell[];
  nbformat?: number;
  nbformat_minor?: number;
  language?: string;
}

/** The notebook in `text`, or why it is not one. */
export function parseNotebook(text: string): { ok: true; value: Notebook } | { ok: false; why: string } {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    return { ok: false, why: `it is not valid JSON (${(e as Error).message})` };
  }
  const d = doc as { cells?: unknown; nbformat?: unknown; nbformat_minor?: unknown; metadata?: unknown };
  if (typeof doc !== 'object' || doc === null || !Array.isArray(d.cells))
    return { ok: false, why: 'it has no "cells" list (nbformat 4)' };
  const bad = d.cells.findIndex(
    (c) => typeof c !== 'object' || c === null || typeof (c as NotebookCell).cell_type !== 'string',
  );
  if (bad >= 0) return { ok: false, why: `cell ${bad + 1} has no "cell_type"` };
  const meta = d.metadata as { language_info?: { name?: unknown }; kernelspec?: { language?: unknown } } | undefined;
  const language = meta?.language_info?.name ?? meta?.kernelspec?.language;
  return {
    ok: true,
    value: {
      cells: d.cells as NotebookCell[],
      ...(typeof d.nbformat === 'number' ? { nbformat: d.nbformat } : {}),
      ...(typeof d.nbformat_minor === 'number' ? { nbformat_minor: d.nbformat_minor } : {}),
      ...(typeof language === 'string' ? { language } : {}),
    },
  };
}

export const sourceText = (s: unknown): string => (Array.isArray(s) ? s.join('') : typeof s === 'string' ? s : '');

/** Makes an image block of a base64 output, or says why it is not shown. */
export type ImageMaker = (base64: string, mediaType: string) => Promise<ToolImage | string>;

export interface NotebookView {
  text: string;
  images: ToolImage[];
  first: number;
  last: number;
  total: number;
}

/** Cells `first`..`first+limit-1` (1-based) of `nb`. */
export async function renderNotebook(
  nb: Notebook,
  first: number,
  limit: number,
  makeImage: ImageMaker,
): Promise<NotebookView> {
  const total = nb.cells.length;
  const last = Math.min(total, first + limit - 1);
  const images: ToolImage[] = [];
  const parts: string[] = [];
  for (let n = first; n <= last; n++)
    parts.push(await renderCell(nb.cells[n - 1] as NotebookCell, n, images, makeImage));
  return { text: parts.join('\n\n'), images, first, last, total };
}

async function renderCell(c: NotebookCell, n: number, images: ToolImage[], makeImage: ImageMaker): Promise<string> {
  const run = c.cell_type === 'code' && typeof c.execution_count === 'number' ? `, run ${c.execution_count}` : '';
  const head = `── cell ${n} (id ${c.id ?? `cell-${n}`}, ${c.cell_type}${run}) ──`;
  const source = sourceText(c.source);
  const outputs = c.cell_type === 'code' ? await renderOutputs(c.outputs ?? [], images, makeImage) : '';
  return [head, source === '' ? '(empty)' : source, ...(outputs ? ['── output ──', outputs] : [])].join('\n');
}

// Terminal colours in tracebacks and progress bars: noise to a model.
// biome-ignore lint/suspicious/noControlCharactersInRegex: ESC is what is removed
const ANSI = /\u001b\[[0-9;?]*[A-Za-z]/g;

async function renderOutputs(outputs: unknown[], images: ToolImage[], makeImage: ImageMaker): Promise<string> {
  const texts: string[] = [];
  for (const o of outputs) {
    const out = o as { output_type?: string; text?: unknown; data?: Record<string, unknown> };
    if (out.output_type === 'stream') texts.push(sourceText(out.text));
    else if (out.output_type === 'error') {
      const e = o as { ename?: string; evalue?: string; traceback?: unknown };
      const tb = Array.isArray(e.traceback) ? e.traceback.join('\n') : '';
      texts.push(tb || `${e.ename ?? 'Error'}: ${e.evalue ?? ''}`);
    } else if (out.data) texts.push(await richOutput(out.data, images, makeImage));
  }
  const all = texts.join('\n').replace(ANSI, '').trimEnd();
  if (all.length <= OUTPUT_CHARS) return all;
  return `${all.slice(0, OUTPUT_CHARS)}\n[… ${all.length - OUTPUT_CHARS} more characters of output not shown]`;
}

const IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'];

/** A display_data or execute_result: an image when it has one, else its plain text, else its types named. */
async function richOutput(data: Record<string, unknown>, images: ToolImage[], makeImage: ImageMaker): Promise<string> {
  const type = IMAGE_TYPES.find((t) => typeof data[t] === 'string' || Array.isArray(data[t]));
  if (type) {
    if (images.length >= MAX_IMAGES) return `[${type} output not shown: at most ${MAX_IMAGES} images per read]`;
    const made = await makeImage(sourceText(data[type]).replace(/\s+/g, ''), type);
    if (typeof made === 'string') return `[${type} output not shown: ${made}]`;
    images.push(made);
    return `[image ${images.length}: ${type}, ${made.width}×${made.height}]`;
  }
  if (data['text/plain'] !== undefined) return sourceText(data['text/plain']);
  return `[output of type ${Object.keys(data).join(', ')} not shown]`;
}
