/**
 * createRuntime: wiring only. It builds the path gate, the policy, the registry, the ledger and the
 * lanes from the options and the settings files, and connects them: a call is `Registry.execute`
 * (parse → admitted by its lane → `createAuthorize`: the path gate, then the policy's `check` →
 * `createLanes().run` in the tool's lane, which records reads in the ledger). Main thread.
 */
import { randomBytes } from 'node:crypto';
import { homedir } from 'node:os';
import path from 'node:path';
import type { AnswerForm } from '../core/answers.ts';
import type { AuditCall, AuditRecord, AuditSink, CallStage, CallVia } from '../core/audit_record.ts';
import { runInGroups } from '../core/call_groups.ts';
import { callRecord } from '../core/call_record.ts';
import { holdHeap } from '../core/heap_hold.ts';
import { checkLimit, LIMIT_NAMES, type LimitName, type Limits, parseLimit } from '../core/limits.ts';
import type { Mode } from '../core/modes.ts';
import { type LaneRunner, Registry, type ToolDefinition } from '../core/registry.ts';
import { errValue, okValue, type Result } from '../core/result.ts';
import { spillDirFor } from '../core/spill_dir.ts';
import type { CallOrigin, ToolResult } from '../core/tool.ts';
import { MODEL_WORDING, type Wording } from '../core/wording.ts';
import { sweepStaleCgroups } from '../exec/cgroup.ts';
import type { JobTable } from '../exec/jobs.ts';
import { sweepStaleV1Pids } from '../exec/pids_v1.ts';
import { sweepJournals } from '../files/journal.ts';
import { Ledger } from '../files/ledger.ts';
import { DEFAULT_BOUNDS } from '../history/collect.ts';
import { Journal } from '../history/journal.ts';
import { journalBase, journalDirFor } from '../history/journal_dir.ts';
import { type HeapTrim, heapTrimOptionError } from '../lanes/heap_trim.ts';
import type { ReadPool } from '../lanes/pool.ts';
import type { ShellSeen } from '../lanes/write_context.ts';
import { WriteLane } from '../lanes/write_lane.ts';
import { type AnthropicTool, toAnthropicTools } from '../llm/anthropic.ts';
import { type OpenAITool, toOpenAITools } from '../llm/openai.ts';
import { createAuthorize } from '../policy/authorize.ts';
import { createPolicy, type Policy } from '../policy/check.ts';
import { rememberAlways } from '../policy/grants.ts';
import { createGate, type PathGate } from '../policy/path_gate.ts';
import { checkPermissions, type Flags, type Grant, type PermissionFlags } from '../policy/permissions.ts';
import { readDenyOf } from '../policy/read_deny.ts';
import { type LoadedSettings, loadSettings, type McpServerConfig, type Rule } from '../policy/rules.ts';
import { type Prompter, terminalPrompter } from '../prompt/prompt.ts';
import { probeSandbox, type SandboxConfig } from '../sandbox/bwrap.ts';
import { sandboxConfigOf } from '../sandbox/config.ts';
import type { NetProxy } from '../sandbox/net_proxy.ts';
import type { GitUser } from '../search/ignore.ts';
import type { SearchIndex } from '../search/index/service.ts';
import type { TrustOption } from '../settings/trust.ts';
import { SkillCatalog } from '../skills/catalog.ts';
import type { SkillSources } from '../skills/fetch.ts';
import { TOOL_NAMES, TOOLS } from '../tools/mod.ts';
import type { IndexUse } from './search_index.ts';
import { startLanes } from './start_lanes.ts';

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
  /**
   * Home directory for the user settings file, the trust record and the git config searches read the
   * global excludes file from (default: the OS's); null reads none.
   */
  home?: string | null;
  /**
   * Folder trust for the root's project and local settings (what they widen: hooks, allow rules,
   * mode bypass/acceptEdits, MCP servers): true trusts them as they are now, a digest from
   * `inspectTrust` only if they still match; either is recorded in `<home>/.mewcode/trusted.json`.
   * Absent: the record decides, and untrusted widening settings are ignored with one `warn` line.
   */
  trust?: TrustOption;
  /** Receives the line naming settings ignored for want of trust (default: stderr). */
  warn?: (line: string) => void;
  /**
   * The wording of calls that pass none (default: a model's, `MODEL_WORDING`, whose refusals name
   * this `permissions` option; the CLI's names its flags).
   */
  wording?: Wording;
  /** Receives policy decisions and notes (the CLI's --verbose). */
  log?: (line: string) => void;
  /** Worker threads of the read lane (default: available cores); 0 runs every read tool inline. */
  workers?: number;
  /**
   * false: `bash` refuses run_in_background (a one-shot process, which nothing outlives). Default
   * true: jobs live with the runtime and `close()` stops them.
   */
  backgroundJobs?: boolean;
  /** Deadline of one read-lane call, in ms (default 60 s). */
  readTimeoutMs?: number;
  /** Where install_skill fetches from (default: GitHub and skills.sh; env MEWCODE_GITHUB_API, MEWCODE_SKILLS_SH). */
  skillSources?: SkillSources;
  /**
   * The n-gram index that prefilters grep (see the README's "The search index"): 'build' (default)
   * indexes a large root after its first search, 'existing' uses only an index already on disk, 'off'
   * never. `indexCacheDir` overrides where indexes live (default $XDG_CACHE_HOME/mewcode/index).
   */
  index?: IndexUse;
  indexCacheDir?: string;
  /**
   * Each bash command's budget, over the settings files' and the defaults (memory 4 GiB, 1,024
   * processes, no CPU-time limit): bytes, processes and CPU seconds as numbers, or as the CLI spells
   * them (`'1G'`, `'256'`, `'60s'`); null or `'none'` lifts one. How each is enforced: docs/sandbox.md.
   */
  limits?: LimitsOption;
  /**
   * The journal of every write tool's changes, for undo (docs/undo.md): on by default, under
   * `$XDG_DATA_HOME/mewcode/journal` (else ~/.local/share/mewcode/journal), one directory per root.
   * `dir` puts the per-root directories elsewhere; `maxBytes` (default 1 GiB) and `maxAgeDays`
   * (default 30) bound it, oldest entries collected first. false: nothing is recorded.
   */
  journal?: false | JournalOption;
  /**
   * Receives the audit trail (lib/core/audit_record.ts): a record when the runtime starts, one per call,
   * and the agent loop's one per model request. The CLI's agent and MCP server write it as JSON Lines
   * (lib/audit/log_file.ts: `auditLog`); default: none.
   */
  audit?: AuditSink | readonly AuditSink[];
  /** The audit records keep each call's arguments, not only their digest and size. */
  auditInputs?: boolean;
  /**
   * ms without calls or pool tasks before one garbage collection gives the heap back (default 6.2 s;
   * one more a second into the pause when this is 6.2 s or more, lib/lanes/heap_trim.ts says why). While
   * it is open a runtime with a read pool also keeps V8's young generation from growing and its old
   * generation collected after 30% of growth, process-wide (lib/core/heap_hold.ts). false: none of it.
   */
  heapTrimMs?: number | false;
}

export interface JournalOption {
  dir?: string;
  maxBytes?: number;
  maxAgeDays?: number;
  /**
   * bash commands' changes are recorded in roots of up to this many files (default 200,000; 0: never):
   * the root's states are kept between commands, a watch per directory (docs/undo.md "Cost").
   */
  shellMaxFiles?: number;
}

export type LimitsOption = Partial<Record<LimitName, number | string | null>>;

export interface BatchCall {
  name: string;
  input: unknown;
}

/** How one call runs and answers. */
export interface CallOptions {
  signal?: AbortSignal;
  /** No output budget: a person reading a pipe asked for everything. */
  unbudgeted?: boolean;
  /** `data`: grep, glob and read_file answer with `data` (core/answers.ts) for the caller to print. */
  form?: AnswerForm;
  /** How hints name what the reader can do next (default: a model's). */
  wording?: Wording;
  /**
   * With `form: 'data'`: grep says where each shown line matched (for colour or JSON; costs a scan a
   * line); `groups`: also where each match's groups are (for rg -r).
   */
  spans?: boolean | 'groups';
  /** The agent run and turn making the call: its journal entry records them (`mewcode history` groups by them). */
  origin?: CallOrigin;
  /** Who makes the call, for the audit trail (default: `agent` with an origin, else `library`). */
  via?: CallVia;
  /** The model's id of the call, for the audit trail. */
  callId?: string;
}

export interface Runtime {
  readonly root: string;
  /** This runtime's id in the audit trail. */
  readonly session: string;
  /** Hands a record to the audit sinks (the agent loop's model requests); nothing without sinks. */
  record(r: AuditRecord): void;
  readonly registry: Registry;
  readonly ledger: Ledger;
  readonly gate: PathGate;
  readonly policy: Policy;
  /** External MCP servers configured in the settings files (connect them with lib/mcp/client.ts). */
  readonly mcpServers: Readonly<Record<string, McpServerConfig>>;
  /** The agent's model from the settings files, if one names it. */
  readonly model: string | undefined;
  /** When the agent defers MCP tools behind tool_search, from the settings files (AgentOptions.toolSearch comes first). */
  readonly toolSearch?: false | { share?: number; maxTools?: number };
  /** The skills under .mewcode/skills and ~/.mewcode/skills. */
  readonly skills: SkillCatalog;
  /** The root's n-gram index (absent when `index` is 'off'). */
  readonly searchIndex?: SearchIndex;
  /** Background jobs (bash with run_in_background): `onEnded` tells when one ends; `close()` stops them all. */
  readonly jobs: JobTable;
  /** The journal of the write tools' changes: `list()`, `undo()`, `redo()`, `rewind(id)` (absent with `journal: false`). */
  readonly journal?: Journal;
  /** The idle heap trim: how many ran, and how long the last held the main thread. */
  readonly heapTrim: HeapTrim;
  /** Whether a tool is read-only (an unknown name is not): read-only calls may run together. */
  isReadOnly(name: string): boolean;
  /** Runs one tool call; never throws. Write tools queue in the write lane. */
  call(name: string, input: unknown, options?: CallOptions): Promise<ToolResult>;
  /** Runs calls as the agent loop does: consecutive read-only calls together, writes one by one; results in order. */
  batch(calls: readonly BatchCall[], options?: { signal?: AbortSignal }): Promise<ToolResult[]>;
  definitions(format: 'anthropic'): AnthropicTool[];
  definitions(format: 'openai' | 'openai-strict'): OpenAITool[];
  definitions(format?: DefinitionFormat): AnthropicTool[] | OpenAITool[];
  close(): Promise<void>;
}

/** Builds a runtime, or says why it cannot (a root that does not exist, a bad settings file, no sandbox). */
export function createRuntime(options: RuntimeOptions = {}): Result<Runtime, string> {
  const badGrants =
    grantOptionsError(options) ??
    journalOptionError(options.journal) ??
    auditOptionError(options.audit) ??
    heapTrimOptionError(options.heapTrimMs);
  if (badGrants) return errValue(badGrants);
  // Before anything else: a runtime's start (settings, an index loaded from disk) grows it too.
  const releaseHeap = holdsHeap(options) ? holdHeap() : undefined;
  let made: Result<Runtime, string> | undefined;
  try {
    made = buildRuntime(options, releaseHeap);
    return made;
  } finally {
    // Not made (an error answered, or thrown: a host's `warn` that throws): nothing will close it.
    if (!made?.ok) releaseHeap?.();
  }
}

/**
 * A runtime holds the heap lean unless told to leave the heap alone, or it has no pool: a
 * one-shot searches on its main thread, where the grown young generation is faster (a whole-tree
 * count inline: 1.18 against 1.23 s, five alternated one-shot runs on a 104k-file tree) and which
 * ends soon after anyway.
 */
const holdsHeap = (options: RuntimeOptions) => options.heapTrimMs !== false && options.workers !== 0;

function buildRuntime(options: RuntimeOptions, releaseHeap: (() => void) | undefined): Result<Runtime, string> {
  // read_file may read this root's spill files, and no other root's (lib/core/spill_dir.ts).
  const spillRoots = (root: string) => {
    const dir = spillDirFor(root, { create: false });
    return dir.ok ? [dir.value] : [];
  };
  const flags = flagsOf(options);
  // A path --allow-read lists may be read outside the root too (Deno's --allow-read=/etc); a bare grant reaches only the root.
  const readGrants = Array.isArray(flags.allow.read) ? flags.allow.read : [];
  const gateResult = createGate({ root: options.root ?? process.cwd(), extraReadRoots: spillRoots, readGrants });
  if (!gateResult.ok) return errValue(gateResult.error.message);
  const gate = gateResult.value;
  const home = options.home === null ? undefined : (options.home ?? homedir());
  const warn = options.warn ?? ((line: string) => process.stderr.write(`${line}\n`));
  const settings = loadSettings(gate.root, home, TOOL_NAMES, options.trust);
  if (!settings.ok) return errValue(settings.error);
  if (settings.value.notice) warn(settings.value.notice);
  const mode = options.mode ?? settings.value.mode ?? 'default';
  const policy = policyOf(options, gate, settings.value, { flags, mode, home, warn });
  const sandbox = sandboxOf(options, gate, flags, settings.value.rules);
  if (!sandbox.ok) return sandbox;
  const limits = limitsOf(options.limits, settings.value.limits);
  if (!limits.ok) return limits;
  const registry = new Registry(TOOLS);
  const ledger = new Ledger();
  // Read rules reach every read tool: the skill catalog leaves out the skill files they deny, and a
  // search skips what they deny (and what they would ask about, unless the search itself was asked).
  const skills = new SkillCatalog(gate.root, home, readDenyOf(flags, settings.value.rules, gate));
  sweepJournals(); // temp files of writers that died mid-write
  void sweepStaleCgroups(); // commands of runtimes that were SIGKILLed
  if (limits.value.pids !== null) void sweepStaleV1Pids();
  const rules = settings.value.rules;
  const gitUser = gitUserOf(options, home);
  const writeLane = new WriteLane();
  const journal = journalOf(options.journal, gate.root, writeLane, ledger);
  const started = startLanes(options, {
    ...{ gate, flags, rules, mode, sandbox: sandbox.value, ledger, skills, gitUser, writeLane, journal },
    limits: limits.value,
  });
  const wording = options.wording ?? MODEL_WORDING;
  const audit = auditOf(options, { root: gate.root, mode, sandbox: sandbox.value !== undefined });
  return okValue(
    assemble({
      ...{ gate, registry, ledger, policy, settings: settings.value, skills, wording, journal, audit, ...started },
      releaseHeap,
    }),
  );
}

interface Audit {
  session: string;
  record: AuditSink;
  /** There are sinks: calls are timed and recorded. */
  on: boolean;
}

/** The audit sinks as one, and the session record they start with. */
function auditOf(options: RuntimeOptions, s: { root: string; mode: Mode; sandbox: boolean }): Audit {
  const session = randomBytes(6).toString('hex');
  const sinks =
    options.audit === undefined ? [] : typeof options.audit === 'function' ? [options.audit] : options.audit;
  const keepInputs = options.auditInputs === true;
  const record: AuditSink = (given) => {
    const r = given.type === 'call' && !keepInputs ? withoutInput(given) : given;
    for (const sink of sinks) {
      try {
        sink(r);
      } catch {
        // a sink that throws breaks its own promise; the call it records goes on
      }
    }
  };
  if (sinks.length) record({ type: 'session', time: new Date().toISOString(), session, pid: process.pid, ...s });
  return { session, record, on: sinks.length > 0 };
}

/**
 * A call's record with its arguments' digest and size only. The decision's `reason` goes too: it is
 * what the model was told, and quotes the arguments (a refused command line, a path).
 */
function withoutInput(r: AuditCall): AuditCall {
  const { value: _dropped, ...input } = r.input;
  if (!r.decision) return { ...r, input };
  const { reason: _quoted, ...decision } = r.decision;
  return { ...r, input, decision };
}

/** What is wrong with the audit option, if anything: a function, or a list of them. */
function auditOptionError(o: RuntimeOptions['audit']): string | undefined {
  if (o === undefined || typeof o === 'function') return undefined;
  if (Array.isArray(o) && o.every((s) => typeof s === 'function')) return undefined;
  return `audit must be a function given each record, or a list of them, not ${typeof o === 'object' ? JSON.stringify(o) : String(o)}`;
}

/** What is wrong with the journal option, if anything: its numbers must be 0 or more (shellMaxFiles whole). */
function journalOptionError(o: RuntimeOptions['journal']): string | undefined {
  if (o === undefined || o === false) return undefined;
  if (typeof o !== 'object' || o === null) return `journal must be false or an object, not ${JSON.stringify(o)}`;
  for (const key of ['maxBytes', 'maxAgeDays', 'shellMaxFiles'] as const) {
    const n = o[key];
    const whole = key !== 'maxAgeDays';
    if (n !== undefined && !(typeof n === 'number' && n >= 0 && (whole ? Number.isSafeInteger(n) : Number.isFinite(n))))
      return `journal.${key} must be ${whole ? 'a whole number' : 'a number'} of 0 or more, not ${JSON.stringify(n)}`;
  }
  return undefined;
}

/** The root's journal, restoring through the write lane's queue; none when turned off. */
function journalOf(
  option: RuntimeOptions['journal'],
  root: string,
  writeLane: WriteLane,
  ledger: Ledger,
): Journal | undefined {
  if (option === false) return undefined;
  const o = option ?? {};
  return new Journal({
    root,
    dir: journalDirFor(o.dir !== undefined ? path.resolve(o.dir) : journalBase(), root),
    bounds: {
      maxBytes: o.maxBytes ?? DEFAULT_BOUNDS.maxBytes,
      maxAgeMs: o.maxAgeDays !== undefined ? o.maxAgeDays * 86_400_000 : DEFAULT_BOUNDS.maxAgeMs,
    },
    queue: (fn) => writeLane.run(fn),
    ...(o.shellMaxFiles !== undefined ? { shellMaxFiles: o.shellMaxFiles } : {}),
    // The agent's reads of a restored file are stale, and the search index must see the change.
    onChange: (real) => ledger.forget(real),
  });
}

/** The policy: the settings' mode, rules and hooks, the flags, and how to ask (or not) and remember answers. */
function policyOf(
  options: RuntimeOptions,
  gate: PathGate,
  settings: LoadedSettings,
  o: { flags: Flags; mode: Mode; home: string | undefined; warn: (line: string) => void },
): Policy {
  const prompter =
    options.prompt === 'terminal' ? terminalPrompter() : options.prompt === 'none' ? undefined : options.prompt;
  return createPolicy({
    root: gate.root,
    mode: o.mode,
    flags: o.flags,
    rules: settings.rules,
    hooks: settings.hooks,
    resolve: (p) => {
      const c = gate.check(p, 'read', { grants: true });
      return c.ok ? c.value : path.resolve(gate.root, p);
    },
    ...(prompter ? { prompter } : {}),
    remember: rememberAlways(gate.root, o.home, o.warn),
    ...(options.log ? { log: options.log } : {}),
  });
}

/** The sandbox bash runs in, when one is asked for: refused, never skipped, when bubblewrap cannot start. */
function sandboxOf(
  options: RuntimeOptions,
  gate: PathGate,
  flags: Flags,
  rules: readonly Rule[],
): Result<SandboxConfig | undefined, string> {
  if (!options.sandbox) return okValue(undefined);
  const made = sandboxConfigOf(gate, flags, rules);
  if (!made.ok) return made;
  const probe = probeSandbox(made.value);
  if (!probe.ok) return errValue(`--sandbox was asked for, but ${probe.error}. Refusing to run commands unsandboxed.`);
  return okValue({ ...made.value, bwrap: probe.value });
}

/**
 * Where searches find the user's git config (the global excludes file): the runtime's home, with
 * `$XDG_CONFIG_HOME` when the home is the OS's (a home given explicitly uses its own `.config`); none
 * for `home: null`.
 */
function gitUserOf(options: RuntimeOptions, home: string | undefined): GitUser | undefined {
  if (home === undefined) return undefined;
  const xdg = options.home === undefined ? process.env.XDG_CONFIG_HOME : undefined;
  return { home, ...(xdg ? { xdgConfigHome: path.resolve(xdg) } : {}) };
}

/** The runtime built from its parts: a call is authorized by the gate and the policy, then run in its lane. */
function assemble(p: {
  gate: PathGate;
  registry: Registry;
  ledger: Ledger;
  policy: Policy;
  settings: LoadedSettings;
  skills: SkillCatalog;
  wording: Wording;
  lanes: LaneRunner;
  index: SearchIndex | undefined;
  pool: ReadPool | undefined;
  standby: ReadPool | undefined;
  jobs: JobTable;
  journal: Journal | undefined;
  shellSeen: ShellSeen;
  netProxy: NetProxy | undefined;
  audit: Audit;
  heapTrim: HeapTrim;
  /** Ends this runtime's hold on the heap (core/heap_hold.ts). */
  releaseHeap: (() => void) | undefined;
}): Runtime {
  const { gate, registry, ledger, policy, settings, skills, wording, lanes, index, jobs } = p;
  const { audit, heapTrim } = p;
  const authorize = createAuthorize(gate, policy, ledger);
  const isReadOnly = (name: string) => registry.get(name)?.readOnly === true;
  const execute = (name: string, input: unknown, callOptions: CallOptions, trace?: { stage: CallStage }) =>
    registry.execute(name, input, {
      root: gate.root,
      signal: callOptions.signal,
      authorize,
      lanes,
      unbudgeted: callOptions.unbudgeted ?? false,
      ...(callOptions.form ? { form: callOptions.form } : {}),
      wording: callOptions.wording ?? wording,
      ...(callOptions.spans ? { spans: callOptions.spans } : {}),
      ...(callOptions.origin ? { origin: callOptions.origin } : {}),
      ...(trace ? { trace } : {}),
    });
  // Timed and recorded only when someone reads the records.
  const audited = async (name: string, input: unknown, callOptions: CallOptions): Promise<ToolResult> => {
    const startedAt = Date.now();
    const started = performance.now();
    const trace = { stage: 'unknown' as CallStage };
    const result = await execute(name, input, callOptions, trace);
    const { origin, callId } = callOptions;
    const via = callOptions.via ?? (origin ? 'agent' : 'library');
    const facts = { session: audit.session, via, tool: name, input };
    audit.record(
      callRecord(
        {
          ...facts,
          ...(origin ? { origin } : {}),
          ...(callId ? { callId } : {}),
          startedAt,
          started,
          ...trace,
          result,
        },
        performance.now(),
      ),
    );
    return result;
  };

  const runtime: Runtime = {
    root: gate.root,
    session: audit.session,
    record: audit.record,
    registry,
    ledger,
    gate,
    policy,
    mcpServers: settings.mcpServers,
    model: settings.model,
    ...(settings.toolSearch !== undefined ? { toolSearch: settings.toolSearch } : {}),
    skills,
    ...(index ? { searchIndex: index } : {}),
    jobs,
    ...(p.journal ? { journal: p.journal } : {}),
    heapTrim,
    isReadOnly,
    call: (name, input, callOptions = {}) =>
      heapTrim.during(async () => {
        const result = await (audit.on ? audited(name, input, callOptions) : execute(name, input, callOptions));
        // An index build or check the call started goes on after it: the heap trim waits for it too.
        if (index) void heapTrim.during(() => index.settled().catch(() => undefined));
        return result;
      }),
    batch: (calls, batchOptions = {}) =>
      runInGroups(
        calls,
        (c) => isReadOnly(c.name),
        (c) => runtime.call(c.name, c.input, batchOptions),
      ),
    definitions: ((format: DefinitionFormat = 'anthropic') =>
      definitionsAs(registry.definitions(), format)) as Runtime['definitions'],
    close: () => closeParts(p),
  };
  return runtime;
}

/** Stops what a runtime started; its hold on the heap ends whatever else failed. */
async function closeParts(p: Parameters<typeof assemble>[0]): Promise<void> {
  try {
    p.heapTrim.close();
    await p.jobs.close();
    p.netProxy?.close();
    p.shellSeen.kept?.live?.close();
    p.index?.close();
    await p.pool?.close();
    await p.standby?.close();
  } finally {
    p.releaseHeap?.();
  }
}

/** The settings' limits with the option's over them; a bad option value says which and why. */
function limitsOf(option: LimitsOption | undefined, fromSettings: Limits): Result<Limits, string> {
  const out = { ...fromSettings };
  for (const [name, given] of Object.entries(option ?? {})) {
    if (!(LIMIT_NAMES as readonly string[]).includes(name))
      return errValue(`limits.${name} is not a limit; the limits are ${LIMIT_NAMES.join(', ')}`);
    if (given === undefined) continue;
    const r = typeof given === 'string' ? parseLimit(name as LimitName, given) : checkLimit(name as LimitName, given);
    if (!r.ok) return errValue(`limits.${name}: ${r.error}`);
    out[name as LimitName] = r.value;
  }
  return okValue(out);
}

/** What is wrong with the grant options, if anything: `permissions`, and its shorthands `allowWrite` and `deny`. */
function grantOptionsError(o: RuntimeOptions): string | undefined {
  const strings = (v: unknown) => Array.isArray(v) && v.every((s) => typeof s === 'string' && s !== '');
  if (o.allowWrite !== undefined && typeof o.allowWrite !== 'boolean' && !strings(o.allowWrite))
    return `allowWrite must be true, false or a list of paths, not ${JSON.stringify(o.allowWrite)}`;
  if (o.deny !== undefined && !strings(o.deny)) return `deny must be a list of paths, not ${JSON.stringify(o.deny)}`;
  return checkPermissions(o.permissions, TOOL_NAMES);
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

const merge = (g: Grant | undefined, more: readonly string[]): Grant =>
  g === true ? true : [...(Array.isArray(g) ? g : []), ...more];

function definitionsAs(defs: ToolDefinition[], format: DefinitionFormat): AnthropicTool[] | OpenAITool[] {
  if (format === 'anthropic') return toAnthropicTools(defs);
  return toOpenAITools(defs, { strict: format === 'openai-strict' });
}
