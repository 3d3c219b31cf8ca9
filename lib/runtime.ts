/**
 * createRuntime: the one module that knows the registry, the path gate, the ledger and (later) both
 * lanes. A call is parse → access → authorize (the path gate, and the minimal write switch that the
 * permission engine will replace at this one call site) → run → ledger. Main thread.
 */

import path from 'node:path';
import { defaultSpillDir } from './core/budget.ts';
import { Registry, type ToolDefinition } from './core/registry.ts';
import { errValue, okValue, type Result } from './core/result.ts';
import { type Access, type AnyTool, fail, type ToolContext, type ToolResult } from './core/tool.ts';
import { sweepJournals } from './lane/journal.ts';
import { WriteLane } from './lane/lane.ts';
import { Ledger } from './lane/ledger.ts';
import { type AnthropicTool, toAnthropicTools } from './llm/anthropic.ts';
import { type OpenAITool, toOpenAITools } from './llm/openai.ts';
import { type CheckedPath, createGate, inside, type PathGate } from './policy/sandbox.ts';
import { createReadPool, defaultWorkers } from './pool/pool.ts';
import type { ShardRunner } from './search/parallel.ts';
import { type ReadToolName, TOOLS } from './tools/mod.ts';

export const DEFINITION_FORMATS = ['anthropic', 'openai', 'openai-strict'] as const;
export type DefinitionFormat = (typeof DEFINITION_FORMATS)[number];

export interface RuntimeOptions {
  /** The directory tools work in; default: the current directory. */
  root?: string;
  /**
   * Writes allowed without asking (the later permission engine refines this): `true` for anywhere in
   * the root, or the paths (relative to the root or absolute) under which writes are allowed. The
   * protected paths — `.git/` and `.mewcode/settings*.json` — need a listed path inside them.
   */
  allowWrite?: boolean | readonly string[];
  /** Paths refused for every tool, relative to the root or absolute. */
  deny?: readonly string[];
  /** Worker threads of the read lane (default: available cores); 0 runs every read tool inline. */
  workers?: number;
  /** Deadline of one read-lane call, in ms (default 60 s). */
  readTimeoutMs?: number;
}

export const DEFAULT_READ_TIMEOUT_MS = 60_000;

export interface BatchCall {
  name: string;
  input: unknown;
}

/** Paths inside the root that are refused for writing unless a grant names them. */
const PROTECTED = (root: string, p: string) => {
  const rel = path.relative(root, p).split(path.sep).join('/');
  return rel === '.git' || rel.startsWith('.git/') || /^\.mewcode\/settings[^/]*\.json$/.test(rel);
};

/** The write check for a checked path: undefined when allowed, else the refusal's message. */
function writeGrantOf(
  gate: PathGate,
  grant: boolean | readonly string[] | undefined,
): (p: CheckedPath) => string | undefined {
  const listed = Array.isArray(grant)
    ? grant.flatMap((g) => {
        const c = gate.check(g, 'write');
        return c.ok ? [c.value as string] : [];
      })
    : [];
  return (p) => {
    const shown = JSON.stringify(gate.display(p));
    if (PROTECTED(gate.root, p)) {
      // Only a grant that itself lies inside the protected area opens it.
      if (listed.some((g) => PROTECTED(gate.root, g) && inside(p, g))) return undefined;
      return `Writing ${shown} is refused: it is a protected path (git internals or MewCode settings). Grant it explicitly with --allow-write=${gate.display(p)} if that is really intended.`;
    }
    if (grant === true) return undefined;
    if (listed.some((g) => inside(p, g))) return undefined;
    return `Writing ${shown} needs permission: run again with --allow-write=${gate.display(p).split('/')[0]} (or --allow-write for the whole root).`;
  };
}

export interface Runtime {
  readonly root: string;
  readonly registry: Registry;
  readonly ledger: Ledger;
  readonly gate: PathGate;
  /** Runs one tool call; never throws. Write tools queue in the write lane. */
  call(name: string, input: unknown, options?: { signal?: AbortSignal }): Promise<ToolResult>;
  /** Runs calls as the agent loop does: consecutive read-only calls together, writes one by one; results in order. */
  batch(calls: readonly BatchCall[]): Promise<ToolResult[]>;
  definitions(format: 'anthropic'): AnthropicTool[];
  definitions(format: 'openai' | 'openai-strict'): OpenAITool[];
  definitions(format?: DefinitionFormat): AnthropicTool[] | OpenAITool[];
  close(): Promise<void>;
}

/** Builds a runtime, or says why it cannot (a root that does not exist, say). */
export function createRuntime(options: RuntimeOptions = {}): Result<Runtime, string> {
  const gateResult = createGate({
    root: options.root ?? process.cwd(),
    extraReadRoots: [defaultSpillDir()],
    deny: options.deny ?? [],
  });
  if (!gateResult.ok) return errValue(gateResult.error.message);
  const gate = gateResult.value;
  const registry = new Registry(TOOLS);
  const ledger = new Ledger();
  const lane = new WriteLane();
  sweepJournals(); // temp files of writers that died mid-write
  const pool = options.workers === 0 ? undefined : createReadPool({ workers: options.workers ?? defaultWorkers() });
  const timeoutMs = options.readTimeoutMs ?? DEFAULT_READ_TIMEOUT_MS;

  // Read-only tools run in the pool under a deadline; glob and grep run here and fan out shards;
  // write tools run here, inside the write lane, with the ledger.
  const dispatch = async (tool: AnyTool, args: unknown, ctx: ToolContext): Promise<ToolResult> => {
    if (!tool.readOnly) return tool.invoke(args, { ...ctx, ledger });
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

  const writeGrant = writeGrantOf(gate, options.allowWrite);
  // The one authorisation step every call goes through (the permission engine replaces it).
  const authorize = (_tool: unknown, access: readonly Access[]): Result<CheckedPath[], ToolResult> => {
    const paths: CheckedPath[] = [];
    for (const a of access) {
      if (a.kind === 'read' || a.kind === 'write') {
        const checked = gate.check(a.path, a.kind);
        if (!checked.ok) return errValue(fail(checked.error.code, checked.error.message));
        const refused = a.kind === 'write' ? writeGrant(checked.value) : undefined;
        if (refused) return errValue(fail('permission_denied', refused));
        paths.push(checked.value);
      } else {
        return errValue(
          fail('permission_denied', `This call needs ${a.kind} permission, which this runtime does not grant.`),
        );
      }
    }
    return okValue(paths);
  };

  const runtime: Runtime = {
    root: gate.root,
    registry,
    ledger,
    gate,
    async call(name, input, callOptions = {}) {
      const exec = () =>
        registry.execute(name, input, { root: gate.root, signal: callOptions.signal, authorize, dispatch });
      // Write tools queue in the lane, and are checked there, at the moment they run.
      const result = await (registry.get(name)?.readOnly === false ? lane.run(exec) : exec());
      if (result.meta?.read) ledger.record(result.meta.read);
      return result;
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

export function definitionsAs(defs: ToolDefinition[], format: DefinitionFormat): AnthropicTool[] | OpenAITool[] {
  if (format === 'anthropic') return toAnthropicTools(defs);
  return toOpenAITools(defs, { strict: format === 'openai-strict' });
}
