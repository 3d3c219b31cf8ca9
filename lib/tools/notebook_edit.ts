/**
 * notebook_edit: replaces, inserts or deletes one cell of a Jupyter notebook, by the id read_file
 * shows. Through the write lane as every edit is: the notebook must have been read and be unchanged
 * since, the write is atomic, and every byte outside the changed cell stays as it was
 * (lib/media/notebook_edit.ts). Write lane.
 */
import * as v from 'valibot';
import { quote } from '../core/text.ts';
import { defineTool, fail, ok } from '../core/tool.ts';
import { unifiedDiff } from '../edit/diff.ts';
import { withHeldFiles } from '../files/held_file.ts';
import type { WriteContext } from '../lanes/write_context.ts';
import { changeNotebook } from '../media/notebook_edit.ts';

const params = v.strictObject({
  notebook_path: v.pipe(
    v.string(),
    v.minLength(1, 'notebook_path is empty'),
    v.check((p) => p.toLowerCase().endsWith('.ipynb'), 'notebook_path must name a .ipynb file'),
    v.description('Path of the .ipynb file: relative to the root, or absolute inside it'),
  ),
  cell_id: v.optional(
    v.pipe(
      v.string(),
      v.minLength(1),
      v.description(
        'The cell to replace or delete, or the one to insert after (absent with insert: at the start), as read_file shows it',
      ),
    ),
  ),
  new_source: v.optional(v.pipe(v.string(), v.description("The cell's new source (replace, insert)"))),
  cell_type: v.optional(
    v.pipe(
      v.picklist(['code', 'markdown', 'raw']),
      v.description("The cell's type (insert: default code; replace: default the cell's own)"),
    ),
  ),
  edit_mode: v.optional(
    v.pipe(v.picklist(['replace', 'insert', 'delete']), v.description('What to do (default replace)')),
  ),
});

export const notebookEdit = defineTool({
  name: 'notebook_edit',
  lane: 'write',
  params,
  description:
    'Changes one cell of a Jupyter notebook (.ipynb), as `edit_mode` says: "replace" its source (a code cell\'s outputs and ' +
    'execution count are cleared), "insert" a new cell after `cell_id` (or first), or "delete" it. Cells are named by the ids ' +
    'read_file shows ("cell-N" in notebooks without ids). The notebook must have been read with read_file and be unchanged ' +
    'since; every byte outside the changed cell is kept, and the write is atomic.',
  access: (a) => [{ kind: 'write', path: a.notebook_path }],
  async run(a, ctx: WriteContext) {
    const file = ctx.paths[0];
    if (file === undefined) return fail('internal', 'notebook_edit received no checked path');
    const mode = a.edit_mode ?? 'replace';
    if (mode !== 'delete' && a.new_source === undefined) return fail('invalid_args', `${mode} needs new_source.`);
    return withHeldFiles(ctx, [file], {}, ([t]) => {
      if (!t) return fail('internal', 'notebook_edit was given no held file');
      const cur = t.current;
      if (!cur) return fail('not_found', `${quote(t.shown)} does not exist; create a notebook with write_file first.`);
      const stale = t.fresh();
      if (stale) return stale;
      const changed = changeNotebook(cur.text, {
        mode,
        ...(a.cell_id !== undefined ? { cellId: a.cell_id } : {}),
        ...(a.new_source !== undefined ? { source: a.new_source } : {}),
        ...(a.cell_type ? { cellType: a.cell_type } : {}),
      });
      if (!changed.ok)
        return fail(
          /no cell has the id/.test(changed.error) ? 'no_match' : 'invalid_args',
          `${quote(t.shown)}: ${changed.error}.`,
        );
      const err = t.commit(changed.value.text, { encoding: cur.encoding, bom: cur.bom, eol: cur.eol });
      if (err) return err;
      const verb = mode === 'replace' ? 'Replaced' : mode === 'insert' ? 'Inserted' : 'Deleted';
      const diff = unifiedDiff(t.shown, cur.text, changed.value.text);
      return ok(
        `${verb} cell ${changed.value.at} (id ${changed.value.id}) of ${quote(t.shown)}.${diff ? `\n${diff}` : ''}`,
        {
          ...(diff ? { diff } : {}),
        },
      );
    });
  },
});
