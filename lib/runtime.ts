/**
 * createRuntime: the one module that knows the registry, the path gate, the policy, the ledger and
 * both lanes. A call is parse → access → authorize (the path gate, then the policy's one check) →
 * run (read tools in the pool, write tools in the lane) → ledger. Main thread.
 */
import { homedir } from 'node:os';
import path from 'node:path';
import { defaultSpillDir } from './core/budget.ts';
import { type CheckedPath, inside } from './core/paths.ts';
import { Registry, type ToolDefinition } from './core/registry.ts';
import { errValue, okValue, type Result } from './core/result.ts';
import { type Access, type AnyTool, fail, type ToolContext, type ToolResult } from './core/tool.ts';
import { probeSandbox, type SandboxConfig } from './exec/bwrap.ts';
import { childEnv } from './exec/env.ts';
import { sweepJournals } from './lane/journal.ts';
import { WriteLane } from './lane/lane.ts';
import { Ledger } from './lane/ledger.ts';
import { type AnthropicTool, toAnthropicTools } from './llm/anthropic.ts';
import { type OpenAITool, toOpenAITools } from './llm/openai.ts';
import type { McpServerConfig } from './mcp/client.ts';
import { createPolicy, type Decision, type Policy } from './policy/check.ts';
import type { Mode } from './policy/modes.ts';
import { createGate, type PathGate } from './policy/path_gate.ts';
import type { Flags, Grant, PermissionFlags, Target } from './policy/permissions.ts';
import { type Prompter, terminalPrompter } from './policy/prompt.ts';
import { loadSettings, type Rule } from './policy/rules.ts';
import { createReadPool, defaultWorkers } from './pool/pool.ts';
import { type DenySpec, pathGlobs } from './search/denied.ts';
import type { ShardRunner } from './search/parallel.ts';
import { SkillCatalog } from './skills/catalog.ts';
import type { SkillSources } from './skills/fetch.ts';
import { type ReadToolName, TOOL_NAMES, TOOLS } from './tools/mod.ts';

export const DEFINITION_FORMATS = ['anthropic', 'openai', 'openai-strict'] as const;
export type DefinitionFormat = (typeof DEFINITION_FORMATS)[number];

export interface RuntimeOptions {
  /** The directory tools work in; default: the current directory. */
  root?: string;
  /** Deno-style grants: `allow`/`deny` per kind (read, write, run, net, env); deny wins. */
  permissions?: PermissionFlags;
  /** Shorthand for `permissions.allow.write`. */
  allowWrite?: Grant;
  /** Shorthand for `permissions.deny.read` and `.write`: paths refused to every tool. */
  deny?: readonly string[];
  /** Permission mode (default: the settings files' mode, else "default"). */
  mode?: Mode;
  /** Run bash inside bubblewrap; creating the runtime fails when the sandbox cannot start. */
  sandbox?: boolean;
  /** How to ask for approval: a prompter, "terminal" (when stdin and stderr are terminals), or none. */
  prompt?: Prompter | 'terminal' | 'none';
  /** Home directory for the user settings file (default: the OS's); null reads none. */
  home?: string | null;
  /** Receives policy decisions and notes (the CLI's --verbose). */
  log?: (line: string) => void;
  /** Worker threads of the read lane (default: available cores); 0 runs every read tool inline. */
  workers?: number;
  /** Deadline of one read-lane call, in ms (default 60 s). */
  readTimeoutMs?: number;
  /** Where install_skill fetches from (default: GitHub and skills.sh; env MEWCODE_GITHUB_API, MEWCODE_SKILLS_SH). */
  skillSources?: SkillSources;
}

export const DEFAULT_READ_TIMEOUT_MS = 60_000;

export interface BatchCall {
  name: string;
  input: unknown;
}

export interface Runtime {
  readonly root: string;
  readonly registry: Registry;
  readonly ledger: Ledger;
  readonly gate: PathGate;
  readonly policy: Policy;
  /** External MCP servers configured in the settings files (connect them with lib/mcp/client.ts). */
  readonly mcpServers: Readonly<Record<string, McpServerConfig>>;
  /** The skills under .mewcode/skills and ~/.mewcode/skills. */
  readonly skills: SkillCatalog;
  /** Runs one tool call; never throws. Write tools queue in the write lane. */
  call(name: string, input: unknown, options?: { signal?: AbortSignal }): Promise<ToolResult>;
  /** Runs calls as the agent loop does: consecutive read-only calls together, writes one by one; results in order. */
  batch(calls: readonly BatchCall[]): Promise<ToolResult[]>;
  definitions(format: 'anthropic'): AnthropicTool[];
  definitions(format: 'openai' | 'openai-strict'): OpenAITool[];
  definitions(format?: DefinitionFormat): AnthropicTool[] | OpenAITool[];
  close(): Promise<void>;
}

/** Paths inside the root that no write reaches unless a --allow-write path inside them names them. */
const PROTECTED = (root: string, p: string) => {
  const rel = path.relative(root, p).split(path.sep).join('/');
  return rel === '.git' || rel.startsWith('.git/') || /^\.mewcode\/settings[^/]*\.json$/.test(rel);
};

/** Builds a runtime, or says why it cannot (a root that does not exist, a bad settings file, no sandbox). */
export function createRuntime(options: RuntimeOptions = {}): Result<Runtime, string> {
  const gateResult = createGate({ root: options.root ?? process.cwd(), extraReadRoots: [defaultSpillDir()] });
  if (!gateResult.ok) return errValue(gateResult.error.message);
  const gate = gateResult.value;
  const registry = new Registry(TOOLS);
  const settings = loadSettings(gate.root, options.home === null ? undefined : (options.home ?? homedir()), TOOL_NAMES);
  if (!settings.ok) return errValue(settings.error);
  const flags = flagsOf(options);
  const mode = options.mode ?? settings.value.mode ?? 'default';
  const resolve = (p: string) => {
    const c = gate.check(p, 'read');
    return c.ok ? c.value : path.resolve(gate.root, p);
  };
  const prompter =
    options.prompt === 'terminal'
      ? terminalPrompter()
      : options.prompt === 'none' || options.prompt === undefined
        ? undefined
        : options.prompt;
  const policy = createPolicy({
    root: gate.root,
    mode,
    flags,
    rules: settings.value.rules,
    hooks: settings.value.hooks,
    resolve,
    ...(prompter ? { prompter } : {}),
    ...(options.log ? { log: options.log } : {}),
  });
  let sandbox: SandboxConfig | undefined;
  if (options.sandbox) {
    const allowNet = flags.allow.net === true && !flags.deny.net;
    const probe = probeSandbox(gate.root, allowNet);
    if (!probe.ok)
      return errValue(`--sandbox was asked for, but ${probe.reason}. Refusing to run commands unsandboxed.`);
    sandbox = { bwrap: probe.bwrap, root: gate.root, allowNet };
  }
  const exec = {
    env: childEnv(process.env, flags.allow.env ?? false, { allowLoader: mode === 'bypass' }),
    ...(sandbox ? { sandbox } : {}),
  };
  const ledger = new Ledger();
  const lane = new WriteLane();
  const home = options.home === null ? undefined : (options.home ?? homedir());
  const skills = new SkillCatalog(gate.root, home);
  const skillSources: SkillSources = {
    ...(process.env.MEWCODE_GITHUB_API ? { githubApi: process.env.MEWCODE_GITHUB_API } : {}),
    ...(process.env.MEWCODE_SKILLS_SH ? { skillsSh: process.env.MEWCODE_SKILLS_SH } : {}),
    ...options.skillSources,
  };
  sweepJournals(); // temp files of writers that died mid-write
  const pool = options.workers === 0 ? undefined : createReadPool({ workers: options.workers ?? defaultWorkers() });
  const timeoutMs = options.readTimeoutMs ?? DEFAULT_READ_TIMEOUT_MS;
  const readDeny = readDenyOf(flags, settings.value.rules, gate);
  const protectedGrants = Array.isArray(flags.allow.write)
    ? flags.allow.write.map(resolve).filter((g) => PROTECTED(gate.root, g))
    : [];

  // The one authorisation step every call goes through: the gate, then the policy. `seen` receives
  // the policy's decision so the result can carry it.
  const authorize = async (
    tool: AnyTool,
    access: readonly Access[],
    seen?: (d: Decision) => void,
  ): Promise<Result<CheckedPath[], ToolResult>> => {
    const paths: CheckedPath[] = [];
    const targets: Target[] = [];
    for (const a of access) {
      if (a.kind === 'read' || a.kind === 'write') {
        const checked = gate.check(a.path, a.kind);
        if (!checked.ok) return errValue(fail(checked.error.code, checked.error.message));
        if (
          a.kind === 'write' &&
          PROTECTED(gate.root, checked.value) &&
          !protectedGrants.some((g) => inside(checked.value, g))
        ) {
          const shown = gate.display(checked.value);
          return errValue(
            fail(
              'permission_denied',
              `Writing ${JSON.stringify(shown)} is refused: it is a protected path (git internals or MewCode settings). Grant it explicitly with --allow-write=${shown} if that is really intended.`,
            ),
          );
        }
        paths.push(checked.value);
        targets.push({ kind: a.kind, path: checked.value });
      } else if (a.kind === 'run') {
        targets.push({ kind: 'run', command: a.command });
      } else if (a.kind === 'net') {
        targets.push({ kind: 'net', host: a.host });
      } else {
        targets.push({ kind: 'env', name: a.name });
      }
    }
    const d = await policy.check({ tool: tool.name, readOnly: tool.readOnly, targets });
    seen?.(d);
    if (!d.allow) return errValue(fail('permission_denied', d.reason, { policy: decisionMeta(d) }));
    return okValue(paths);
  };

  // Read-only tools run in the pool under a deadline; glob and grep run here and fan out shards;
  // write tools run here, inside the write lane, with the ledger and the command environment.
  const dispatch = async (tool: AnyTool, args: unknown, ctx: ToolContext): Promise<ToolResult> => {
    if (!tool.readOnly) return tool.invoke(args, { ...ctx, ledger, exec, skills, skillSources });
    // MCP tools talk to their server from this thread; load_skill reads the catalog here.
    if (tool.mainThread) return tool.invoke(args, { ...ctx, skills });
    if (tool.fansOut && readDeny) ctx = { ...ctx, readDeny };
    if (!pool) return tool.invoke(args, ctx);
    const signal = AbortSignal.any([ctx.signal, AbortSignal.timeout(timeoutMs)]);
    if (tool.fansOut) {
      const shards: ShardRunner = { parallelism: pool.size, run: (task) => pool.run(task, signal) };
      return tool.invoke(args, { ...ctx, shards });
    }
    const out = await pool.run<ToolResult>(
      { kind: 'tool', name: tool.name as ReadToolName, args, root: ctx.root, paths: [...ctx.paths] },
      signal,
    );
    if (out.ok) return out.value;
    if (out.reason === 'timeout')
      return fail('timeout', `${tool.name} stopped at its deadline of ${timeoutMs / 1000} s.`);
    if (out.reason === 'cancelled') return fail('cancelled', `${tool.name} was cancelled.`);
    return fail('io', `${tool.name} failed in the worker pool: ${out.message}`);
  };

  const runtime: Runtime = {
    root: gate.root,
    registry,
    ledger,
    gate,
    policy,
    mcpServers: settings.value.mcpServers,
    skills,
    async call(name, input, callOptions = {}) {
      let decision: Decision | undefined;
      const seen = (d: Decision) => {
        decision = d;
      };
      const exec = () =>
        registry.execute(name, input, {
          root: gate.root,
          signal: callOptions.signal,
          authorize: (tool, access) => authorize(tool, access, seen),
          dispatch,
        });
      // Write tools queue in the lane, and are checked there, at the moment they run.
      const result = await (registry.get(name)?.readOnly === false ? lane.run(exec) : exec());
      if (result.meta?.read) ledger.record(result.meta.read);
      // The decision travels with the result (the CLI's --json shows it).
      return decision && !result.meta?.policy
        ? { ...result, meta: { ...result.meta, policy: decisionMeta(decision) } }
        : result;
    },
    async batch(calls) {
      const results: ToolResult[] = [];
      // Consecutive read-only calls run together; a write call waits for them and runs alone.
      for (let i = 0; i < calls.length; ) {
        let j = i;
        while (j < calls.length && registry.get(calls[j]?.name ?? '')?.readOnly !== false) j++;
        if (j > i) {
          results.push(...(await Promise.all(calls.slice(i, j).map((c) => runtime.call(c.name, c.input)))));
          i = j;
        } else {
          const c = calls[i] as BatchCall;
          results.push(await runtime.call(c.name, c.input));
          i++;
        }
      }
      return results;
    },
    definitions: ((format: DefinitionFormat = 'anthropic') =>
      definitionsAs(registry.definitions(), format)) as Runtime['definitions'],
    async close() {
      await pool?.close();
    },
  };
  return okValue(runtime);
}

function flagsOf(o: RuntimeOptions): Flags {
  const allow = { ...o.permissions?.allow };
  const deny = { ...o.permissions?.deny };
  if (o.allowWrite !== undefined && allow.write === undefined) allow.write = o.allowWrite;
  if (o.deny?.length) {
    deny.read = merge(deny.read, o.deny);
    deny.write = merge(deny.write, o.deny);
  }
  return { allow, deny };
}

/** What searches must skip: --deny-read paths, and deny rules with path patterns for the read tools. */
function readDenyOf(flags: Flags, rules: readonly Rule[], gate: PathGate): DenySpec | undefined {
  const spec: DenySpec = { globs: [], regexes: [] };
  const denied = flags.deny.read;
  if (denied === true) spec.globs.push('**');
  else
    for (const p of denied || []) {
      const c = gate.check(p, 'read');
      if (c.ok) spec.globs.push(...pathGlobs(gate.display(c.value)));
    }
  for (const r of rules) {
    if (r.list !== 'deny' || !['*', 'read_file', 'grep', 'glob'].includes(r.tool)) continue;
    const p = r.pattern;
    if (p === undefined) {
      if (r.tool !== 'read_file') spec.globs.push('**');
    } else if (p.startsWith('~')) spec.regexes.push(p.slice(1));
    else if (p.startsWith('=')) spec.regexes.push(`^${p.slice(1).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`);
    else if (!p.startsWith('!')) spec.globs.push(p, ...pathGlobs(p.replace(/\/+$/, '')));
  }
  return spec.globs.length || spec.regexes.length ? spec : undefined;
}

const merge = (g: Grant | undefined, more: readonly string[]): Grant =>
  g === true ? true : [...(Array.isArray(g) ? g : []), ...more];

const decisionMeta = (d: Decision) => ({ allow: d.allow, by: d.by, reason: d.reason });

export function definitionsAs(defs: ToolDefinition[], format: DefinitionFormat): AnthropicTool[] | OpenAITool[] {
  if (format === 'anthropic') return toAnthropicTools(defs);
  return toOpenAITools(defs, { strict: format === 'openai-strict' });
}
