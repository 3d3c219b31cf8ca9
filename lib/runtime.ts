/**
 * createRuntime: the one module that knows the registry, the path gate, the ledger and (later) both
 * lanes. A call is parse → access → authorize (the path gate, and the minimal write switch that the
 * permission engine will replace at this one call site) → run → ledger. Main thread.
 */
import { defaultSpillDir } from './core/budget.ts';
import { Registry, type ToolDefinition } from './core/registry.ts';
import { errValue, okValue, type Result } from './core/result.ts';
import { type Access, type AnyTool, fail, type ToolContext, type ToolResult } from './core/tool.ts';
import { Ledger } from './lane/ledger.ts';
import { type AnthropicTool, toAnthropicTools } from './llm/anthropic.ts';
import { type OpenAITool, toOpenAITools } from './llm/openai.ts';
import { type CheckedPath, createGate, type PathGate } from './policy/sandbox.ts';
import { createReadPool, defaultWorkers } from './pool/pool.ts';
import type { ShardRunner } from './search/parallel.ts';
import { type ReadToolName, TOOLS } from './tools/mod.ts';

export const DEFINITION_FORMATS = ['anthropic', 'openai', 'openai-strict'] as const;
export type DefinitionFormat = (typeof DEFINITION_FORMATS)[number];

export interface RuntimeOptions {
  /** The directory tools work in; default: the current directory. */
  root?: string;
  /** Allow writes inside the root without asking (the later permission engine refines this). */
  allowWrite?: boolean;
  /** Paths refused for every tool, relative to the root or absolute. */
  deny?: readonly string[];
  /** Worker threads of the read lane (default: available cores); 0 runs every read tool inline. */
  workers?: number;
  /** Deadline of one read-lane call, in ms (default 60 s). */
  readTimeoutMs?: number;
}

export const DEFAULT_READ_TIMEOUT_MS = 60_000;

export interface Runtime {
  readonly root: string;
  readonly registry: Registry;
  readonly ledger: Ledger;
  readonly gate: PathGate;
  /** Runs one tool call; never throws. */
  call(name: string, input: unknown, options?: { signal?: AbortSignal }): Promise<ToolResult>;
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
  const pool = options.workers === 0 ? undefined : createReadPool({ workers: options.workers ?? defaultWorkers() });
  const timeoutMs = options.readTimeoutMs ?? DEFAULT_READ_TIMEOUT_MS;

  // Read-only tools run in the pool under a deadline; glob and grep run here and fan out shards.
  const dispatch = async (tool: AnyTool, args: unknown, ctx: ToolContext): Promise<ToolResult> => {
    if (!tool.readOnly || !pool) return tool.invoke(args, ctx);
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

  const authorize = (_tool: unknown, access: readonly Access[]): Result<CheckedPath[], ToolResult> => {
    const paths: CheckedPath[] = [];
    for (const a of access) {
      if (a.kind === 'read' || a.kind === 'write') {
        const checked = gate.check(a.path, a.kind);
        if (!checked.ok) return errValue(fail(checked.error.code, checked.error.message));
        if (a.kind === 'write' && !options.allowWrite) {
          return errValue(
            fail(
              'permission_denied',
              `Writing ${JSON.stringify(gate.display(checked.value))} needs permission: run again with --allow-write.`,
            ),
          );
        }
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
      const result = await registry.execute(name, input, {
        root: gate.root,
        signal: callOptions.signal,
        authorize,
        dispatch,
      });
      if (result.meta?.read) ledger.record(result.meta.read);
      return result;
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
