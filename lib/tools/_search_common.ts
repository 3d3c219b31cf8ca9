/** Pieces glob and grep share: resolving the search directory and turning a failed run into a result. */
import { statSync } from 'node:fs';
import { quote } from '../core/text.ts';
import type { ToolResult } from '../core/tool.ts';
import { fail } from '../core/tool.ts';
import type { TaskOutcome } from '../pool/pool.ts';

export type Target = { kind: 'dir' } | { kind: 'file' } | { kind: 'error'; result: ToolResult };

export function targetOf(abs: string, shown: string): Target {
  try {
    const st = statSync(abs);
    if (st.isDirectory()) return { kind: 'dir' };
    if (st.isFile()) return { kind: 'file' };
    return {
      kind: 'error',
      result: fail('not_a_file', `Cannot search ${quote(shown)}: it is neither a directory nor a regular file.`),
    };
  } catch {
    return {
      kind: 'error',
      result: fail(
        'not_found',
        `Cannot search ${quote(shown)}: no such file or directory. Find directories with glob.`,
      ),
    };
  }
}

export function outcomeError(o: TaskOutcome<unknown> & { ok: false }, tool: string, hint: string): ToolResult {
  if (o.reason === 'timeout') return fail('timeout', `${tool} stopped at its deadline: ${hint}`);
  if (o.reason === 'cancelled') return fail('cancelled', `${tool} was cancelled.`);
  return fail('io', `${tool} failed: ${o.message}`);
}
