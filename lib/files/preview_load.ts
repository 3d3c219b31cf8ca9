/**
 * What the write tools' previews share: a file loaded the way a change loads it — through its checked
 * path, the parent directory opened and checked to be inside the root, never following a symlink
 * swapped in since — but read-only: no lock, no directory created, nothing written. Its `fresh()`
 * is the write lane's own check against the read ledger, so a preview says "not read" exactly when the
 * change would. Main thread (the prompt runs there).
 */
import { lstatSync } from 'node:fs';
import path from 'node:path';
import { type CheckedPath, displayPath } from '../core/paths.ts';
import { errValue, okValue, type Result } from '../core/result.ts';
import { quote } from '../core/text.ts';
import { fail, type Preview, type PreviewContext, type ToolResult } from '../core/tool.ts';
import { openDir } from './atomic.ts';
import type { HeldFile } from './held_file.ts';
import { loadText } from './text_file.ts';

/** The read half of a held file: what planning a change needs. */
export type FileState = Pick<HeldFile, 'real' | 'shown' | 'current' | 'fresh'>;

/** Loads `real` for a preview, or the answer the change would get (not a text file, outside the root). */
export function previewFile(ctx: PreviewContext, real: CheckedPath): Result<FileState, ToolResult> {
  const shown = displayPath(ctx.root, real);
  const parent = path.dirname(real);
  const absent: FileState = { real, shown, current: undefined, fresh: () => undefined };
  try {
    lstatSync(parent);
  } catch {
    return okValue(absent); // the change would create the directory and the file
  }
  const opened = openDir(parent, ctx.root);
  if (!opened.ok) return errValue(fail(opened.error.code, `Cannot write ${quote(shown)}: ${opened.error.message}`));
  try {
    const loaded = loadText(opened.value, path.basename(real), shown);
    if (!loaded.ok) return loaded;
    const current = loaded.value;
    if (!current) return okValue(absent);
    return okValue({
      real,
      shown,
      current,
      fresh() {
        const f = ctx.ledger.verify(real, shown, current.stat, current.bytes);
        return f.ok ? undefined : fail(f.error.code, f.error.message);
      },
    });
  } finally {
    opened.value.close();
  }
}

/** A change that would fail, as a preview: the first line of the answer the call would get. */
export function failureNote(r: ToolResult): Preview {
  const first = r.content.split('\n')[0] ?? '';
  return { note: `the call would fail${r.code ? ` (${r.code})` : ''}: ${first}` };
}
