/**
 * The environment a command sees: an allowlist of harmless variables from the parent, plus the ones
 * granted with --allow-env (names, or prefixes like AWS_*). Secrets in the parent never pass by
 * default; loader variables (LD_*, DYLD_*) never pass except in bypass mode (Deno refuses them too).
 */

/** Passed through from the parent when set. */
export const ENV_ALLOWLIST = ['HOME', 'PATH', 'USER', 'LOGNAME', 'TERM', 'LANG', 'SHELL', 'TMPDIR', 'TZ'] as const;
const LOCALE = /^LC_[A-Z_]+$/;
/** What passes by default, as the bash tool's description lists it. */
export const ENV_PASSED_SHOWN = `${ENV_ALLOWLIST.join(', ')}, LC_*`;
const LOADER = /^(LD_|DYLD_)/;

/** Fixed for every command: no pager waits for a keypress that will never come. */
const ENV_FIXED: Readonly<Record<string, string>> = { PAGER: 'cat', GIT_PAGER: 'cat', GIT_TERMINAL_PROMPT: '0' };

type EnvGrant = boolean | readonly string[];

export function childEnv(
  parent: NodeJS.ProcessEnv,
  grant: EnvGrant,
  options: { allowLoader?: boolean } = {},
): Record<string, string> {
  const out: Record<string, string> = {};
  const granted = (name: string) =>
    grant === true ||
    (Array.isArray(grant) && grant.some((g) => (g.endsWith('*') ? name.startsWith(g.slice(0, -1)) : name === g)));
  for (const [name, value] of Object.entries(parent)) {
    if (value === undefined) continue;
    if (LOADER.test(name) && !options.allowLoader) continue;
    if ((ENV_ALLOWLIST as readonly string[]).includes(name) || LOCALE.test(name) || granted(name)) out[name] = value;
  }
  return { ...out, ...ENV_FIXED };
}
