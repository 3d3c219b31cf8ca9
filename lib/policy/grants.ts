/**
 * What the policy tells a user who was not asked or answered "always": the flags that would grant
 * a refused call, and the exact local rules an "always" adds — to the running policy at once, to
 * .mewcode/settings.local.json, and as the user's own in the trust record (see trust.ts).
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, lstatSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { errValue, okValue, type Result } from '../core/result.ts';
import type { CheckedAccess } from '../core/tool.ts';
import { recordGranted } from '../settings/trust.ts';
import { NET_RULE, parseRule, type Rule, subjectOf } from './rules.ts';
import { programsOfLine } from './run_match.ts';

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

/**
 * The words that lift a refusal, from its flags (`grantFlags`): the flags themselves, or the same
 * grants as createRuntime's `permissions` option, for a library's caller —
 * `--allow-write=src --allow-run` is `permissions: { allow: { write: ['src'], run: true } }`.
 */
export function liftText(flags: readonly string[], as: 'flags' | 'option' = 'flags'): string {
  if (as === 'flags') return flags.join(' ');
  const allow = new Map<string, string[] | true>();
  for (const f of flags) {
    const m = /^--allow-([a-z]+)(?:=(.*))?$/s.exec(f);
    if (!m?.[1]) continue;
    const had = allow.get(m[1]);
    if (m[2] === undefined || had === true) allow.set(m[1], true);
    else allow.set(m[1], [...(had ?? []), ...m[2].split(',')]);
  }
  const kinds = [...allow].map(
    ([k, v]) => `${k}: ${v === true ? 'true' : `[${v.map((s) => JSON.stringify(s)).join(', ')}]`}`,
  );
  return `createRuntime's permissions: { allow: { ${kinds.join(', ')} } }`;
}

/** The exact rule that allows one access of one tool again. */
function exactRule(tool: string, a: CheckedAccess, rel: (p: string) => string): string {
  // A command's connection is judged by net rules: a bash rule would never speak to it again.
  if (tool === 'bash' && a.kind === 'net') return `${NET_RULE}(=${a.host})`;
  return `${tool}(=${subjectOf(a, rel)})`;
}

/**
 * "Always", in memory: the exact allow rules for what was asked, as rule texts (for the files) and
 * compiled at the local level (for the running policy, which adds them at once). They are compiled by
 * the same parser as the files', so this run and the next judge them alike.
 */
export function alwaysRules(
  tool: string,
  asked: readonly CheckedAccess[],
  rel: (p: string) => string,
): { texts: string[]; rules: Rule[] } {
  const texts = [...new Set(asked.map((a) => exactRule(tool, a, rel)))];
  const rules: Rule[] = [];
  for (const t of texts) {
    const r = parseRule(t, 'allow', 'local', [tool]);
    if (r.ok) rules.push(r.value);
  }
  return { texts, rules };
}

/**
 * "Always": appends allow rules to .mewcode/settings.local.json, keeping everything else in it, and
 * replaces the file atomically. A file that is not a JSON object with a list of rule strings is left
 * as it is (the answer says so): it is never rewritten with only the new rules.
 */
export function addLocalRules(root: string, rules: readonly string[]): Result<void, string> {
  const file = path.join(root, '.mewcode', 'settings.local.json');
  // A .mewcode that is a link (a clone can ship one) would put the file wherever it points.
  if (lstatSync(path.dirname(file), { throwIfNoEntry: false })?.isSymbolicLink())
    return errValue(
      `${path.dirname(file)} is a symbolic link; replace it with a directory, then add ${rules.join(', ')}`,
    );
  let json: { permissions?: { allow?: unknown } } & Record<string, unknown> = {};
  let mode: number | undefined; // an existing file keeps its permissions
  try {
    mode = statSync(file).mode & 0o7777;
    const parsed: unknown = JSON.parse(readFileSync(file, 'utf8'));
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
      return errValue(`${file} is not a JSON object; add ${rules.join(', ')} to its permissions.allow yourself`);
    json = parsed as typeof json;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT')
      return errValue(
        `${file} cannot be read as JSON (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}); fix it, then add ${rules.join(', ')} to its permissions.allow`,
      );
  }
  const old = json.permissions?.allow ?? [];
  if (!Array.isArray(old) || old.some((r) => typeof r !== 'string'))
    return errValue(`${file}: permissions.allow is not a list of rules; fix it, then add ${rules.join(', ')}`);
  json.permissions = { ...json.permissions, allow: [...new Set([...old, ...rules])] };
  const temp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(temp, `${JSON.stringify(json, null, 2)}\n`, { flag: 'wx' });
    if (mode !== undefined) chmodSync(temp, mode);
    renameSync(temp, file);
    return okValue(undefined);
  } catch (e) {
    rmSync(temp, { force: true });
    return errValue(`${file} cannot be written (${(e as NodeJS.ErrnoException).code ?? e})`);
  }
}

/**
 * "Always" as the runtime wires it: the rules are first recorded as the user's own grant in their
 * trust record (folder trust then applies them even where the project's settings are not trusted,
 * and leaves them out of the digest), then written to .mewcode/settings.local.json. The running
 * policy has already added them (check.ts); a failure here costs only later runs, and says so.
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
    const written = addLocalRules(root, rules);
    if (!written.ok) warn(`mewcode: the rule holds for this run only: ${written.error}`);
  };
}
