/**
 * A PDF's text, page by page, with its page count always: Mozilla's pdf.js (5.6, the last line that
 * keeps Node 20) through unpdf, chosen by a measured table (docs/media.md). Text comes in the order
 * the page draws it, which is usually reading order and not always (columns); a page that yields no
 * text has no text layer (a scan, a picture) and is said to have none. pdf.js parses on the calling
 * thread: read_file runs in the read pool, whose deadline and heap limit bound a hostile file
 * (docs/media.md says what is left). Evaluating code, loading fonts and the system's fonts are off.
 * Read lane.
 */

export interface PdfPage {
  n: number;
  text: string;
}

export interface PdfText {
  total: number;
  pages: PdfPage[];
}

export type PdfOutcome = { ok: true; value: PdfText } | { ok: false; why: string; encrypted?: boolean };

/** At most this many pages per read. */
export const MAX_PDF_PAGES = 20;

/** Pages `first`..`last` (clamped to the document) of the PDF in `bytes`. */
export async function pdfText(bytes: Uint8Array, first: number, last: number): Promise<PdfOutcome> {
  const { getDocumentProxy } = await import('unpdf');
  let doc: Awaited<ReturnType<typeof getDocumentProxy>>;
  try {
    // A copy: pdf.js may take the buffer over.
    doc = await getDocumentProxy(new Uint8Array(bytes), {
      isEvalSupported: false,
      disableFontFace: true,
      useSystemFonts: false,
      stopAtErrors: false,
      verbosity: 0,
      maxImageSize: 16_000_000,
    });
  } catch (e) {
    const name = (e as Error).name;
    if (name === 'PasswordException') return { ok: false, why: 'it is encrypted with a password', encrypted: true };
    return { ok: false, why: `it cannot be read as a PDF (${firstLine(e)})` };
  }
  try {
    const total = doc.numPages;
    const pages: PdfPage[] = [];
    for (let n = Math.max(1, first); n <= Math.min(total, last); n++) pages.push({ n, text: await pageText(doc, n) });
    return { ok: true, value: { total, pages } };
  } catch (e) {
    return { ok: false, why: `its pages cannot be read (${firstLine(e)})` };
  } finally {
    await doc.destroy().catch(() => {});
  }
}

const firstLine = (e: unknown) => String((e as Error)?.message ?? e).split('\n')[0];

type Doc = Awaited<ReturnType<typeof import('unpdf').getDocumentProxy>>;

/** A page's text: its items in drawing order, a line break where pdf.js ends a line. */
async function pageText(doc: Doc, n: number): Promise<string> {
  const page = await doc.getPage(n);
  try {
    const content = await page.getTextContent();
    let out = '';
    for (const item of content.items) {
      if (!('str' in item)) continue;
      out += item.str;
      if (item.hasEOL) out += '\n';
    }
    return out.replace(/[ \t]+\n/g, '\n').trim();
  } finally {
    page.cleanup();
  }
}
