/**
 * write_file: creates a file, or replaces one that was read and has not changed since. Atomic, and
 * the replaced file keeps its mode, owner, byte-order mark, encoding and CRLF line endings. Write
 * lane (main thread, one call at a time); its preview (the diff, for the approval prompt) reads only.
 */
import * as v from 'valibot';
import { fmtInt } from '../core/budget.ts';
import { errValue, okValue, type Result } from '../core/result.ts';
import { quote } from '../core/text.ts';
import { defineTool, fail, ok, type ToolResult } from '../core/tool.ts';
import { unifiedDiff } from '../edit/diff.ts';
import { withHeldFiles } from '../files/held_file.ts';
import { type FileState, failureNote, previewFile } from '../files/preview_load.ts';
import { eolOf, MAX_EDIT_BYTES, withEol } from '../files/text_file.ts';
import type { WriteContext } from '../lanes/write_context.ts';
import { FILE_PATH } from './_params.ts';

const params = v.strictObject({
  file_path: FILE_PATH,
  content: v.pipe(v.string(), v.description('The whole new content of the file')),
});

const countLines = (s: string) => (s === '' ? 0 : s.split('\n').length - (s.endsWith('\n') ? 1 : 0));

export const writeFile = defineTool({
  name: 'write_file',
  lane: 'write',
  params,
  description:
    `Writes \`content\` to \`file_path\`, creating missing parent directories. Replacing an existing file requires that ` +
    `it was read with read_file in this session and has not changed since (otherwise a not_read or stale error says what to do). ` +
    `The write is atomic (temp file, fsync, rename): a crash leaves the old or the new file, never a mix. A replaced file keeps ` +
    `its permissions, owner, byte-order mark, encoding (UTF-8 or UTF-16) and CRLF line endings. Writes through a symlink change its ` +
    `target and keep the link. Files up to ${MAX_EDIT_BYTES / 1024 / 1024} MiB. Prefer edit_file to change part of a file.`,
  access: (a) => [{ kind: 'write', path: a.file_path }],
  preview(a, ctx) {
    const file = ctx.paths[0];
    if (file === undefined) return { note: 'write_file received no checked path' };
    if (Buffer.byteLength(a.content) > MAX_EDIT_BYTES) return failureNote(tooLarge());
    const t = previewFile(ctx, file);
    if (!t.ok) return failureNote(t.error);
    const plan = planWrite(t.value, a.content);
    if (!plan.ok) return failureNote(plan.error);
    if (plan.value === 'unchanged') return { note: `${quote(t.value.shown)} already has exactly this content` };
    return { diff: unifiedDiff(t.value.shown, t.value.current?.text ?? '', plan.value) };
  },
  async run(a, ctx: WriteContext) {
    const file = ctx.paths[0];
    if (file === undefined) return fail('internal', 'write_file received no checked path');
    if (Buffer.byteLength(a.content) > MAX_EDIT_BYTES) return tooLarge();
    return withHeldFiles(ctx, [file], { createParents: true }, ([t]) => {
      if (!t) return fail('internal', 'write_file was given no held file');
      const plan = planWrite(t, a.content);
      if (!plan.ok) return plan.error;
      const text = plan.value;
      const cur = t.current;
      if (!cur) {
        const err = t.commit(a.content, { encoding: 'utf-8', bom: false, eol: eolOf(a.content) });
        if (err) return err;
        return ok(
          `Created ${quote(t.shown)} (${fmtInt(Buffer.byteLength(a.content))} bytes, ${fmtInt(countLines(a.content))} lines).`,
          { created: true },
        );
      }
      if (text === 'unchanged')
        return ok(`${quote(t.shown)} already has exactly this content; nothing was written.`, {
          created: false,
          unchanged: true,
        });
      const err = t.commit(text, { encoding: cur.encoding, bom: cur.bom, eol: cur.eol });
      if (err) return err;
      const kept = [
        cur.bom ? 'BOM' : '',
        cur.encoding !== 'utf-8' ? cur.encoding.toUpperCase() : '',
        cur.eol === 'crlf' ? 'CRLF' : '',
      ].filter(Boolean);
      const note = kept.length ? `; kept ${kept.join(', ')}` : '';
      const diff = unifiedDiff(t.shown, cur.text, text);
      return ok(
        `Overwrote ${quote(t.shown)} (${fmtInt(Buffer.byteLength(a.content))} bytes, ${fmtInt(countLines(a.content))} lines; was ${fmtInt(cur.bytes.length)} bytes${note}).${diff ? `\n${diff}` : ''}`,
        { created: false, ...(diff ? { diff } : {}) },
      );
    });
  },
});

const tooLarge = () =>
  fail('too_large', `content is over ${fmtInt(MAX_EDIT_BYTES)} bytes; write it in parts with bash.`);

/**
 * The text the file will hold (a CRLF file keeps CRLF), or 'unchanged', or why it may not be replaced
 * (not read, stale). Shared by the write and its preview, so the prompt shows the change made.
 */
function planWrite(t: FileState, content: string): Result<string | 'unchanged', ToolResult> {
  const cur = t.current;
  if (!cur) return okValue(content);
  const stale = t.fresh();
  if (stale) return errValue(stale);
  const text = cur.eol === 'crlf' ? withEol(content, 'crlf') : content;
  return okValue(text === cur.text ? 'unchanged' : text);
}
