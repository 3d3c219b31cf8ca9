/**
 * edit_file: replaces a string in a file that was read and has not changed since: exactly, or as one
 * whole-line block up to differences that cannot change meaning (lib/edit/). Line-ending aware,
 * atomic; answers with a unified diff, or names the closest place and why nothing matched. Write lane.
 */

import * as v from 'valibot';
import { defineTool, fail } from '../core/tool.ts';
import { MODEL_WORDING } from '../core/wording.ts';
import { applyEdits, previewEdits } from '../edit/edits.ts';
import { withHeldFiles } from '../files/held_file.ts';
import { failureNote, previewFile } from '../files/preview_load.ts';
import type { WriteContext } from '../lanes/write_context.ts';
import { FILE_PATH } from './_params.ts';

const params = v.strictObject({
  file_path: FILE_PATH,
  old_string: v.pipe(
    v.string(),
    v.description('Exact text to replace, as read_file shows it (without line numbers); empty creates a missing file'),
  ),
  new_string: v.pipe(
    v.string(),
    v.description('Text to put in its place (taken literally: $& and the like are plain text)'),
  ),
  replace_all: v.optional(
    v.pipe(v.boolean(), v.description('Replace every occurrence instead of requiring exactly one (default false)')),
  ),
});

export const editFile = defineTool({
  name: 'edit_file',
  lane: 'write',
  params,
  description:
    `Replaces \`old_string\` with \`new_string\` in \`file_path\`. The file must have been read with read_file in this session and ` +
    `not changed since. \`old_string\` should be copied exactly and match once (or set \`replace_all\`); an LF \`old_string\` matches in a ` +
    `CRLF file and the file stays CRLF. When it is not found exactly, whole lines that differ only in trailing whitespace, a uniform ` +
    `indentation shift, tabs vs spaces, typographic quotes/dashes, NBSP/zero-width characters, \\" escapes, literal \\n or read_file's ` +
    `line numbers still match if exactly one place fits, and the answer says what was tolerated; blank lines, elisions ("...") and ` +
    `changed tokens never match. A refusal names the closest place and what differs; several exact matches give their line numbers. ` +
    `An empty \`old_string\` creates a missing file. The write is atomic and keeps permissions, BOM and encoding; the answer is a ` +
    `unified diff of the change.`,
  access: (a) => [{ kind: 'write', path: a.file_path }],
  preview(a, ctx) {
    const file = ctx.paths[0];
    if (file === undefined) return { note: 'edit_file received no checked path' };
    const t = previewFile(ctx, file);
    return t.ok ? previewEdits(t.value, ctx.root, [a], () => 'old_string') : failureNote(t.error);
  },
  async run(a, ctx: WriteContext) {
    const file = ctx.paths[0];
    if (file === undefined) return fail('internal', 'edit_file received no checked path');
    const w = ctx.wording ?? MODEL_WORDING;
    return withHeldFiles(ctx, [file], { createParents: a.old_string === '' }, ([t]) =>
      t ? applyEdits(t, ctx.root, [a], () => w.oldString, w) : fail('internal', 'edit_file was given no held file'),
    );
  },
});
