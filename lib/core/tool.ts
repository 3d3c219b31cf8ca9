/**
 * The tool contract: `defineTool` turns one strict valibot schema into validation, the TypeScript
 * argument type and the JSON Schema the providers see; `ToolResult` is the value every call ends in.
 * Shared by both lanes: nothing here touches the file system or the policy.
 */
import type { BigIntStats } from 'node:fs';
import { toJsonSchema } from '@valibot/to-json-schema';
import * as v from 'valibot';
import type { AnswerForm } from './answers.ts';
import { applyBudget, type Budget, DEFAULT_RESULT_BYTES } from './budget.ts';
import { BudgetedText } from './budgeted_text.ts';
import { clipQuotedInputs } from './clip_inputs.ts';
import type { CheckedPath } from './paths.ts';
import { errValue, okValue, type Result } from './result.ts';
import { fail, type ToolResult } from './tool_result.ts';
import type { Wording } from './wording.ts';

// The result half of the contract lives in tool_result.ts so the output budget can use it without
// importing the tool definitions; tools import both halves from here.
export {
  ERROR_CODES,
  type ErrorCode,
  fail,
  ok,
  okData,
  type PolicyDecision,
  type ResultMeta,
  type ToolResult,
} from './tool_result.ts';

/** A resource a call will touch. The policy sees only these, never the raw arguments. */
export type Access =
  | { kind: 'read'; path: string }
  | { kind: 'write'; path: string }
  | { kind: 'run'; command: string }
  | NetAccess
  | { kind: 'env'; name: string };

/**
 * A host to connect to (`host[:port]`). `local`: the host is a loopback, private, link-local or
 * metadata address named as such: only a grant naming it covers it, not `--allow-net` for all hosts
 * (no request forgery through a blanket grant).
 */
export interface NetAccess {
  kind: 'net';
  host: string;
  local?: boolean;
}

/** A resource a call will touch, its path checked by the path gate: what the policy judges. */
export type CheckedAccess =
  | { kind: 'read'; path: CheckedPath }
  | { kind: 'write'; path: CheckedPath }
  | { kind: 'run'; command: string }
  | NetAccess
  | { kind: 'env'; name: string };

/**
 * Where a checked call runs. Each lane hands its tools a context of its own (a `ToolContext` plus
 * what lives in that lane); lib/lanes/dispatch.ts is the one place that maps a lane to how it runs.
 * - `pool`: a worker of the read pool, under the read deadline (read_file);
 * - `search`: the main thread, fanning search shards out to the pool (glob, grep);
 * - `main`: the main thread, where the tool's state lives (load_skill's catalog, an MCP connection);
 * - `write`: the write lane, one call at a time in arrival order, with the read ledger (every tool
 *   that changes files or runs commands). The only lane whose tools are not read-only.
 */
export type Lane = 'pool' | 'search' | 'main' | 'write';

/** What `run` receives besides its arguments, in every lane. */
/** The agent run and turn that made a call (its journal entry is grouped by them). */
export interface CallOrigin {
  /** The run's id, made when the run starts. */
  run: string;
  /** The turn of the run, from 1. */
  turn: number;
}

export interface ToolContext {
  /** The real path of the root every relative path is resolved against. */
  root: string;
  /** Who made the call, when an agent run did. */
  origin?: CallOrigin;
  /** The checked forms of the path accesses `access()` declared, in the same order. */
  paths: readonly CheckedPath[];
  /** Aborted on cancel or deadline; long-running tools must stop promptly. */
  signal: AbortSignal;
  /**
   * A further access the call found it needs while it ran (web_fetch: a redirect's host), decided by
   * the same policy as the declared ones, a prompt included: true, or the refusal's words.
   */
  authorizeMore?(access: readonly Access[]): Promise<true | string>;
  /** A person reading a pipe asked for everything (the CLI's grep and glob): no output budget, no spill. */
  unbudgeted?: boolean;
  /**
   * `data`: the caller prints the answer itself (the CLI): a tool that has data for it (grep, glob,
   * read_file; core/answers.ts) returns it as `data` and leaves `content` empty. Default `text`.
   */
  form?: AnswerForm;
  /** How hints name what the reader can do next (default: a model's, MODEL_WORDING). */
  wording?: Wording;
  /**
   * With `form: 'data'`: grep also says where each shown line matched (`GrepLine.spans`), for a
   * printer's colour or JSON. It costs a scan of each line, so only a caller that prints them asks.
   * `groups`: also where each match's capture groups are (`GrepLine.captures`), for rg -r.
   */
  spans?: boolean | 'groups';
  /**
   * Set by `invoke` when the result is budgeted: a tool whose answer can run to megabytes writes it
   * here in pieces and returns `output.result(meta)`, already cut and spilled, instead of building
   * the whole text for the budget to cut afterwards.
   */
  output?: BudgetedText;
}

/** What a call would change, for the approval prompt: a unified diff, or one line on why there is none. */
export type Preview = { diff: string } | { note: string };

/** What `preview` receives: the checked paths (it reads through them, never writes), and the read ledger's check. */
export interface PreviewContext {
  root: string;
  /** The checked forms of the path accesses `access()` declared, in the same order. */
  paths: readonly CheckedPath[];
  /** Whether a file as it is now may be changed: not read in this session, or changed since (lib/files/ledger.ts). */
  ledger: {
    verify(
      real: string,
      shown: string,
      now: BigIntStats,
      bytes: Uint8Array,
    ): Result<undefined, { code: 'not_read' | 'stale'; message: string }>;
  };
}

// biome-ignore lint/suspicious/noExplicitAny: a schema's input type is unconstrained on purpose
type AnyEntries = any;
/** A tool's parameters: an object schema (strict for built-in tools; loose for an MCP tool's passthrough). */
type ParamsSchema =
  | v.ObjectSchema<AnyEntries, undefined>
  | v.StrictObjectSchema<AnyEntries, undefined>
  | v.LooseObjectSchema<AnyEntries, undefined>;

export interface ToolSpec<N extends string, S extends ParamsSchema, L extends Lane, C extends ToolContext> {
  /** snake_case wire name, kept as a literal type so tool-name unions are exact. */
  name: N;
  description: string;
  params: S;
  /** Where the call runs; every lane but `write` is read-only. */
  lane: L;
  /** Always visible: survives every tool-set filter (plan mode, sub-agents). */
  system?: boolean;
  /**
   * Reads file contents or names under the root: a read rule naming any such tool judges the reads of
   * all of them (lib/policy/read_deny.ts keeps their names, checked against this by a test).
   */
  readsFiles?: boolean;
  /** Reaches past the root: the network, or any program (MCP's openWorldHint). */
  openWorld?: boolean;
  /**
   * The JSON Schema the providers see when it was declared elsewhere (an MCP server's tool); by
   * default it is derived from `params`.
   */
  inputSchema?: JsonSchemaObject;
  /** Output budget for `content`, in UTF-8 bytes. */
  maxOutputBytes?: number;
  access(args: v.InferOutput<S>): Access[];
  /**
   * The change the call would make, shown by the approval prompt; computed only when the user is
   * asked. A throw is shown as a note and never changes the decision.
   */
  preview?(args: v.InferOutput<S>, ctx: PreviewContext): Preview | Promise<Preview>;
  /** `ctx` is the context of the tool's lane. */
  run(args: v.InferOutput<S>, ctx: C): Promise<ToolResult>;
}

export interface Tool<
  N extends string = string,
  S extends ParamsSchema = ParamsSchema,
  L extends Lane = Lane,
  C extends ToolContext = ToolContext,
> extends Readonly<ToolSpec<N, S, L, C>> {
  /** True for every lane but `write`: plan mode and read-only sub-agents offer only these. */
  readonly readOnly: boolean;
  /** JSON Schema of the arguments (draft-07, no `$schema` key): what the providers receive. */
  readonly inputSchema: JsonSchemaObject;
  /** Validates raw input: the parsed arguments, or an invalid_args result naming every problem. */
  parse(input: unknown): Result<v.InferOutput<S>, ToolResult>;
  /** Runs with checked paths; never throws, and applies the output budget. */
  invoke(args: v.InferOutput<S>, ctx: C, budget?: Budget): Promise<ToolResult>;
}

export interface JsonSchemaObject {
  type: 'object';
  properties: Record<string, Record<string, unknown>>;
  required?: string[];
  additionalProperties?: boolean;
  [key: string]: unknown;
}

// biome-ignore lint/suspicious/noExplicitAny: used only as an upper bound for lists of tools
export type AnyTool = Tool<string, any, Lane, any>;

/** A built-in tool's name is snake_case; an MCP server's tool keeps its server's spelling. */
const TOOL_NAME = /^([a-z][a-z0-9_]*|mcp__[A-Za-z0-9_-]+__[A-Za-z0-9_-]+)$/;

/** Defines a tool once; name, schema and lane stay literal types for the tool-name union. */
export function defineTool<
  const N extends string,
  S extends ParamsSchema,
  const L extends Lane,
  C extends ToolContext = ToolContext,
>(spec: ToolSpec<N, S, L, C>): Tool<N, S, L, C> {
  if (!TOOL_NAME.test(spec.name))
    throw new Error(`tool name "${spec.name}" is neither snake_case nor mcp__<server>__<tool>`);
  const inputSchema = spec.inputSchema ?? schemaOf(spec.params);
  const maxOutputBytes = spec.maxOutputBytes ?? DEFAULT_RESULT_BYTES;
  return {
    ...spec,
    readOnly: spec.lane !== 'write',
    inputSchema,
    parse(input) {
      const r = v.safeParse(spec.params, input);
      if (r.success) return okValue(r.output);
      return errValue(invalidArgs(spec.name, inputSchema, input, r.issues));
    },
    async invoke(args, ctx, budget) {
      const within = { maxBytes: maxOutputBytes, root: ctx.root, ...budget };
      const output = ctx.unbudgeted ? undefined : new BudgetedText(within);
      let result: ToolResult;
      try {
        result = await spec.run(args, output ? { ...ctx, output } : ctx);
      } catch (e) {
        // A throw here is a bug in the tool, but the caller still gets a value, never an exception.
        result = fail('internal', `${spec.name} failed unexpectedly: ${describeError(e)}`);
      }
      if (output?.finished) return result; // made by the output itself, already within the budget
      output?.discard(); // written to, then not used: its spill file goes
      // An error quoting a huge input is clipped before the budget sees it (the registry clips again
      // for errors made before a tool runs): otherwise junk input would be spilled to disk in full.
      if (result.isError) result = clipQuotedInputs(result, spec.name, args);
      if (ctx.unbudgeted) return result;
      return applyBudget(result, within);
    },
  };
}

/**
 * Converts a params schema to the JSON Schema the providers see; throws on anything inexpressible,
 * but `v.check`: a check is a refusal only a run can make (bash's command holds no NUL byte and fits
 * one argument), whose message says why, like any invalid argument's.
 */
export function schemaOf(params: ParamsSchema): JsonSchemaObject {
  const { $schema: _drop, ...rest } = toJsonSchema(params, { ignoreActions: ['check'] }) as Record<string, unknown>;
  return rest as JsonSchemaObject;
}

function invalidArgs(name: string, schema: JsonSchemaObject, input: unknown, issues: v.BaseIssue<unknown>[]) {
  const keys = Object.keys(schema.properties);
  const required = schema.required ?? [];
  const lines = issues.map((issue) => {
    const where = v.getDotPath(issue);
    if (issue.kind === 'schema' && issue.type === 'strict_object' && issue.expected === 'never') {
      return `- unknown key ${issue.received}; the parameters are ${keys.join(', ')}`;
    }
    if (issue.kind === 'schema' && issue.received === 'undefined' && where) return `- missing required key ${where}`;
    return `- ${where ? `${where}: ` : ''}${issue.message}`;
  });
  const shown = input === undefined ? 'nothing' : clip(JSON.stringify(input) ?? String(input), 200);
  return fail(
    'invalid_args',
    `Invalid arguments for ${name} (received ${shown}):\n${lines.join('\n')}\n` +
      `Expected an object with ${required.length ? `required ${required.join(', ')}` : 'no required keys'}` +
      `${keys.length > required.length ? `; optional ${keys.filter((k) => !required.includes(k)).join(', ')}` : ''}.`,
  );
}

const clip = (s: string, n: number) => (s.length > n ? `${s.slice(0, n)}…` : s);

export function describeError(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
