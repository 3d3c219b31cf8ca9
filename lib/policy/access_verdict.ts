/**
 * The verdict on one access of a call: allow, ask or deny, and which step gave it. The steps run in
 * this order and the first one that answers wins, so a deny anywhere beats an ask, and an ask beats
 * an allow, at any depth of the tree and in any settings file: allow src, deny src/secret, allow
 * src/secret/pub leaves src/secret/pub denied. Main thread.
 */

import type { Mode } from '../core/modes.ts';
import { PERMISSION_KINDS } from '../core/permission_kinds.ts';
import type { CheckedAccess } from '../core/tool.ts';
import { ENV_ALLOWLIST } from '../exec/env.ts';
import { covers, type Flags } from './permissions.ts';
import { READ_RULE_TOOLS } from './read_deny.ts';
import { NET_RULE, type Rule, subjectOf } from './rules.ts';

export type Verdict = 'allow' | 'ask' | 'deny';
export type DecidedBy = 'blacklist' | 'protected' | 'mode' | 'flag' | 'rule' | 'default' | 'hook' | 'prompt';

export interface AccessVerdict {
  verdict: Verdict;
  by: DecidedBy;
  why: string;
  access: CheckedAccess;
  /** What in the step decided: the rule as written with its level, the flag, the mode (for an audit log). */
  source: string;
}

/** What the access steps consult. */
export interface VerdictConfig {
  mode: Mode;
  flags: Flags;
  rules: readonly Rule[];
  /** Turns a granted path (relative to the root or absolute) into a checked absolute path. */
  resolve: (p: string) => string;
  /** Shows an absolute path relative to the root. */
  rel: (p: string) => string;
  /** Programs granted by path (--allow-run=./tool.sh), resolved. */
  grantedPrograms: readonly string[];
}

type AccessStep = (c: VerdictConfig, tool: string, a: CheckedAccess) => AccessVerdict | undefined;

const verdict = (v: Verdict, by: DecidedBy, why: string, access: CheckedAccess, source: string): AccessVerdict => ({
  verdict: v,
  by,
  why,
  access,
  source,
});

/**
 * Whether a rule speaks about this access of this tool: a rule for `*` or for the tool itself, and a
 * rule naming any read tool for the read accesses of every read tool (read_file(secret) also stops
 * `grep TOP secret/key.txt`). Only the read tools: bash's working directory is a read access too, but
 * a read rule is about reading files, not about where commands run. A `bash` rule is about commands:
 * the connections a sandboxed command makes are judged by `net` rules (and `*`), never by `bash`.
 */
const speaksTo = (r: Rule, tool: string, a: CheckedAccess) =>
  r.tool === '*' ||
  (r.tool === tool && !(tool === 'bash' && a.kind === 'net')) ||
  (a.kind === 'net' && r.tool === NET_RULE) ||
  (a.kind === 'read' && READ_RULE_TOOLS.includes(r.tool) && READ_RULE_TOOLS.includes(tool));

/** A loopback, private or metadata address is allowed only by a rule naming it, never by a broad one. */
const reaches = (r: Rule, a: CheckedAccess) => r.list !== 'allow' || a.kind !== 'net' || !a.local || r.namesHost;

/** The verdict of the first rule of `list` that matches, naming the rule. */
const byRule =
  (list: Rule['list']): AccessStep =>
  (c, tool, a) => {
    const r = c.rules.find(
      (r) => r.list === list && speaksTo(r, tool, a) && reaches(r, a) && (!r.test || r.test(a, c.rel)),
    );
    return (
      r &&
      verdict(list, 'rule', `the ${r.level} rule ${list} ${JSON.stringify(r.text)}`, a, `${r.level} ${list} ${r.text}`)
    );
  };

const denyFlag: AccessStep = (c, _tool, a) =>
  covers(c.flags.deny[a.kind], a, c.resolve, true)
    ? verdict('deny', 'flag', `--deny-${a.kind} covers it`, a, `--deny-${a.kind}`)
    : undefined;

// A program granted by path may not be rewritten: that would turn a narrow grant into running
// anything (Deno refuses writes to granted binaries for the same reason).
const grantedProgram: AccessStep = (c, _tool, a) =>
  a.kind === 'write' && c.grantedPrograms.includes(a.path)
    ? verdict('deny', 'flag', 'it is a program granted by --allow-run, which must not change', a, '--allow-run')
    : undefined;

// Bypass mode is a blanket grant: like --allow-net without hosts, it does not reach a local address.
const bypassMode: AccessStep = (c, _tool, a) =>
  c.mode === 'bypass' && !(a.kind === 'net' && a.local)
    ? verdict('allow', 'mode', 'bypass mode', a, 'bypass')
    : undefined;

const allowFlag: AccessStep = (c, _tool, a) =>
  covers(c.flags.allow[a.kind], a, c.resolve, false)
    ? verdict('allow', 'flag', `--allow-${a.kind}`, a, `--allow-${a.kind}`)
    : undefined;

const acceptEditsMode: AccessStep = (c, _tool, a) =>
  c.mode === 'acceptEdits' && a.kind === 'write'
    ? verdict('allow', 'mode', 'acceptEdits mode', a, 'acceptEdits')
    : undefined;

const byDefault: AccessStep = (c, _tool, a) => {
  const d = PERMISSION_KINDS[a.kind];
  if (a.kind === 'env' && (ENV_ALLOWLIST as readonly string[]).includes(subjectOf(a, c.rel)))
    return verdict('allow', 'default', 'an allowlisted variable', a, `default ${a.kind}`);
  return verdict(d.byDefault, 'default', d.defaultWhy, a, `default ${a.kind}`);
};

/** The README's order: denials, bypass, asks, allows, defaults. */
const ACCESS_STEPS: readonly AccessStep[] = [
  denyFlag,
  grantedProgram,
  byRule('deny'),
  bypassMode,
  byRule('ask'),
  allowFlag,
  byRule('allow'),
  acceptEditsMode,
  byDefault,
];

export function judgeAccess(c: VerdictConfig, tool: string, a: CheckedAccess): AccessVerdict {
  for (const step of ACCESS_STEPS) {
    const v = step(c, tool, a);
    if (v) return v;
  }
  // byDefault answers every kind; this is unreachable unless a kind is added without a default.
  throw new Error(`no default verdict for a ${a.kind} access`);
}
