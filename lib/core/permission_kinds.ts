/**
 * The permission kinds, one definition each: what a grant of the kind lists, its flags' help, how the
 * approval prompt asks for it, and what happens when nothing grants or refuses it. The flag table
 * (lib/cli/flags.ts), the parser, the help, the prompt and the policy's default step all read it, and
 * test/permission_kinds.test.ts checks that every kind reaches the prompt, the help and the docs. A
 * new kind is one entry here, its access's shape in tool.ts (`Access`), and how a grant covers it
 * (lib/policy/permissions.ts), which the compiler then asks for.
 */

interface PermissionKind {
  /** What a grant lists, as the help names it. */
  subject: 'PATH' | 'PROGRAM' | 'HOST' | 'VAR';
  /** `--allow-KIND`'s help line. */
  allowHelp: string;
  /** `--deny-KIND`'s help line. */
  denyHelp: string;
  /** How the prompt asks: "MewCode: grep wants to <ask>:". */
  ask: string;
  /** The verdict when no flag, rule or mode speaks (env's allowlisted variables are allowed: lib/exec/env.ts). */
  byDefault: 'allow' | 'ask' | 'deny';
  /** Why, in the policy's words. */
  defaultWhy: string;
}

export const PERMISSION_KINDS = {
  read: {
    subject: 'PATH',
    allowHelp: 'read these paths without asking, outside the root too (bare: all of the root)',
    denyHelp: 'refuse reads of these paths (deny wins)',
    ask: 'read',
    byDefault: 'allow',
    defaultWhy: 'reads inside the root are allowed',
  },
  write: {
    subject: 'PATH',
    allowHelp: 'write these paths without asking (bare: the root)',
    denyHelp: 'refuse writes to these paths',
    ask: 'write',
    byDefault: 'ask',
    defaultWhy: 'writes ask by default',
  },
  run: {
    subject: 'PROGRAM',
    allowHelp: 'run these programs without asking (bare: all)',
    denyHelp: 'refuse these programs',
    ask: 'run this command',
    byDefault: 'ask',
    defaultWhy: 'commands ask by default',
  },
  net: {
    subject: 'HOST',
    allowHelp: 'reach these hosts without asking (bare: all)',
    denyHelp: 'refuse these hosts',
    ask: 'connect to',
    byDefault: 'ask',
    defaultWhy: 'connections ask by default',
  },
  env: {
    subject: 'VAR',
    allowHelp: 'pass these environment variables (bare: all)',
    denyHelp: 'refuse these environment variables',
    ask: 'read the environment variable',
    byDefault: 'deny',
    defaultWhy: 'variables outside the allowlist are denied by default',
  },
} as const satisfies Record<string, PermissionKind>;

export type Kind = keyof typeof PERMISSION_KINDS;
export const KINDS = Object.keys(PERMISSION_KINDS) as readonly Kind[];

/** The Deno-style permission flags; bare forms grant everything of their kind. */
type PermissionFlag = `allow-${Kind}` | `deny-${Kind}`;
export const PERMISSION_FLAGS: readonly PermissionFlag[] = [
  ...KINDS.map((k): PermissionFlag => `allow-${k}`),
  ...KINDS.map((k): PermissionFlag => `deny-${k}`),
];

/** The flag table's entries for the permission flags, from the kinds above. */
export function permissionFlagSpecs(): Record<PermissionFlag, { type: 'string'; arg: string; help: string }> {
  const specs = {} as Record<PermissionFlag, { type: 'string'; arg: string; help: string }>;
  for (const k of KINDS) {
    const d: PermissionKind = PERMISSION_KINDS[k];
    specs[`allow-${k}`] = { type: 'string', arg: `${d.subject},…`, help: d.allowHelp };
    specs[`deny-${k}`] = { type: 'string', arg: `${d.subject},…`, help: d.denyHelp };
  }
  return specs;
}
