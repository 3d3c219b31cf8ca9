/**
 * Read rules reach every read tool. A rule naming any tool that reads file contents or names —
 * read_file, grep, glob, load_skill — is a rule about reading: it judges the read accesses of all of
 * them (access_verdict.ts), and its deny form is what searches skip while they walk (this file), so
 * `deny: ["read_file(secret)"]` also keeps `grep` and `glob` out of secret/. The tools the MCP server
 * serves are these same tools, through the same check.
 */
import path from 'node:path';
import picomatch from 'picomatch';
import type { Mode } from '../core/modes.ts';
import { type CheckedPath, inside } from '../core/paths.ts';
import { type DenySpec, exactRegex, pathGlobs, type RequiredPatterns, underRegex } from '../search/denied.ts';
import type { PathGate } from './path_gate.ts';
import type { Flags } from './permissions.ts';
import type { Rule } from './rules.ts';

/**
 * The tools that read file contents or names. Kept in step with lib/tools/read_tools.ts by a test
 * (importing it here would tie the policy to every tool's module).
 */
export const READ_RULE_TOOLS: readonly string[] = ['read_file', 'glob', 'grep', 'load_skill'];

/** Whether a rule is about reading: it names `*` or a read tool. */
const isReadRule = (r: Rule) => r.tool === '*' || READ_RULE_TOOLS.includes(r.tool);

interface ReadDenyOptions {
  /**
   * Also skip what an ask rule covers: a search cannot ask about each file it meets, so it leaves
   * them out (searching the path itself asks). Not in bypass mode, where asks do not apply.
   */
  asks?: boolean;
}

/**
 * What a search must skip: --deny-read paths, and the deny rules (with `asks`, the ask rules too) of
 * the read tools — every form: a plain path (and what is below it), a glob, `=exact`, `~regex`, and
 * their negations (`!pub/**`: everything outside pub/).
 */
export function readDenyOf(
  flags: Flags,
  rules: readonly Rule[],
  gate: PathGate,
  options: ReadDenyOptions = {},
): DenySpec | undefined {
  const spec: DenySpec = { globs: [], regexes: [], only: [] };
  const denied = flags.deny.read;
  if (denied === true) spec.globs.push('**');
  else
    for (const p of denied || []) {
      const c = gate.check(p, 'read', { grants: true }); // a denied path below a granted one outside the root
      if (c.ok) spec.globs.push(...pathGlobs(gate.display(c.value)));
    }
  for (const r of rules) {
    if (!isReadRule(r) || !(r.list === 'deny' || (options.asks && r.list === 'ask'))) continue;
    if (r.pattern === undefined) {
      spec.globs.push('**');
      continue;
    }
    const negated = r.pattern.startsWith('!');
    const required = patternsOf(negated ? r.pattern.slice(1) : r.pattern, negated);
    if (negated) spec.only?.push(required);
    else {
      spec.globs.push(...required.globs);
      spec.regexes.push(...required.regexes);
    }
  }
  if (!spec.only?.length) delete spec.only;
  return spec.globs.length || spec.regexes.length || spec.only ? spec : undefined;
}

/** What one search skips, chosen by its root (a real path): see `searchSkipOf`. */
export type SearchSkip = (root: string) => DenySpec | undefined;

/**
 * What a search skips: the deny patterns, and outside bypass mode the ask patterns too — unless an ask
 * rule covers the search root itself. Then the call was asked about and allowed (a call an ask rule
 * covers runs only when the prompt allowed it: asks come before allows), and that answer covers what
 * lies below the root; skipping it would make the approved search come back empty.
 */
export function searchSkipOf(flags: Flags, rules: readonly Rule[], gate: PathGate, mode: Mode): SearchSkip {
  const denied = readDenyOf(flags, rules, gate);
  const asks = rules.filter((r) => r.list === 'ask' && isReadRule(r));
  const rel = (p: string) => gate.display(p);
  const asksMayApply = mode !== 'bypass' && asks.length > 0;
  const withAsks = asksMayApply ? readDenyOf(flags, rules, gate, { asks: true }) : denied;
  const askedAbout = (root: string) =>
    asks.some((r) => !r.test || r.test({ kind: 'read', path: root as CheckedPath }, rel));
  return (root) => {
    const asksApply = asksMayApply && !askedAbout(root);
    if (!inside(root, gate.root)) return outsideWalk(flags, rules, gate, asksApply);
    return asksApply ? withAsks : denied;
  };
}

/**
 * What a search walking outside the root (below an `--allow-read` path) skips. The policy matches a
 * path there written in full (`/etc/ssl/a.pem`), but the walk tests paths relative to the root
 * (`../../etc/ssl/a.pem`), which no rule written for the root's paths can mean. So: --deny-read paths
 * and rules naming a literal absolute path are turned into that relative form exactly; a rule with a
 * pattern that could match there in another way (a glob such as `**\/*.pem`, a `~` expression, a
 * negation, no pattern) skips every file of such a walk, which the answer counts as denied: the
 * files can still be read by name, where the policy judges each one. A rule whose pattern starts
 * with a literal name (`secret/**`, `src`) only ever matches paths inside the root.
 */
function outsideWalk(flags: Flags, rules: readonly Rule[], gate: PathGate, asks: boolean): DenySpec | undefined {
  const everything: DenySpec = { globs: [], regexes: [''] };
  const under = (p: string, exact = false) => {
    const rel = path.relative(gate.root, p).split(path.sep).join('/');
    return exact ? exactRegex(rel) : underRegex(rel);
  };
  const regexes: string[] = [];
  const denied = flags.deny.read;
  if (denied === true) return everything;
  for (const p of denied || []) {
    const c = gate.check(p, 'read', { grants: true });
    if (c.ok && !inside(c.value, gate.root)) regexes.push(under(c.value));
  }
  for (const r of rules) {
    if (!isReadRule(r) || !(r.list === 'deny' || (asks && r.list === 'ask'))) continue;
    const p = r.pattern;
    if (p === undefined || p.startsWith('!') || p.startsWith('~')) return everything;
    const exact = p.startsWith('=');
    const body = exact ? p.slice(1) : p;
    if (!body.startsWith('/')) {
      if (!exact && picomatch.scan(body).base === '') return everything; // a glob from its first name on
      continue;
    }
    if (!exact && picomatch.scan(body).isGlob) return everything;
    regexes.push(under(path.resolve(body), exact));
  }
  return regexes.length ? { globs: [], regexes } : undefined;
}

/**
 * The paths a rule pattern matches, as rules.ts matches a path: `=x` exactly, `~re` by the regular
 * expression, otherwise the glob, or the pattern taken literally as a path and everything below it.
 * A negated rule needs that exactly (`exact`); a plain deny is widened to everything below a match
 * of the glob too, as the walk prunes whole directories.
 */
function patternsOf(p: string, exact: boolean): RequiredPatterns {
  if (p.startsWith('=')) return { globs: [], regexes: [exactRegex(p.slice(1))] };
  if (p.startsWith('~')) return { globs: [], regexes: [p.slice(1)] };
  const base = p.replace(/\/+$/, '');
  if (exact) return { globs: [p], regexes: [underRegex(base)] };
  // A literal path with glob characters in its name (`a[1]`) is not matched by itself as a glob.
  return { globs: [p, ...pathGlobs(base)], regexes: picomatch.scan(base).isGlob ? [underRegex(base)] : [] };
}
