/** What edit_file and multi_edit share: applying replacements to a held target and answering. */
import { quote } from '../core/text.ts';
import { fail, ok, type ToolResult } from '../core/tool.ts';
import type { HeldFile } from '../lane/held_file.ts';
import { eolOf } from '../lane/text_file.ts';
import { unifiedDiff } from './_diff.ts';
import { type Replacement, replaceExact } from './_edit_match.ts';
import { similarNames } from './_files.ts';

export function applyEdits(
  t: HeldFile,
  root: string,
  edits: readonly Replacement[],
  labels: (i: number) => string,
): ToolResult {
  const cur = t.current;
  const first = edits[0];
  if (first === undefined) return fail('invalid_args', 'no edits given');
  // An empty first old_string creates a missing file; it never overwrites one.
  if (first.old_string === '') {
    if (cur) {
      return fail(
        'exists',
        `${quote(t.shown)} already exists, so an empty ${labels(0)} (which creates a file) cannot apply. Give the text to replace, or read it and use write_file to replace it whole.`,
      );
    }
    let text = first.new_string;
    const lines: number[] = [1];
    for (const [i, e] of edits.slice(1).entries()) {
      const r = replaceExact(text, eolOf(text), e, t.shown, labels(i + 1));
      if (!r.ok) return prefix(r.error, edits.length, i + 1);
      text = r.value.text;
      lines.push(...r.value.lines);
    }
    const err = t.commit(text, { encoding: 'utf-8', bom: false, eol: eolOf(text) });
    if (err) return err;
    return ok(`Created ${quote(t.shown)}.\n${unifiedDiff(t.shown, '', text)}`, { created: true });
  }
  if (!cur) {
    const near = similarNames(root, t.real);
    return fail(
      'not_found',
      `Cannot edit ${quote(t.shown)}: no such file.${near.length ? ` Similar names: ${near.map(quote).join(', ')}.` : ''} To create it, use write_file (or an empty old_string).`,
    );
  }
  const stale = t.fresh();
  if (stale) return stale;
  let text = cur.text;
  const lines: number[] = [];
  for (const [i, e] of edits.entries()) {
    if (e.old_string === '')
      return prefix(
        fail('invalid_args', `${labels(i)} is empty; only a first edit of a missing file may be empty.`),
        edits.length,
        i,
      );
    const r = replaceExact(text, cur.eol, e, t.shown, labels(i));
    if (!r.ok) return prefix(r.error, edits.length, i);
    text = r.value.text;
    lines.push(...r.value.lines);
  }
  const err = t.commit(text, { encoding: cur.encoding, bom: cur.bom, eol: cur.eol });
  if (err) return err;
  const n = lines.length;
  const distinct = [...new Set(lines)].sort((a, b) => a - b);
  const where = distinct.length === 1 ? `line ${distinct[0]}` : `lines ${distinct.join(', ')}`;
  return ok(
    `Edited ${quote(t.shown)}: ${n} replacement${n === 1 ? '' : 's'} (${where}).\n${unifiedDiff(t.shown, cur.text, text)}`,
    { replacements: n },
  );
}

/** In a multi-edit, says which edit failed and that nothing was written. */
function prefix(r: ToolResult, total: number, index: number): ToolResult {
  if (total === 1) return r;
  return {
    ...r,
    content: `Edit ${index + 1} of ${total} failed, so none were applied and the file is unchanged. ${r.content}`,
  };
}
