/**
 * read_file of a PDF: the text of the pages asked for (`pages: "3-5"`, at most MAX_PDF_PAGES, the
 * first ten by default), the page count always, and each page without a text layer said to have
 * none. Read lane.
 */
import type { FileHandle } from 'node:fs/promises';
import { fmtInt, truncationMarker } from '../core/budget.ts';
import { quote } from '../core/text.ts';
import { fail, ok, type ToolResult } from '../core/tool.ts';
import { MAX_PDF_PAGES, pdfText } from '../media/pdf.ts';

/** Larger PDF files are refused before they are read. */
const MAX_PDF_BYTES = 128 * 1024 * 1024;
/** Pages shown when none are asked for. */
export const DEFAULT_PDF_PAGES = 10;

/** `pages` as a range: "7" or "3-5", 1-based; why not, when it is neither. */
export function pageRange(pages: string | undefined): { first: number; last: number } | string {
  if (pages === undefined) return { first: 1, last: DEFAULT_PDF_PAGES };
  const m = /^\s*(\d+)\s*(?:-\s*(\d+)\s*)?$/.exec(pages);
  const first = Number(m?.[1]);
  const last = m?.[2] === undefined ? first : Number(m[2]);
  if (!m || first < 1 || last < first)
    return `pages must be a page ("7") or a range ("3-5") from 1, not ${JSON.stringify(pages)}`;
  if (last - first + 1 > MAX_PDF_PAGES)
    return `pages ${first}-${last} is ${last - first + 1} pages; ask for at most ${MAX_PDF_PAGES} at a time`;
  return { first, last };
}

export async function readPdf(
  fh: FileHandle,
  shown: string,
  size: number,
  pages: string | undefined,
): Promise<ToolResult> {
  const range = pageRange(pages);
  if (typeof range === 'string') return fail('invalid_args', `${range}.`);
  if (size > MAX_PDF_BYTES)
    return fail(
      'too_large',
      `Cannot read ${quote(shown)}: a ${fmtInt(size)}-byte PDF is over the ${fmtInt(MAX_PDF_BYTES)} read.`,
    );
  const got = await pdfText(await fh.readFile(), range.first, range.last);
  if (!got.ok) return fail('binary', `Cannot read ${quote(shown)}: ${got.why}. Inspect it with bash (e.g. pdftotext).`);
  const { total, pages: shownPages } = got.value;
  if (shownPages.length === 0)
    return fail(
      'invalid_args',
      `${quote(shown)} has ${fmtInt(total)} page${total === 1 ? '' : 's'}; pages ${pages} is past its end.`,
    );
  const first = shownPages[0]?.n ?? 1;
  const last = shownPages.at(-1)?.n ?? first;
  const head = `PDF ${quote(shown)}: ${fmtInt(total)} page${total === 1 ? '' : 's'}, ${fmtInt(size)} bytes; pages ${first}-${last} as text (in the order each page draws it).`;
  const body = shownPages.map(
    (p) => `── page ${p.n} ──\n${p.text || '(no text layer: the page is a picture or blank)'}`,
  );
  const next = `pages: "${last + 1}-${Math.min(total, last + MAX_PDF_PAGES)}"`;
  const more =
    last < total
      ? `\n${truncationMarker(`showing pages ${first}-${last} of ${fmtInt(total)}`, `continue with ${next}`)}`
      : '';
  return ok(`${head}\n\n${body.join('\n\n')}${more}`, { pages: { first, last, total } });
}
