/**
 * A write's preview for the approval prompt: the tool's own `preview`, computed at most once and only
 * when the prompt shows the question (a call that is allowed or denied without asking never reads
 * for it), never throwing — a failure is a one-line note and never changes the decision — and able
 * to save the whole diff when the prompt shows only its head. Main thread.
 */
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { errValue, okValue, type Result } from '../core/result.ts';
import { spillDirFor } from '../core/spill_dir.ts';
import { type AnyTool, describeError, type PreviewContext } from '../core/tool.ts';
import type { PromptPreview } from './prompt.ts';

/** The preview of one call, as a thunk the prompt may call; undefined when the tool has none. */
export function previewOf(
  tool: AnyTool,
  args: unknown,
  ctx: PreviewContext,
): (() => Promise<PromptPreview>) | undefined {
  const make = tool.preview;
  if (!make) return undefined;
  let once: Promise<PromptPreview> | undefined;
  const compute = async (): Promise<PromptPreview> => {
    try {
      const p = await make(args, ctx);
      if ('note' in p) return { note: p.note };
      if (p.diff === '') return { note: 'the call would change nothing' };
      return { diff: p.diff, save: () => saveDiff(ctx.root, p.diff) };
    } catch (e) {
      return { note: `${tool.name} could not preview its change (${describeError(e)})` };
    }
  };
  return () => {
    once ??= compute();
    return once;
  };
}

/**
 * Writes a whole diff into the root's spill directory (private to the user, swept after a day like
 * every spill file), for the user to read when the prompt showed only its head.
 */
function saveDiff(root: string, diff: string): Result<string, string> {
  const dir = spillDirFor(root);
  if (!dir.ok) return dir;
  const file = path.join(dir.value, `${Date.now()}-${randomBytes(6).toString('hex')}-diff.txt`);
  try {
    writeFileSync(file, diff.endsWith('\n') ? diff : `${diff}\n`, { mode: 0o600, flag: 'wx' });
    return okValue(file);
  } catch (e) {
    return errValue(`${file} cannot be written (${(e as NodeJS.ErrnoException).code ?? e})`);
  }
}
