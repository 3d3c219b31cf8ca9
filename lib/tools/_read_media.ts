/**
 * What read_file shows a file as when it is not plain text: a notebook as its cells, a picture as an
 * image block, a PDF as the text of its pages. The kind is told by the name (.ipynb) or by the first bytes. Read lane.
 */
import type { ToolResult } from '../core/tool.ts';
import { imageFormatOf } from '../media/image.ts';
import { readImage } from './_read_image.ts';
import { type NotebookRead, readNotebook } from './_read_notebook.ts';
import { readPdf } from './_read_pdf.ts';

/** The answer for a notebook or a picture; undefined for anything else; `asText` for a notebook that is not one. */
export async function readMedia(r: NotebookRead): Promise<ToolResult | { asText: string } | undefined> {
  if (r.file.toLowerCase().endsWith('.ipynb')) return readNotebook(r);
  const head = Buffer.alloc(16);
  const { bytesRead } = await r.fh.read(head, 0, head.length, 0);
  if (imageFormatOf(head.subarray(0, bytesRead))) return readImage(r.fh, r.shown, Number(r.st.size), r.words);
  if (head.subarray(0, 5).toString('latin1') === '%PDF-') return readPdf(r.fh, r.shown, Number(r.st.size), r.pages);
  return undefined;
}
