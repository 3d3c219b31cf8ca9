/**
 * The tool contract: `defineTool` turns one strict valibot schema into validation, the TypeScript
 * argument type and the JSON Schema the providers see; `ToolResult` is the value every call ends in.
 * Shared by both lanes: nothing here touches the file system or the policy.
 */
import { toJsonSchema } from '@valibot/to-json-schema';
import * as v from 'valibot';
import { applyBudget, type Budget, DEFAULT_RESULT_BYTES } from './budget.ts';
import type { CheckedPath } from './paths.ts';
import type { ReadRecord } from './read_record.ts';

/** The closed set of error codes a result may carry. The model reads `content`; programs read `code`. */
export const ERROR_CODES = [
  'invalid_args',
  'unknown_tool',
  'not_found',
  'is_directory',
  'not_a_file',
  'outside_root',
  'permission_denied',
  'not_read',
  'stale',
  'no_match',
  'not_unique',
  'no_change',
  'binary',
  'not_text',
  'exists',
  'locked',
  'too_large',
  'timeout',
  'cancelled',
  'io',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

/** What every tool call ends in. `run` never throws: a failure is a result with `isError` and a code. */
export interface ToolResult {
  content: string;
  isError: boolean;
  code?: ErrorCode;
  meta?: ResultMeta;
}

/** Structured side data. Plain JSON, so it crosses the worker boundary intact. */
export interface ResultMeta {
  /** A read record for the write lane's ledger (read_file); the main thread stores it. */
  read?: ReadRecord;
  /** Set when the output budget cut `content`: where the whole text was spilled. */
  truncated?: { shownBytes: number; totalBytes: number; spillPath?: string };
  [key: string]: unknown;
}

export const ok = (content: string, meta?: ResultMeta): ToolResult =>
  meta === undefined ? { content, isError: false } : { content, isError: false, meta };

export const fail = (code: ErrorCode, content: string, meta?: ResultMeta): ToolResult =>
  meta === undefined ? { content, isError: true, code } : { content, isError: true, code, meta };

/** A resource a call will touch. The policy sees only these, never the raw arguments. */
export type Access =
  | { kind: 'read'; path: string }
  | { kind: 'write'; path: string }
  | { kind: 'run'; command: string }
  | { kind: 'net'; host: string }
  | { kind: 'env'; name: string };

/** What `run` receives besides its arguments. */
export interface ToolContext {
  /** The real path of the root every relative path is resolved against. */
  root: string;
  /** The checked forms of the path accesses `access()` declared, in the same order. */
  paths: readonly CheckedPath[];
  /** Aborted on cancel or deadline; long-running tools must stop promptly. */
  signal: AbortSignal;
  /** Runs search shards across the worker pool; absent where the tool must run them inline. */
  shards?: import('../search/parallel.ts').ShardRunner;
  /** The read ledger, for tools of the write lane (which runs on the main thread). */
  ledger?: import('../lane/ledger.ts').Ledger;
  /** The skill catalog (load_skill, install_skill). */
  skills?: import('../skills/catalog.ts').SkillCatalog;
  /** Where install_skill fetches from (configurable, so tests use a local server). */
  skillSources?: import('../skills/fetch.ts').SkillSources;
  /** Paths the policy denies for reading: searches skip them without naming them. */
  readDeny?: import('../search/denied.ts').DenySpec;
  /** How commands run: their environment, and the OS sandbox when one is configured. */
  exec?: { env: Record<string, string>; sandbox?: import('../exec/bwrap.ts').SandboxConfig };
}

// biome-ignore lint/suspicious/noExplicitAny: a schema's input type is unconstrained on purpose
export type ParamsSchema = v.ObjectSchema<any, any> | v.StrictObjectSchema<any, any>;

export interface ToolSpec<N extends string, S extends ParamsSchema, R extends boolean> {
  /** snake_case wire name, kept as a literal type so tool-name unions are exact. */
  name: N;
  description: string;
  params: S;
  readOnly: R;
  /** Always visible: survives every tool-set filter (plan mode, sub-agents). */
  system?: boolean;
  /** Output budget for `content`, in UTF-8 bytes. */
  maxOutputBytes?: number;
  /** Runs on the main thread and fans its work out to the pool as shards (glob, grep). */
  fansOut?: boolean;
  /** Runs on the main thread, where its state lives (the skill catalog, an MCP connection). */
  mainThread?: boolean;
  access(args: v.InferOutput<S>): Access[];
  run(args: v.InferOutput<S>, ctx: ToolContext): Promise<ToolResult>;
}

export interface Tool<N extends string = string, S extends ParamsSchema = ParamsSchema, R extends boolean = boolean>
  extends Readonly<ToolSpec<N, S, R>> {
  /** JSON Schema of the arguments (draft-07, no `$schema` key): what the providers receive. */
  readonly inputSchema: JsonSchemaObject;
  /** Validates raw input: the parsed arguments, or an invalid_args result naming every problem. */
  parse(input: unknown): { ok: true; value: v.InferOutput<S> } | { ok: false; error: ToolResult };
  /** Runs with checked paths; never throws, and applies the output budget. */
  invoke(args: v.InferOutput<S>, ctx: ToolContext, budget?: Budget): Promise<ToolResult>;
}

export interface JsonSchemaObject {
  type: 'object';
  properties: Record<string, Record<string, unknown>>;
  required?: string[];
  additionalProperties?: boolean;
  [key: string]: unknown;
}

// biome-ignore lint/suspicious/noExplicitAny: used only as an upper bound for lists of tools
export type AnyTool = Tool<string, any, boolean>;

/** Defines a tool once; name, schema and lane flags stay literal types for the tool-name union. */
export function defineTool<const N extends string, S extends ParamsSchema, const R extends boolean>(
  spec: ToolSpec<N, S, R>,
): Tool<N, S, R> {
  if (!/^[a-z][a-z0-9_]*$/.test(spec.name)) throw new Error(`tool name "${spec.name}" is not snake_case`);
  const inputSchema = schemaOf(spec.params);
  const maxOutputBytes = spec.maxOutputBytes ?? DEFAULT_RESULT_BYTES;
  return {
    ...spec,
    inputSchema,
    parse(input) {
      const r = v.safeParse(spec.params, input);
      if (r.success) return { ok: true, value: r.output };
      return { ok: false, error: invalidArgs(spec.name, inputSchema, input, r.issues) };
    },
    async invoke(args, ctx, budget) {
      let result: ToolResult;
      try {
        result = await spec.run(args, ctx);
      } catch (e) {
        // A throw here is a bug in the tool, but the caller still gets a value, never an exception.
        result = fail('io', `${spec.name} failed unexpectedly: ${describeError(e)}`);
      }
      return applyBudget(result, { maxBytes: maxOutputBytes, ...budget });
    },
  };
}

/** Converts a params schema to the JSON Schema the providers see; throws on anything inexpressible. */
export function schemaOf(params: ParamsSchema): JsonSchemaObject {
  const { $schema: _drop, ...rest } = toJsonSchema(params) as Record<string, unknown>;
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
  if (e instanceof Error) return (e as NodeJS.ErrnoException).code ? `${e.message}` : e.message;
  return String(e);
}
