/**
 * The tool registry: tools in a stable registration order (prompt-cache friendly), looked up by exact
 * name, executed as parse → (admitted by its lane) access → authorize → run in the lane. The tool table is copy-on-write, so a tool
 * registered or replaced while calls are in flight (an MCP server coming online) never disturbs them:
 * each call holds the tool it looked up. Main thread.
 */

import type { AnswerForm } from './answers.ts';
import type { CallStage } from './audit_record.ts';
import { clipQuotedInputs } from './clip_inputs.ts';
import type { CheckedPath } from './paths.ts';
import type { Result } from './result.ts';
import {
  type Access,
  type AnyTool,
  type CallOrigin,
  fail,
  type JsonSchemaObject,
  type PolicyDecision,
  type ToolContext,
  type ToolResult,
} from './tool.ts';
import type { Wording } from './wording.ts';

/** A provider-neutral tool definition; `lib/llm` turns it into each provider's wire form. */
export interface ToolDefinition {
  name: string;
  description: string;
  inputSchema: JsonSchemaObject;
  readOnly: boolean;
  system: boolean;
  /** Reaches past the root: the network, or any program (ToolSpec.openWorld). Absent: it does not. */
  openWorld?: boolean;
}

/** What the one authorisation step grants: the checked paths (in access order), and why. */
export interface Authorization {
  paths: CheckedPath[];
  decision: PolicyDecision;
}

/** Where a checked call runs: lib/lanes/dispatch.ts implements this for the runtime's lanes. */
export interface LaneRunner {
  /** Runs a whole call, its authorisation included, when its lane admits it (writes one at a time). */
  admit(tool: AnyTool, call: () => Promise<ToolResult>): Promise<ToolResult>;
  /** Runs a checked call in its lane. */
  run(tool: AnyTool, args: unknown, ctx: ToolContext): Promise<ToolResult>;
}

/** What a call needs from its caller: the root, cancellation, the one authorisation step, the lanes. */
interface ExecuteEnv {
  root: string;
  signal?: AbortSignal;
  /**
   * The policy's single call site: sees only the tool and what `access()` declared, and grants the
   * checked paths or answers the refusal. `args` (parsed) is only for the tool's `preview`, which the
   * prompt may show.
   */
  authorize(
    tool: AnyTool,
    access: readonly Access[],
    args: unknown,
    wording?: Wording,
  ): Promise<Result<Authorization, ToolResult>>;
  /** Where the checked call runs; default: right here, at once. */
  lanes?: LaneRunner;
  /** No output budget for this call (see ToolContext.unbudgeted). */
  unbudgeted?: boolean;
  /** The answer's form and the hints' wording (see ToolContext.form and .wording). */
  form?: AnswerForm;
  wording?: Wording;
  /** grep's match spans (see ToolContext.spans). */
  spans?: boolean | 'groups';
  /** The agent run and turn that made the call (see ToolContext.origin). */
  origin?: CallOrigin;
  /** Filled in as the call goes: where it ended (for the audit trail). */
  trace?: { stage: CallStage };
}

export class Registry {
  #tools: ReadonlyMap<string, AnyTool> = new Map();

  constructor(tools: readonly AnyTool[] = []) {
    for (const t of tools) this.register(t);
  }

  /** Adds a tool at the end. Replacing one must be explicit and keeps its position. */
  register(tool: AnyTool, options: { replace?: boolean } = {}): void {
    const exists = this.#tools.has(tool.name);
    if (exists && !options.replace)
      throw new Error(`tool "${tool.name}" is already registered; pass { replace: true } to replace it`);
    if (!exists && options.replace) throw new Error(`tool "${tool.name}" is not registered, so it cannot be replaced`);
    const next = new Map(this.#tools); // Map.set on an existing key keeps its insertion position
    next.set(tool.name, tool);
    this.#tools = next;
  }

  unregister(name: string): boolean {
    if (!this.#tools.has(name)) return false;
    const next = new Map(this.#tools);
    next.delete(name);
    this.#tools = next;
    return true;
  }

  /** Exact lookup; a Map, so `__proto__` or `constructor` never reach anything. */
  get(name: string): AnyTool | undefined {
    return this.#tools.get(name);
  }

  names(): string[] {
    return [...this.#tools.keys()];
  }

  definitions(): ToolDefinition[] {
    return [...this.#tools.values()].map(toDefinition);
  }

  /** Plan mode: only the read-only tools. */
  readOnlyDefinitions(): ToolDefinition[] {
    return this.definitions().filter((d) => d.readOnly);
  }

  /** Runs a call; an error that quotes a long input quotes it clipped (lib/core/clip_inputs.ts). */
  async execute(name: string, input: unknown, env: ExecuteEnv): Promise<ToolResult> {
    return clipQuotedInputs(await this.#execute(name, input, env), name, input);
  }

  async #execute(name: string, input: unknown, env: ExecuteEnv): Promise<ToolResult> {
    const tool = this.#tools.get(name);
    const trace = env.trace ?? { stage: 'unknown' };
    trace.stage = 'unknown';
    if (!tool) {
      return fail(
        'unknown_tool',
        `There is no tool named ${shownName(name)}. Available tools: ${this.names().join(', ')}.`,
      );
    }
    trace.stage = 'parse';
    const parsed = tool.parse(input);
    if (!parsed.ok) return parsed.error;
    const checked = async (): Promise<ToolResult> => {
      trace.stage = 'authorize';
      const granted = await env.authorize(tool, tool.access(parsed.value), parsed.value, env.wording);
      if (!granted.ok) return granted.error;
      trace.stage = 'run';
      const signal = env.signal ?? new AbortController().signal;
      if (signal.aborted) return fail('cancelled', `${tool.name} was cancelled before it started.`);
      const more = async (access: readonly Access[]): Promise<true | string> => {
        const also = await env.authorize(tool, access, parsed.value, env.wording);
        return also.ok ? true : also.error.content;
      };
      const ctx: ToolContext = {
        root: env.root,
        paths: granted.value.paths,
        signal,
        authorizeMore: more,
        ...(env.unbudgeted ? { unbudgeted: true } : {}),
        ...(env.form ? { form: env.form } : {}),
        ...(env.wording ? { wording: env.wording } : {}),
        ...(env.spans ? { spans: env.spans } : {}),
        ...(env.origin ? { origin: env.origin } : {}),
      };
      const result = await (env.lanes ? env.lanes.run(tool, parsed.value, ctx) : tool.invoke(parsed.value, ctx));
      // The decision travels with the result (the CLI's --json shows it).
      return result.meta?.policy ? result : { ...result, meta: { ...result.meta, policy: granted.value.decision } };
    };
    return env.lanes ? env.lanes.admit(tool, checked) : checked();
  }
}

const toDefinition = (t: AnyTool): ToolDefinition => ({
  name: t.name,
  description: t.description,
  inputSchema: t.inputSchema,
  readOnly: t.readOnly,
  system: t.system ?? false,
  ...(t.openWorld ? { openWorld: true } : {}),
});

/**
 * A name as an error quotes it. A caller without types may pass anything: an object without a
 * prototype, one whose toString throws, a BigInt, a cycle — none of which String() or JSON can all
 * take.
 */
function shownName(name: unknown): string {
  try {
    return JSON.stringify(name) ?? typeof name;
  } catch {
    return `a ${typeof name}`;
  }
}
