/**
 * multi_edit: several replacements (matched as edit_file's) in one file, applied in order to the result of the previous
 * one, all or nothing. Write lane.
 */

import * as v from 'valibot';
import { defineTool, fail } from '../core/tool.ts';
import { editLabel, MODEL_WORDING } from '../core/wording.ts';
import { applyEdits, previewEdits } from '../edit/edits.ts';
import { withHeldFiles } from '../files/held_file.ts';
import { failureNote, previewFile } from '../files/preview_load.ts';
import type { WriteContext } from '../lanes/write_context.ts';
import { FILE_PATH } from './_params.ts';

const MAX_EDITS = 100;

const edit = v.strictObject({
  old_string: v.pipe(
    v.string(),
    v.description('Exact text to replace (the first edit of a missing file may be empty to create it)'),
  ),
  new_string: v.pipe(v.string(), v.description('Text to put in its place (literal)')),
  replace_all: v.optional(v.pipe(v.boolean(), v.description('Replace every occurrence (default false)'))),
});

const params = v.strictObject({
  file_path: FILE_PATH,
  edits: v.pipe(
    v.array(edit),
    v.minLength(1),
    v.maxLength(MAX_EDITS),
    v.description(`Edits applied in order, each to the result of the previous (1 to ${MAX_EDITS})`),
  ),
});

export const multiEdit = defineTool({
  name: 'multi_edit',
  lane: 'write',
  params,
  description:
    `Applies \`edits\` (each like edit_file: old_string, new_string, replace_all) to \`file_path\` in order, each on the result of the ` +
    `previous one. All or nothing: if any edit fails, the file is unchanged and the answer says which edit failed and why. Same rules ` +
    `as edit_file: read the file first, exact matches (or one whole-line block up to whitespace and typography), line endings, BOM ` +
    `and permissions kept, atomic write, unified diff.`,
  access: (a) => [{ kind: 'write', path: a.file_path }],
  preview(a, ctx) {
    const file = ctx.paths[0];
    if (file === undefined) return { note: 'multi_edit received no checked path' };
    const t = previewFile(ctx, file);
    return t.ok ? previewEdits(t.value, ctx.root, a.edits, (i) => editLabel(MODEL_WORDING, i)) : failureNote(t.error);
  },
  async run(a, ctx: WriteContext) {
    const file = ctx.paths[0];
    if (file === undefined) return fail('internal', 'multi_edit received no checked path');
    const w = ctx.wording ?? MODEL_WORDING;
    return withHeldFiles(ctx, [file], { createParents: a.edits[0]?.old_string === '' }, ([t]) =>
      t
        ? applyEdits(t, ctx.root, a.edits, (i) => editLabel(w, i), w)
        : fail('internal', 'multi_edit was given no held file'),
    );
  },
});
