/**
 * apply_patch: changes several files at once from a V4A patch (add, delete, update, move). Every
 * operation of every file is worked out in memory before anything is written; if a write still fails,
 * every file already changed is put back. Write lane. Its preview (for the approval prompt) makes
 * the same plan from the files as they are, and writes nothing.
 */

import * as v from 'valibot';
import { errValue, okValue, type Result } from '../core/result.ts';
import { quote } from '../core/text.ts';
import { defineTool, fail, ok, type ToolResult } from '../core/tool.ts';
import { unifiedDiff } from '../edit/diff.ts';
import { opPaths, type PatchOp, parsePatch } from '../edit/patch.ts';
import { applyChunks } from '../edit/patch_apply.ts';
import { type HeldFile, withHeldFiles } from '../files/held_file.ts';
import { type FileState, failureNote, previewFile } from '../files/preview_load.ts';
import { eolOf, MAX_EDIT_BYTES, type TextStyle } from '../files/text_file.ts';
import type { WriteContext } from '../lanes/write_context.ts';

const params = v.strictObject({
  patch: v.pipe(
    v.string(),
    v.minLength(1, 'patch is empty'),
    v.maxLength(MAX_EDIT_BYTES),
    v.description('The whole patch, from "*** Begin Patch" to "*** End Patch"'),
  ),
});

interface Planned<F extends FileState = HeldFile> {
  op: PatchOp;
  source: F;
  dest?: F;
  /** New text and style, or undefined for a delete. */
  text?: string;
  style?: Pick<TextStyle, 'encoding' | 'bom' | 'eol'>;
  before: string;
  /** What loose matches tolerated. */
  notes?: string[];
}

export const applyPatch = defineTool({
  name: 'apply_patch',
  lane: 'write',
  params,
  description:
    `Applies a \`patch\` in the V4A format: "*** Begin Patch", then per file "*** Add File: path" (lines starting with +), ` +
    `"*** Delete File: path", or "*** Update File: path" (optionally "*** Move to: new/path") followed by chunks — an optional ` +
    `"@@ line to find first", then lines starting with " " (context), "-" (remove) and "+" (add), "*** End of File" to pin a chunk to ` +
    `the end — and "*** End Patch". Paths are relative to the root. Deleted files must have been read in this session and not changed ` +
    `since; so must updated ones, unless all their context and '-' lines match exactly. Context that differs only in whitespace, ` +
    `indentation or typographic characters still applies when exactly one place fits. Every change of every file is checked before anything is written, and a failure leaves all files as they were. ` +
    `Line endings, BOM and permissions are kept; the answer lists the files changed, with diffs.`,
  access: (a) => {
    const parsed = parsePatch(a.patch);
    return parsed.ok ? parsed.value.flatMap(opPaths).map((path) => ({ kind: 'write' as const, path })) : [];
  },
  preview(a, ctx) {
    const parsed = parsePatch(a.patch);
    if (!parsed.ok) return { note: `the patch is invalid: ${parsed.error}` };
    if (new Set(ctx.paths).size !== ctx.paths.length) return { note: 'the patch names the same file more than once' };
    const files: FileState[] = [];
    for (const real of ctx.paths) {
      const f = previewFile(ctx, real);
      if (!f.ok) return failureNote(f.error);
      files.push(f.value);
    }
    const plan: Planned<FileState>[] = [];
    let k = 0;
    for (const op of parsed.value) {
      const source = files[k++];
      const dest = op.kind === 'update' && op.moveTo ? files[k++] : undefined;
      if (!source) return { note: 'the checked paths do not match the patch' };
      const planned = planOp(op, source, dest);
      if (!planned.ok) return failureNote(planned.error);
      plan.push(planned.value);
    }
    return { diff: plan.map(describe).join('\n') };
  },
  async run(a, ctx: WriteContext) {
    const parsed = parsePatch(a.patch);
    if (!parsed.ok) return fail('invalid_args', `Invalid patch: ${parsed.error}.`);
    const paths = [...ctx.paths];
    const all = parsed.value.flatMap(opPaths);
    if (paths.length !== all.length) return fail('internal', 'apply_patch: the checked paths do not match the patch');
    if (new Set(paths).size !== paths.length)
      return fail(
        'invalid_args',
        'Invalid patch: it names the same file more than once; merge those changes into one section.',
      );
    return withHeldFiles(ctx, paths, { createParents: true }, (targets) => {
      // 1. Work out every change, touching nothing.
      const plan: Planned[] = [];
      let k = 0;
      for (const op of parsed.value) {
        const source = targets[k++] as HeldFile;
        const dest = op.kind === 'update' && op.moveTo ? (targets[k++] as HeldFile) : undefined;
        const planned = planOp(op, source, dest);
        if (!planned.ok) return planned.error;
        plan.push(planned.value);
      }
      // 2. Write them, undoing every earlier write if one fails.
      const done: (() => void)[] = [];
      for (const p of plan) {
        const err = commit(p, done);
        if (err) {
          for (const undo of done.reverse()) undo();
          return { ...err, content: `${err.content} Every file of the patch was left as it was.` };
        }
      }
      const text = plan.map(describe).join('\n');
      return ok(text, { files: plan.length, diff: text });
    });
  },
});

function planOp<F extends FileState>(op: PatchOp, source: F, dest: F | undefined): Result<Planned<F>, ToolResult> {
  const cur = source.current;
  if (op.kind === 'add') {
    if (cur)
      return errValue(
        fail('exists', `Cannot add ${quote(source.shown)}: it already exists. Use "*** Update File:" to change it.`),
      );
    return okValue({
      op,
      source,
      text: op.content,
      style: { encoding: 'utf-8', bom: false, eol: eolOf(op.content) },
      before: '',
    });
  }
  if (!cur) return errValue(fail('not_found', `Cannot ${op.kind} ${quote(source.shown)}: no such file.`));
  // An update of a file not read in this session may go ahead when every chunk is pinned by context
  // or '-' lines (or an @@ line) that all match exactly: the patch shows its author saw that content.
  // The write still compares against the bytes loaded here. A delete proves nothing, so it needs a read.
  const stale = source.fresh();
  if (stale && !(stale.code === 'not_read' && op.kind === 'update')) return errValue(stale);
  const style = { encoding: cur.encoding, bom: cur.bom, eol: cur.eol };
  if (op.kind === 'delete') return okValue({ op, source, before: cur.text });
  if (dest?.current)
    return errValue(
      fail('exists', `Cannot move ${quote(source.shown)} to ${quote(dest.shown)}: the destination exists.`),
    );
  const applied = applyChunks(cur.text, op.chunks, source.shown);
  if (!applied.ok)
    return errValue(
      stale ? { ...stale, content: `${stale.content} (${applied.error})` } : fail('no_match', applied.error),
    );
  const pinned = op.chunks.length > 0 && op.chunks.every((c) => c.old.length > 0 || c.anchor !== undefined);
  if (stale && !(applied.value.exact && pinned))
    return errValue({
      ...stale,
      content: `${stale.content} (A patch may change an unread file only when its context and '-' lines match it exactly.)`,
    });
  // Exact context at more than one place does not show which one its author saw.
  if (stale && applied.value.twice)
    return errValue({
      ...stale,
      content: `${stale.content} (${applied.value.twice}, so the patch does not show which place it means: more than one place fits. Read the file, or add context or an @@ line.)`,
    });
  const notes = applied.value.notes;
  return okValue({ op, source, ...(dest ? { dest } : {}), text: applied.value.text, style, before: cur.text, notes });
}

function commit(p: Planned, done: (() => void)[]): ToolResult | undefined {
  const cur = p.source.current;
  const mode = cur ? Number(cur.stat.mode & 0o7777n) : undefined;
  if (p.text === undefined || p.style === undefined) {
    const err = p.source.remove();
    if (!err) done.push(() => p.source.restore(cur?.bytes, mode));
    return err;
  }
  const into = p.dest ?? p.source;
  const err = into.commit(p.text, p.style);
  if (err) return err;
  done.push(() => into.restore(into === p.source ? cur?.bytes : undefined, mode));
  if (p.dest) {
    const rm = p.source.remove();
    if (rm) return rm;
    done.push(() => p.source.restore(cur?.bytes, mode));
  }
  return undefined;
}

function describe(p: Planned<FileState>): string {
  if (p.op.kind === 'add') return `A ${p.source.shown}\n${unifiedDiff(p.source.shown, '', p.text ?? '')}`;
  if (p.op.kind === 'delete') return `D ${p.source.shown}`;
  const name = p.dest ? `${p.source.shown} -> ${p.dest.shown}` : p.source.shown;
  const diff = unifiedDiff(p.dest?.shown ?? p.source.shown, p.before, p.text ?? '');
  const notes = p.notes?.length ? ` (${p.notes.join('; ')})` : '';
  return `${p.dest ? 'R' : 'M'} ${name}${notes}${diff ? `\n${diff}` : ''}`;
}
