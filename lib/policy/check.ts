/**
 * The policy: one `check()` that every call goes through, after the path gate has resolved its
 * paths. Order: blacklist (commands; every mode) → plan mode (only read-only tools) → denials (flags,
 * rules) → bypass → asks (rules) → allows (flags, rules, acceptEdits) → defaults (reads inside the
 * root allowed; writes and commands ask; network denied; variables outside the allowlist denied) →
 * PreToolUse hooks → the prompt, or without a terminal a denial naming the flag that would grant it.
 * Deny beats ask beats allow at any depth: allow src, deny src/secret, allow src/secret/pub leaves
 * src/secret/pub denied. Main thread.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { displayPath } from '../core/paths.ts';
import { quote } from '../core/text.ts';
import { ENV_ALLOWLIST } from '../exec/env.ts';
import { blacklisted } from './blacklist.ts';
import { runHooks } from './hooks.ts';
import type { Mode } from './modes.ts';
import { covers, type Flags, type Kind, splitCommands, type Target } from './permissions.ts';
import type { Prompter } from './prompt.ts';
import { type Hook, type Rule, subjectOf } from './rules.ts';

export type Verdict = 'allow' | 'ask' | 'deny';
export type DecidedBy = 'blacklist' | 'mode' | 'flag' | 'rule' | 'default' | 'hook' | 'prompt';

export interface Decision {
  allow: boolean;
  by: DecidedBy;
  reason: string;
}

export interface PolicyConfig {
  root: string;
  mode: Mode;
  flags: Flags;
  rules: readonly Rule[];
  hooks: readonly Hook[];
  /** Turns a granted path (relative to the root or absolute) into a checked absolute path. */
  resolve: (p: string) => string;
  prompter?: Prompter;
  /** Called with every decision (the CLI's --verbose). */
  log?: (line: string) => void;
}

export interface CheckRequest {
  tool: string;
  readOnly: boolean;
  targets: readonly Target[];
}

export interface Policy {
  readonly mode: Mode;
  check(req: CheckRequest): Promise<Decision>;
}

interface AccessVerdict {
  verdict: Verdict;
  by: DecidedBy;
  why: string;
  target: Target;
}

export function createPolicy(c: PolicyConfig): Policy {
  const rel = (p: string) => displayPath(c.root, p);
  const show = (t: Target) => {
    if (t.kind === 'read' || t.kind === 'write') return `${t.kind} ${quote(rel(t.path))}`;
    if (t.kind === 'run') return `run ${quote(t.command.length > 200 ? `${t.command.slice(0, 200)}…` : t.command)}`;
    return `${t.kind} ${quote(subjectOf(t, rel))}`;
  };
  /** The verdict of the first rule of `list` that matches, naming the rule. */
  const byRule = (list: Rule['list'], tool: string, t: Target): AccessVerdict | undefined => {
    const r = c.rules.find(
      (r) => r.list === list && (r.tool === '*' || r.tool === tool) && (!r.test || r.test(t, rel)),
    );
    return r && { verdict: list, by: 'rule', why: `the ${r.level} rule ${list} ${JSON.stringify(r.text)}`, target: t };
  };

  // Programs granted by path (--allow-run=./tool.sh) may not be rewritten: that would turn a narrow
  // grant into running anything (Deno's write_allow_binary).
  const grantedPrograms = Array.isArray(c.flags.allow.run)
    ? c.flags.allow.run.filter((p) => p.includes('/')).map(c.resolve)
    : [];

  function judge(tool: string, t: Target): AccessVerdict {
    const kind: Kind = t.kind;
    if (covers(c.flags.deny[kind], t, c.resolve, true))
      return { verdict: 'deny', by: 'flag', why: `--deny-${kind} covers it`, target: t };
    if (t.kind === 'write' && grantedPrograms.includes(t.path)) {
      return {
        verdict: 'deny',
        by: 'flag',
        why: 'it is a program granted by --allow-run, which must not change',
        target: t,
      };
    }
    const deny = byRule('deny', tool, t);
    if (deny) return deny;
    if (c.mode === 'bypass') return { verdict: 'allow', by: 'mode', why: 'bypass mode', target: t };
    const ask = byRule('ask', tool, t);
    if (ask) return ask;
    if (covers(c.flags.allow[kind], t, c.resolve, false))
      return { verdict: 'allow', by: 'flag', why: `--allow-${kind}`, target: t };
    const allow = byRule('allow', tool, t);
    if (allow) return allow;
    if (c.mode === 'acceptEdits' && kind === 'write')
      return { verdict: 'allow', by: 'mode', why: 'acceptEdits mode', target: t };
    switch (kind) {
      case 'read':
        return { verdict: 'allow', by: 'default', why: 'reads inside the root are allowed', target: t };
      case 'write':
      case 'run':
        return {
          verdict: 'ask',
          by: 'default',
          why: `${kind === 'write' ? 'writes' : 'commands'} ask by default`,
          target: t,
        };
      case 'net':
        return { verdict: 'deny', by: 'default', why: 'network access is denied by default', target: t };
      case 'env':
        return (ENV_ALLOWLIST as readonly string[]).includes(subjectOf(t, rel))
          ? { verdict: 'allow', by: 'default', why: 'an allowlisted variable', target: t }
          : { verdict: 'deny', by: 'default', why: 'variables outside the allowlist are denied by default', target: t };
    }
  }

  const decide = (d: Decision, tool: string): Decision => {
    c.log?.(`policy: ${d.allow ? 'allow' : 'deny'} ${tool} (${d.by}: ${d.reason})`);
    return d;
  };

  return {
    mode: c.mode,
    async check(req) {
      for (const t of req.targets) {
        if (t.kind !== 'run') continue;
        const why = blacklisted(t.command);
        if (why)
          return decide(
            {
              allow: false,
              by: 'blacklist',
              reason: `The command is refused in every mode: it looks like ${why}. (The blacklist is a heuristic; if this is a false positive, run it yourself.)`,
            },
            req.tool,
          );
      }
      if (c.mode === 'plan' && !req.readOnly) {
        return decide(
          {
            allow: false,
            by: 'mode',
            reason: `Plan mode allows only read-only tools; ${req.tool} changes things. Present the plan instead.`,
          },
          req.tool,
        );
      }
      const verdicts = req.targets.map((t) => judge(req.tool, t));
      const denied = verdicts.find((v) => v.verdict === 'deny');
      if (denied)
        return decide(
          {
            allow: false,
            by: denied.by,
            reason: `Permission denied: ${req.tool} may not ${show(denied.target)} (${denied.why}).`,
          },
          req.tool,
        );
      if (c.hooks.length) {
        const payload = {
          tool: req.tool,
          access: req.targets.map((t) => ({ ...t, ...('path' in t ? { path: rel(t.path) } : {}) })),
          mode: c.mode,
          root: c.root,
        };
        const h = await runHooks(c.hooks, req.tool, payload, c.root);
        for (const n of h.notes) c.log?.(`policy: ${n}`);
        if (h.block)
          return decide({ allow: false, by: 'hook', reason: `Blocked by a PreToolUse hook: ${h.reason}` }, req.tool);
      }
      const asks = verdicts.filter((v) => v.verdict === 'ask');
      if (asks.length === 0) {
        const first = verdicts[0];
        return decide({ allow: true, by: first?.by ?? 'default', reason: first?.why ?? 'nothing to check' }, req.tool);
      }
      const what = asks.map((a) => show(a.target)).join(', ');
      if (!c.prompter) {
        return decide(
          {
            allow: false,
            by: 'prompt',
            reason: `Permission needed: ${req.tool} wants to ${what}, and there is no terminal to ask. Run again with ${grantFlags(asks, rel).join(' ')}.`,
          },
          req.tool,
        );
      }
      const answer = await c.prompter.ask(`MewCode: ${req.tool} wants to ${what}.`);
      if (answer === 'deny')
        return decide(
          {
            allow: false,
            by: 'prompt',
            reason: `The user declined: ${req.tool} may not ${what}. Do not retry it; ask what they want instead.`,
          },
          req.tool,
        );
      if (answer === 'always')
        addLocalRules(
          c.root,
          asks.map((a) => ruleFor(req.tool, a.target, rel)),
        );
      return decide(
        {
          allow: true,
          by: 'prompt',
          reason: answer === 'always' ? 'allowed always (a local rule was added)' : 'allowed once',
        },
        req.tool,
      );
    },
  };
}

/** The flags that would grant what was asked, for the no-terminal denial. */
function grantFlags(asks: readonly AccessVerdict[], rel: (p: string) => string): string[] {
  const flags = new Set<string>();
  for (const a of asks) {
    const t = a.target;
    if (t.kind === 'read' || t.kind === 'write') flags.add(`--allow-${t.kind}=${rel(t.path).split('/')[0]}`);
    else if (t.kind === 'run')
      flags.add(`--allow-run=${[...new Set(splitCommands(t.command).map((c) => c.program))].join(',')}`);
    else flags.add(`--allow-${t.kind}=${subjectOf(t, rel)}`);
  }
  return [...flags];
}

function ruleFor(tool: string, t: Target, rel: (p: string) => string): string {
  return `${tool}(=${subjectOf(t, rel)})`;
}

/** "Always": appends allow rules to .mewcode/settings.local.json, keeping what is there. */
function addLocalRules(root: string, rules: readonly string[]): void {
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
