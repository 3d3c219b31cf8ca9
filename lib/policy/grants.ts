/**
 * What the policy tells a user who was not asked or answered "always": the flags that would grant
 * a refused call, and the exact local rules an "always" adds to .mewcode/settings.local.json (and
 * records as the user's own in the trust record, see trust.ts).
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { CheckedAccess } from '../core/tool.ts';
import { subjectOf } from './rules.ts';
import { programsOfLine } from './run_match.ts';
import { recordGranted } from './trust.ts';

/** The flags that would grant what was asked, for the no-terminal denial. */
export function grantFlags(asked: readonly CheckedAccess[], rel: (p: string) => string): string[] {
  const flags = new Set<string>();
  for (const a of asked) {
    if (a.kind === 'read' || a.kind === 'write') flags.add(`--allow-${a.kind}=${rel(a.path).split('/')[0]}`);
    else if (a.kind === 'run') {
      // A line no program list covers (a substitution, a program that runs code, …) needs --allow-run.
      const programs = programsOfLine(a.command);
      flags.add(programs ? `--allow-run=${programs.join(',')}` : '--allow-run');
    } else flags.add(`--allow-${a.kind}=${subjectOf(a, rel)}`);
  }
  return [...flags];
}

/** The exact rule that allows one access of one tool again. */
export function exactRule(tool: string, a: CheckedAccess, rel: (p: string) => string): string {
  return `${tool}(=${subjectOf(a, rel)})`;
}

/** "Always": appends allow rules to .mewcode/settings.local.json, keeping what is there. */
export function addLocalRules(root: string, rules: readonly string[]): void {
  const file = path.join(root, '.mewcode', 'settings.local.json');
  let json: { permissions?: { allow?: string[] } } & Record<string, unknown> = {};
  try {
    json = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    // missing (or unreadable: then it is rewritten with the new rules only)
  }
  const allow = new Set(json.permissions?.allow ?? []);
  for (const r of rules) allow.add(r);
  json.permissions = { ...json.permissions, allow: [...allow] };
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(json, null, 2)}\n`);
}

/**
 * "Always" as the runtime wires it: the rules are first recorded as the user's own grant in their
 * trust record (folder trust then applies them even where the project's settings are not trusted,
 * and leaves them out of the digest), then written to .mewcode/settings.local.json.
 */
export function rememberAlways(
  root: string,
  home: string | undefined,
  warn: (line: string) => void,
): (rules: readonly string[]) => void {
  return (rules) => {
    const recorded = home ? recordGranted(home, root, rules) : undefined;
    if (recorded && !recorded.ok)
      warn(`mewcode: ${recorded.error}; the rule is written, but later runs ignore it unless you trust this folder`);
    addLocalRules(root, rules);
  };
}
