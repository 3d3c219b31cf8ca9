/**
 * Permission modes. default: writes and commands ask. acceptEdits: file writes inside the root are
 * allowed. plan: only read-only tools are exposed and anything else is denied, whatever the rules.
 * bypass: everything is allowed except what the sandbox, the blacklist or an explicit deny refuses.
 */
export const MODES = ['default', 'acceptEdits', 'plan', 'bypass'] as const;
export type Mode = (typeof MODES)[number];

export const isMode = (s: string): s is Mode => (MODES as readonly string[]).includes(s);
