/** Pieces glob and grep share: resolving the search directory and turning a failed run into a result. */
import { statSync } from 'node:fs';
import { errValue, okValue, type Result } from '../core/result.ts';
import type { TaskFailure } from '../core/task_outcome.ts';
import { quote } from '../core/text.ts';
import type { ToolResult } from '../core/tool.ts';
import { fail } from '../core/tool.ts';
import type { Wording } from '../core/wording.ts';

/** Whether a search starts at a directory or a single file; a missing path or a device is the error answer. */
export function searchStartKind(abs: string, shown: string, w: Wording): Result<'dir' | 'file', ToolResult> {
  try {
    const st = statSync(abs);
    if (st.isDirectory()) return okValue('dir');
    if (st.isFile()) return okValue('file');
    return errValue(fail('not_a_file', `Cannot search ${quote(shown)}: it is neither a directory nor a regular file.`));
  } catch {
    return errValue(
      fail(
        'not_found',
        `Cannot search ${quote(shown)}: no such file or directory. Find directories with ${w.globTool}.`,
      ),
    );
  }
}

export function outcomeError(o: TaskFailure, tool: string, hint: string): ToolResult {
  if (o.reason === 'timeout') return fail('timeout', `${tool} stopped at its deadline: ${hint}`);
  if (o.reason === 'cancelled') return fail('cancelled', `${tool} was cancelled.`);
  return fail('internal', `${tool} failed: ${o.message}`);
}
