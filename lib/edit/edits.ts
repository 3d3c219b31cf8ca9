/**
 * What edit_file and multi_edit share: working out the replacements on a file (planEdits), then either
 * writing them to the held file and answering (applyEdits), or showing them to the approval prompt
 * without writing (previewEdits). Both go through the same plan, so the prompt shows the change the
 * call makes.
 */

import { errValue, okValue, type Result } from '../core/result.ts';
import { quote } from '../core/text.ts';
import { fail, ok, type Preview, type ToolResult } from '../core/tool.ts';
import { MODEL_WORDING, type Wording } from '../core/wording.ts';
import type { HeldFile } from '../files/held_file.ts';
import { type FileState, failureNote } from '../files/preview_load.ts';
import { similarNames } from '../files/suggest.ts';
import { eolOf, type TextStyle } from '../files/text_file.ts';
import { unifiedDiff } from './diff.ts';
import { type Replacement, replaceText } from './replace.ts';

/** The edited text and how to write it; `before` is the text it replaces ('' for a new file). */
interface EditPlan {
  text: string;
  before: string;
  style: Pick<TextStyle, 'encoding' | 'bom' | 'eol'>;
  created: boolean;
  /** Line numbers of the replacements (existing files). */
  lines: number[];
  /** What the matcher tolerated, and where (one entry per edit that needed it). */
  notes: string[];
}

function planEdits(
  t: FileState,
  root: string,
  edits: readonly Replacement[],
  labels: (i: number) => string,
  w: Wording,
): Result<EditPlan, ToolResult> {
  const cur = t.current;
  const first = edits[0];
  if (first === undefined) return errValue(fail('invalid_args', 'no edits given'));
  // An empty first old_string creates a missing file; it never overwrites one.
  if (first.old_string === '') {
    if (cur) {
      return errValue(
        fail(
          'exists',
          `${quote(t.shown)} already exists, so an empty ${labels(0)} (which creates a file) cannot apply. Give the text to replace, or read it and use write_file to replace it whole.`,
        ),
      );
    }
    let text = first.new_string;
    for (const [i, e] of edits.slice(1).entries()) {
      const r = replaceText(text, eolOf(text), e, t.shown, labels(i + 1), w);
      if (!r.ok) return errValue(prefix(r.error, edits.length, i + 1));
      text = r.value.text;
    }
    return okValue({
      text,
      before: '',
      style: { encoding: 'utf-8', bom: false, eol: eolOf(text) },
      created: true,
      lines: [],
      notes: [],
    });
  }
  if (!cur) {
    const near = similarNames(root, t.real);
    return errValue(
      fail(
        'not_found',
        `Cannot edit ${quote(t.shown)}: no such file.${near.length ? ` Similar names: ${near.map(quote).join(', ')}.` : ''} To create it, use write_file (or an empty ${w.oldString}).`,
      ),
    );
  }
  const stale = t.fresh();
  if (stale) return errValue(stale);
  let text = cur.text;
  const lines: number[] = [];
  const notes: string[] = [];
  for (const [i, e] of edits.entries()) {
    if (e.old_string === '')
      return errValue(
        prefix(
          fail('invalid_args', `${labels(i)} is empty; only a first edit of a missing file may be empty.`),
          edits.length,
          i,
        ),
      );
    const r = replaceText(text, cur.eol, e, t.shown, labels(i), w);
    if (!r.ok) return errValue(prefix(r.error, edits.length, i));
    text = r.value.text;
    lines.push(...r.value.lines);
    notes.push(...r.value.notes.map((n) => (edits.length > 1 ? `edit ${i + 1}: ${n}` : n)));
  }
  return okValue({
    text,
    before: cur.text,
    style: { encoding: cur.encoding, bom: cur.bom, eol: cur.eol },
    created: false,
    lines,
    notes,
  });
}

export function applyEdits(
  t: HeldFile,
  root: string,
  edits: readonly Replacement[],
  labels: (i: number) => string,
  w: Wording = MODEL_WORDING,
): ToolResult {
  const plan = planEdits(t, root, edits, labels, w);
  if (!plan.ok) return plan.error;
  const { text, before, style, created, lines, notes } = plan.value;
  const err = t.commit(text, style);
  if (err) return err;
  if (created) {
    const diff = unifiedDiff(t.shown, '', text);
    return ok(`Created ${quote(t.shown)}.\n${diff}`, { created: true, diff });
  }
  const n = lines.length;
  const distinct = [...new Set(lines)].sort((a, b) => a - b);
  const where = distinct.length === 1 ? `line ${distinct[0]}` : `lines ${distinct.join(', ')}`;
  const diff = unifiedDiff(t.shown, before, text);
  return ok(
    `Edited ${quote(t.shown)}: ${n} replacement${n === 1 ? '' : 's'} (${where})${notes.map((x) => `; ${x}`).join('')}.\n${diff}`,
    { replacements: n, diff },
  );
}

/** The diff the edits would make, or why they would fail; writes nothing. */
export function previewEdits(
  t: FileState,
  root: string,
  edits: readonly Replacement[],
  labels: (i: number) => string,
): Preview {
  const plan = planEdits(t, root, edits, labels, MODEL_WORDING);
  if (!plan.ok) return failureNote(plan.error);
  return { diff: unifiedDiff(t.shown, plan.value.before, plan.value.text) };
}

/** In a multi-edit, says which edit failed and that nothing was written. */
function prefix(r: ToolResult, total: number, index: number): ToolResult {
  if (total === 1) return r;
  return {
    ...r,
    content: `Edit ${index + 1} of ${total} failed, so none were applied and the file is unchanged. ${r.content}`,
  };
}
