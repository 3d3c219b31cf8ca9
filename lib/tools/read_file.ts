/**
 * read_file: a cat -n style numbered window of a text file, streamed so the head of a multi-GB file
 * costs what the window costs; a picture or a notebook as what it is (_read_media.ts). Records the read (size, times, inode, sha256, encoding, BOM, line
 * endings) in its result for the write lane's ledger. Read lane.
 */
import { type BigIntStats, constants } from 'node:fs';
import { open } from 'node:fs/promises';
import * as v from 'valibot';
import { fmtInt, truncationMarker } from '../core/budget.ts';
import { realPathOf } from '../core/descriptors.ts';
import { displayPath } from '../core/paths.ts';
import type { ReadRecord } from '../core/read_record.ts';
import { quote } from '../core/text.ts';
import {
  defineTool,
  describeError,
  fail,
  ok,
  okData,
  type ResultMeta,
  type ToolContext,
  type ToolResult,
} from '../core/tool.ts';
import { continueAt, MODEL_WORDING, type Wording } from '../core/wording.ts';
import { similarNames } from '../files/suggest.ts';
import { MAX_PDF_PAGES } from '../media/pdf.ts';
import { readWindow, type Window } from './_line_window.ts';
import { FILE_PATH } from './_params.ts';
import { readMedia } from './_read_media.ts';
import { DEFAULT_PDF_PAGES } from './_read_pdf.ts';

export const MAX_LINES = 2000;
export const MAX_LINE_CHARS = 2000;
export const MAX_OUTPUT_BYTES = 256 * 1024;
/** Files up to this size are hashed whole on every read; larger ones rely on size, times and inode. */
const HASH_LIMIT_BYTES = 64 * 1024 * 1024;

const params = v.strictObject({
  file_path: FILE_PATH,
  offset: v.optional(
    v.pipe(
      v.number(),
      v.integer(),
      v.minValue(1),
      v.description('1-based number of the first line to show (default 1)'),
    ),
  ),
  limit: v.optional(
    v.pipe(v.number(), v.integer(), v.minValue(1), v.description(`Number of lines to show (default ${MAX_LINES})`)),
  ),
  pages: v.optional(
    v.pipe(
      v.string(),
      v.minLength(1),
      v.description(
        `A PDF's pages to read: "7" or "3-5" (at most ${MAX_PDF_PAGES}; default the first ${DEFAULT_PDF_PAGES})`,
      ),
    ),
  ),
});

export const readFile = defineTool({
  name: 'read_file',
  lane: 'pool',
  readsFiles: true,
  params,
  maxOutputBytes: MAX_OUTPUT_BYTES + 4096,
  description:
    `Reads a text file and returns its lines numbered like cat -n (6-wide number, tab, text). ` +
    `Shows up to ${MAX_LINES} lines from \`offset\` (1-based); lines longer than ${MAX_LINE_CHARS} characters are cut, ` +
    `and the output stops at ${MAX_OUTPUT_BYTES / 1024} KiB. When more lines remain, the last line says which offset to continue from. ` +
    `Decodes UTF-8 and UTF-16 with a byte-order mark; CRLF endings are shown without the CR. ` +
    `A picture (PNG, JPEG, GIF, WebP) comes back as an image, scaled down to fit the model's limits; a Jupyter notebook ` +
    `(.ipynb) as its cells with their ids (\`offset\` and \`limit\` count cells; outputs cut, their images attached); a PDF as ` +
    `the text of its \`pages\` with its page count. ` +
    `Other binary files, directories and missing files are errors (a missing file lists similar names). ` +
    `Each read is recorded: tools that change a file require that it was read first and not changed since; partial reads count.`,
  access: (a) => [{ kind: 'read', path: a.file_path }],
  async run(a, ctx): Promise<ToolResult> {
    const file = ctx.paths[0];
    if (file === undefined) return fail('internal', 'read_file received no checked path');
    const shown = displayPath(ctx.root, file);
    const words = ctx.wording ?? MODEL_WORDING;
    // The caller prints data itself: the lines, and apart from them the footer saying how to read on.
    const answer = (text: string, meta: ResultMeta, footer?: string) =>
      ctx.form === 'data'
        ? okData({ tool: 'read_file', text, ...(footer ? { footer } : {}) }, meta)
        : ok(footer ? `${text}\n${footer}` : text, meta);
    let fh: import('node:fs/promises').FileHandle;
    try {
      // O_NOFOLLOW: the gate resolved every link, so a link here was swapped in since; O_NONBLOCK: a
      // FIFO swapped in must not hang the open.
      fh = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    } catch (e) {
      return openError(e, a.file_path, shown, ctx.root, file, words);
    }
    try {
      // O_NOFOLLOW guards only the last component: a directory on the way swapped for a symlink since
      // the check is followed. What was opened must be exactly the checked (real) path, before a byte is read.
      if (realPathOf(fh.fd) !== file)
        return fail(
          'io',
          `Cannot read ${quote(shown)}: a directory on its path was replaced (by a symbolic link, or moved) after the path was checked; nothing was read. Try again.`,
        );
      const st = await fh.stat({ bigint: true });
      if (st.isDirectory()) {
        return fail(
          'is_directory',
          `Cannot read ${quote(shown)}: it is a directory. List its files with glob (pattern "*", path ${quote(shown)}).`,
        );
      }
      if (!st.isFile()) return fail('not_a_file', `Cannot read ${quote(shown)}: it is not a regular file.`);
      const size = Number(st.size);
      const offset = a.offset ?? 1;
      const media = await readMedia({ fh, file, shown, st, offset, limit: a.limit, pages: a.pages, words });
      if (media && !('asText' in media)) return asData(media, ctx.form);
      if (a.pages !== undefined)
        return fail('invalid_args', `pages is for a PDF; ${quote(shown)} is not one: read it with offset and limit.`);
      const note = media ? `Not read as a notebook: ${media.asText}; shown as text.\n` : '';
      const w = await readWindow(
        fh,
        {
          offset,
          limit: a.limit ?? MAX_LINES,
          maxLineChars: MAX_LINE_CHARS,
          maxOutputBytes: MAX_OUTPUT_BYTES,
          hashLimit: HASH_LIMIT_BYTES,
          signal: ctx.signal,
        },
        size,
      );
      if (w.kind === 'cancelled') return fail('cancelled', `Reading ${quote(shown)} was cancelled.`);
      if (w.kind === 'binary') {
        return fail(
          'binary',
          `Cannot read ${quote(shown)}: it is a binary file (${fmtInt(size)} bytes), not text. Inspect it with bash (e.g. xxd or file).`,
        );
      }
      const record = recordOf(file, size, st, w);
      if (size === 0 || w.totalLines === 0) {
        return answer(`File ${quote(shown)} is empty (${fmtInt(size)} bytes).`, {
          read: { ...record, partial: false },
        });
      }
      if (w.lines.length === 0 && w.totalLines !== null && offset > w.totalLines) {
        return fail(
          'invalid_args',
          `offset ${offset} is past the end of ${quote(shown)}, which has ${fmtInt(w.totalLines)} lines; use an offset from 1 to ${w.totalLines}.`,
          { read: record },
        );
      }
      const last = w.first + w.lines.length - 1;
      const more = w.totalLines === null ? w.stop !== 'eof' : last < w.totalLines;
      record.partial = more || w.first > 1;
      const footer = more ? footerOf(w, last, size, words) : undefined;
      const lines = { first: w.first, last, total: w.totalLines, cut: w.cutLines };
      return answer(note + w.lines.join('\n'), { read: record, lines }, footer);
    } finally {
      await fh.close().catch(() => {});
    }
  },
});

/** A picture's or notebook's answer as data, for a caller that prints it itself (its text is the lines). */
function asData(r: ToolResult, form: ToolContext['form']): ToolResult {
  if (form !== 'data' || r.isError) return r;
  const data = okData({ tool: 'read_file', text: r.content }, r.meta);
  return r.images ? { ...data, images: r.images } : data;
}

/** What the ledger keeps of a read: the file's identity and state, and what its text was. */
function recordOf(file: string, size: number, st: BigIntStats, w: Window): ReadRecord {
  return {
    path: file,
    size,
    mtimeMs: Number(st.mtimeMs),
    mtimeNs: String(st.mtimeNs),
    ctimeNs: String(st.ctimeNs),
    ino: Number(st.ino),
    sha256: w.sha256,
    encoding: w.encoding,
    bom: w.bom,
    eol: w.eol,
    partial: true,
    readAt: Date.now(),
  };
}

/** The line after a window that stopped short: what it shows and how to read on. */
function footerOf(w: Window, last: number, size: number, words: Wording): string {
  const of = w.totalLines === null ? `of a ${fmtInt(size)}-byte file` : `of ${fmtInt(w.totalLines)}`;
  const why = w.stop === 'budget' ? ` (output limit of ${MAX_OUTPUT_BYTES / 1024} KiB reached)` : '';
  return truncationMarker(
    `showing lines ${w.first}-${last} ${of}${why}`,
    `continue with ${continueAt(words, last + 1)}`,
  );
}

function openError(
  e: unknown,
  input: string,
  shown: string,
  root: string,
  file: import('../core/paths.ts').CheckedPath,
  w: Wording,
): ToolResult {
  const code = (e as NodeJS.ErrnoException).code;
  if (code === 'ENOENT' || code === 'ENOTDIR') {
    const near = similarNames(root, file);
    const hint = near.length ? ` Similar names: ${near.map(quote).join(', ')}.` : ` Find files with ${w.globTool}.`;
    return fail('not_found', `Cannot read ${quote(shown)}: no such file.${hint}`);
  }
  if (code === 'EACCES' || code === 'EPERM')
    return fail('permission_denied', `Cannot read ${quote(shown)}: the operating system denied access (${code}).`);
  if (code === 'ELOOP')
    return fail('io', `Cannot read ${quote(input)}: it became a symbolic link after it was checked; try again.`);
  return fail('io', `Cannot read ${quote(shown)}: ${describeError(e)}`);
}
