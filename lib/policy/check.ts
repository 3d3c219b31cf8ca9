/**
 * The policy: one `check()` that every call goes through, after the path gate has resolved its
 * paths. It is the README's ordered list of steps; each step decides the call or passes it on:
 * blacklist (commands; every mode) → protected locations → plan mode (only read-only tools) → the
 * first denial among the accesses (flags, rules; see access_verdict.ts for the order within one
 * access: denials, bypass, asks, allows, defaults) → PreToolUse hooks → allowed when nothing asks →
 * the prompt, or without a terminal a denial naming the flag that would grant it. The prompt is
 * shown the whole of what asks, and a write's diff; an "always" answer adds its rules to this
 * policy at once (and to the settings file). Main thread.
 */

import type { Mode } from '../core/modes.ts';
import { displayPath, inside } from '../core/paths.ts';
import { quote } from '../core/text.ts';
import type { CheckedAccess } from '../core/tool.ts';
import {
  MAX_PROMPT_CHARS,
  type Prompter,
  type PromptPreview,
  type PromptRequest,
  requestChars,
} from '../prompt/prompt.ts';
import { type AccessVerdict, type DecidedBy, judgeAccess, type VerdictConfig } from './access_verdict.ts';
import { blacklisted } from './blacklist.ts';
import { addLocalRules, alwaysRules, grantFlags, liftText } from './grants.ts';
import { runHooks } from './hooks.ts';
import type { Flags } from './permissions.ts';
import { protectedLocation } from './protected.ts';
import { type Hook, type Rule, subjectOf } from './rules.ts';

export type { DecidedBy, Verdict } from './access_verdict.ts';

interface Decision {
  allow: boolean;
  by: DecidedBy;
  reason: string;
  /** What in the step decided (PolicyDecision.source). */
  source: string;
  /** A refusal that flags could lift: those flags, for a printer to offer (PolicyDecision.grants). */
  grants?: string[];
  /** The PreToolUse hooks that ran on the call (PolicyDecision.hooks). */
  hooks?: string[];
}

interface PolicyConfig {
  root: string;
  mode: Mode;
  flags: Flags;
  rules: readonly Rule[];
  hooks: readonly Hook[];
  /** Turns a granted path (relative to the root or absolute) into a checked absolute path. */
  resolve: (p: string) => string;
  prompter?: Prompter;
  /** Keeps the rules of an "always" answer (default: addLocalRules; the runtime also records them as the user's). */
  remember?: (rules: readonly string[]) => void;
  /** Called with every decision (the CLI's --verbose). */
  log?: (line: string) => void;
}

interface CheckRequest {
  tool: string;
  readOnly: boolean;
  accesses: readonly CheckedAccess[];
  /** The change the call would make (a write tool's preview), computed only if the prompt asks. */
  preview?: () => Promise<PromptPreview>;
  /** How a refusal names what lifts it (Wording.grants): the flags (default) or the library's option. */
  grantsAs?: 'flags' | 'option';
}

export interface Policy {
  readonly mode: Mode;
  check(req: CheckRequest): Promise<Decision>;
}

/** A call on its way through the steps; the access verdicts are judged once, when a step first needs them. */
interface Call extends CheckRequest {
  verdicts(): readonly AccessVerdict[];
  /** The hooks that ran on it, set by the hooks step. */
  hooksRan?: string[];
}

/** What the steps share: the configuration and how accesses are shown. */
interface Env extends VerdictConfig {
  root: string;
  hooks: readonly Hook[];
  prompter?: Prompter;
  remember?: (rules: readonly string[]) => void;
  log?: (line: string) => void;
  /** Granted write paths that lie in a protected location: they open exactly that much of it. */
  protectedGrants: readonly string[];
  /** An access in a message to the model: a long command is shortened (the prompt shows it whole). */
  show(a: CheckedAccess): string;
}

type Step = (env: Env, call: Call) => Decision | undefined | Promise<Decision | undefined>;

const allow = (by: DecidedBy, reason: string, source: string): Decision => ({ allow: true, by, reason, source });
const deny = (by: DecidedBy, reason: string, source: string, grants?: readonly string[]): Decision =>
  grants?.length ? { allow: false, by, reason, source, grants: [...grants] } : { allow: false, by, reason, source };

const blacklist: Step = (_env, call) => {
  for (const a of call.accesses) {
    const why = a.kind === 'run' ? blacklisted(a.command) : undefined;
    if (why)
      return deny(
        'blacklist',
        `The command is refused in every mode: it looks like ${why}. (The blacklist is a heuristic; if this is a false positive, run it yourself.)`,
        why,
      );
  }
  return undefined;
};

const protectedLocations: Step = (env, call) => {
  for (const a of call.accesses) {
    if (a.kind !== 'write') continue;
    const where = protectedLocation(env.root, a.path);
    if (!where || env.protectedGrants.some((g) => inside(a.path, g))) continue;
    const shown = env.rel(a.path);
    const grant = `--allow-write=${shown}`;
    return deny(
      'protected',
      `Writing ${JSON.stringify(shown)} is refused: it is a protected path (${where.what}). Grant it explicitly with ${liftText([grant], call.grantsAs)} if that is really intended.`,
      where.what,
      [grant],
    );
  }
  return undefined;
};

const planMode: Step = (env, call) =>
  env.mode === 'plan' && !call.readOnly
    ? deny(
        'mode',
        `Plan mode allows only read-only tools; ${call.tool} changes things. Present the plan instead.`,
        'plan',
      )
    : undefined;

const firstDenial: Step = (env, call) => {
  const denied = call.verdicts().find((v) => v.verdict === 'deny');
  return (
    denied &&
    deny(
      denied.by,
      `Permission denied: ${call.tool} may not ${env.show(denied.access)} (${denied.why}).`,
      denied.source,
    )
  );
};

const hooks: Step = async (env, call) => {
  if (env.hooks.length === 0) return undefined;
  const payload = {
    tool: call.tool,
    access: call.accesses.map((a) => ('path' in a ? { ...a, path: env.rel(a.path) } : a)),
    mode: env.mode,
    root: env.root,
  };
  const h = await runHooks(env.hooks, call.tool, payload, env.root);
  for (const n of h.notes) env.log?.(`policy: ${n}`);
  if (h.ran.length) call.hooksRan = h.ran;
  return h.block ? deny('hook', `Blocked by a PreToolUse hook: ${h.reason}`, h.ran.at(-1) ?? 'hook') : undefined;
};

const nothingAsks: Step = (_env, call) => {
  const verdicts = call.verdicts();
  if (verdicts.some((v) => v.verdict === 'ask')) return undefined;
  const first = verdicts[0];
  // Each access may be allowed by something else (a rule for one file, a flag for another): all are named.
  const sources = [...new Set(verdicts.map((v) => v.source))].join('; ');
  return allow(first?.by ?? 'default', first?.why ?? 'nothing to check', sources || 'nothing to check');
};

const prompt: Step = async (env, call) => {
  const asked = call.verdicts().filter((v) => v.verdict === 'ask');
  const what = asked.map((v) => env.show(v.access)).join(', ');
  if (!env.prompter) {
    const grants = grantFlags(
      asked.map((v) => v.access),
      env.rel,
    );
    const lift =
      call.grantsAs === 'option'
        ? `there is no prompt to ask. Grant it with ${liftText(grants, 'option')}`
        : `there is no terminal to ask. Run again with ${liftText(grants, 'flags')}`;
    return deny('prompt', `Permission needed: ${call.tool} wants to ${what}, and ${lift}.`, 'no prompt', grants);
  }
  // The user approves the whole of what will run: nothing shortened here (the prompter escapes it).
  const request: PromptRequest = {
    tool: call.tool,
    asks: asked.map((v) => ({
      kind: v.access.kind,
      subject: v.access.kind === 'run' ? v.access.command : subjectOf(v.access, env.rel),
    })),
    // An ask rule beats any allow rule, so "always" could not stop it asking: not offered then.
    always: !asked.some((v) => v.by === 'rule'),
    ...(call.preview ? { preview: call.preview } : {}),
  };
  const answer = await env.prompter.ask(request);
  if (answer === 'deny' && requestChars(request) > MAX_PROMPT_CHARS)
    return deny(
      'prompt',
      `Denied without asking: ${call.tool} wants to ${what}, ${requestChars(request)} characters in all, more than the ${MAX_PROMPT_CHARS} the prompt shows. Split it into shorter commands, or write a script file and run that.`,
      'too long to ask',
    );
  if (answer === 'deny')
    return deny(
      'prompt',
      `The user declined: ${call.tool} may not ${what}. Do not retry it; ask what they want instead.`,
      'answered no',
    );
  if (answer === 'always') {
    const always = alwaysRules(
      call.tool,
      asked.map((v) => v.access),
      env.rel,
    );
    env.rules = [...env.rules, ...always.rules]; // this run asks no more, from the next call on
    if (env.remember) env.remember(always.texts);
    else {
      const written = addLocalRules(env.root, always.texts);
      if (!written.ok) env.log?.(`policy: the rule holds for this run only: ${written.error}`);
    }
  }
  return answer === 'always'
    ? allow('prompt', 'allowed always (a local rule was added)', 'answered always')
    : allow('prompt', 'allowed once', 'answered once');
};

/** The order of the check, as the README lists it. The last step always decides. */
const CHECK_STEPS: readonly Step[] = [blacklist, protectedLocations, planMode, firstDenial, hooks, nothingAsks, prompt];

export function createPolicy(c: PolicyConfig): Policy {
  const rel = (p: string) => displayPath(c.root, p);
  const writeGrants = Array.isArray(c.flags.allow.write) ? c.flags.allow.write.map(c.resolve) : [];
  const env: Env = {
    ...c,
    rel,
    grantedPrograms: Array.isArray(c.flags.allow.run)
      ? c.flags.allow.run.filter((p) => p.includes('/')).map(c.resolve)
      : [],
    protectedGrants: writeGrants.filter((g) => protectedLocation(c.root, g)),
    show(a) {
      if (a.kind === 'read' || a.kind === 'write') return `${a.kind} ${quote(rel(a.path))}`;
      if (a.kind === 'run') return `run ${quote(a.command.length > 200 ? `${a.command.slice(0, 200)}…` : a.command)}`;
      if (a.kind === 'net') return `connect to ${quote(a.host)}`;
      return `${a.kind} ${quote(subjectOf(a, rel))}`;
    },
  };
  return {
    mode: c.mode,
    async check(req) {
      let verdicts: AccessVerdict[] | undefined;
      const call: Call = {
        ...req,
        verdicts: () => {
          verdicts ??= req.accesses.map((a) => judgeAccess(env, req.tool, a));
          return verdicts;
        },
      };
      for (const step of CHECK_STEPS) {
        const d = await step(env, call);
        if (d) {
          c.log?.(`policy: ${d.allow ? 'allow' : 'deny'} ${req.tool} (${d.by}: ${d.reason})`);
          return call.hooksRan ? { ...d, hooks: call.hooksRan } : d;
        }
      }
      throw new Error('the prompt step always decides'); // unreachable: CHECK_STEPS ends with prompt
    },
  };
}
