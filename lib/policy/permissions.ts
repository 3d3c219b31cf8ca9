/**
 * Deno-style permission flags: for each kind (read, write, run, net, env) an allow and a deny grant,
 * each `false`, `true` (everything) or a list (paths, command names, hosts, variable names). Deny
 * wins. What a grant covers: paths by containment (resolved like every other path), commands by
 * the program name of every command in the line (a bare `git` grant never covers `./git`, nor git
 * running code it is given; a `git` deny also covers `/usr/bin/git`), hosts and variables by name
 * (`AWS_*` style prefixes for variables).
 */
import { inside } from '../core/paths.ts';
import type { Kind } from '../core/permission_kinds.ts';
import type { CheckedAccess } from '../core/tool.ts';
import { analyseCommand } from '../shell/commands.ts';
import { programsCover, programsDeny } from './run_match.ts';

export { KINDS, type Kind } from '../core/permission_kinds.ts';

export type Grant = boolean | readonly string[];

export interface PermissionFlags {
  allow?: Partial<Record<Kind, Grant>>;
  deny?: Partial<Record<Kind, Grant>>;
}

/** Flags with both sides present, as the policy uses them. */
export type Flags = Required<PermissionFlags>;

/** Whether a grant covers an access. `resolve` turns a granted path into an absolute real path. */
export function covers(
  grant: Grant | undefined,
  t: CheckedAccess,
  resolve: (p: string) => string,
  asDeny: boolean,
): boolean {
  if (grant === undefined || grant === false) return false;
  if (grant === true) return true;
  switch (t.kind) {
    case 'read':
    case 'write':
      return grant.some((g) => inside(t.path, resolve(g)));
    case 'run':
      // Through the command's analysis (shell.ts): an allow list must name the program of every
      // command, a deny list any one (by name or path); see run_match.ts.
      return asDeny ? programsDeny(grant, analyseCommand(t.command)) : programsCover(grant, analyseCommand(t.command));
    case 'net':
      return grant.some((g) => g === t.host || (g.startsWith('*.') && t.host.endsWith(g.slice(1))));
    case 'env':
      return grant.some((g) => (g.endsWith('*') ? t.name.startsWith(g.slice(0, -1)) : g === t.name));
  }
}

/** Parses a flag value: bare flag (`*` or empty) → everything; otherwise a comma list. */
export function grantOf(value: string | undefined): Grant | undefined {
  if (value === undefined) return undefined;
  if (value === '' || value === '*') return true;
  return value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}
