/**
 * The one authorisation step every call goes through: the path gate resolves and checks each path
 * the tool declared, then the policy decides on the checked accesses. Grants the checked paths (in
 * access order) with the decision, or answers the refusal — carrying the decision when the policy
 * made one. A tool with a `preview` hands the policy a thunk of it, for the prompt to show if it asks
 * (it reads through the checked paths and the read ledger; it never writes). Main thread.
 */
import type { CheckedPath } from '../core/paths.ts';
import type { Authorization } from '../core/registry.ts';
import { errValue, okValue, type Result } from '../core/result.ts';
import {
  type Access,
  type AnyTool,
  type CheckedAccess,
  fail,
  type PreviewContext,
  type ToolResult,
} from '../core/tool.ts';
import type { Wording } from '../core/wording.ts';
import { previewOf } from '../prompt/preview.ts';
import type { Policy } from './check.ts';
import type { PathGate } from './path_gate.ts';

type Authorize = (
  tool: AnyTool,
  access: readonly Access[],
  args?: unknown,
  wording?: Wording,
) => Promise<Result<Authorization, ToolResult>>;

/** `ledger`: the write lane's read ledger, which previews consult (absent: no previews). */
export function createAuthorize(gate: PathGate, policy: Policy, ledger?: PreviewContext['ledger']): Authorize {
  return async (tool, access, args, wording) => {
    const paths: CheckedPath[] = [];
    const accesses: CheckedAccess[] = [];
    for (const a of access) {
      if (a.kind === 'read' || a.kind === 'write') {
        // Reads outside the root that --allow-read grants are for the read tools, not bash's working directory.
        const checked = gate.check(a.path, a.kind, { grants: tool.readsFiles === true });
        if (!checked.ok) return errValue(fail(checked.error.code, checked.error.message));
        paths.push(checked.value);
        accesses.push({ kind: a.kind, path: checked.value });
      } else accesses.push(a);
    }
    const preview = ledger && previewOf(tool, args, { root: gate.root, paths, ledger });
    const decision = await policy.check({
      tool: tool.name,
      readOnly: tool.readOnly,
      accesses,
      ...(preview ? { preview } : {}),
      ...(wording ? { grantsAs: wording.grants } : {}),
    });
    if (!decision.allow) return errValue(fail('permission_denied', decision.reason, { policy: decision }));
    return okValue({ paths, decision });
  };
}
