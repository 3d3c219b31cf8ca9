/**
 * Tool search: when a run's MCP tools would take too much of its context (their definitions past a
 * share of the budget) or are too many, they are deferred — the model is sent the built-in tools and
 * `tool_search` instead, and a search answers the best matches' whole definitions and makes those
 * tools part of the run's tool list from the next request on. Each run (a sub-agent's too) keeps its
 * own set of found tools. Like `agent`, tool_search is run by the agent loop, not the runtime's
 * registry. Main thread.
 */
import * as v from 'valibot';
import type { ToolDefinition } from '../core/registry.ts';
import { defineTool, fail, type ToolResult } from '../core/tool.ts';
import { estimateTokens } from './context_budget.ts';
import { type Hit, type ToolIndex, toolIndex } from './tool_index.ts';

export interface ToolSearchOptions {
  /** Defer when the MCP tools' definitions pass this share of the context budget (default 0.1). */
  share?: number;
  /** Defer when there are more MCP tools than this (default 100). */
  maxTools?: number;
}

export const DEFAULT_SHARE = 0.1;
/**
 * OpenAI's Chat Completions takes at most 128 tools a request; 100 MCP tools leave room for the
 * built-in ones, and past about a hundred tools models also choose among them less well.
 */
export const DEFAULT_MAX_TOOLS = 100;
const DEFAULT_RESULTS = 5;
const MAX_RESULTS = 20;
/**
 * The most found tools a run keeps loaded: past it, those found or called least recently are let go
 * (found again, they come back). With the ~20 built-in tools this stays under the 128 a request to
 * OpenAI may carry, and it bounds what the found tools take of the context.
 */
export const MAX_FOUND = 40;

export const TOOL_SEARCH = 'tool_search';

export const toolSearchTool = defineTool({
  name: TOOL_SEARCH,
  lane: 'main',
  params: v.strictObject({
    query: v.pipe(
      v.string(),
      v.minLength(1, 'query is empty'),
      v.description("A tool's name (whole or its start), or words for what you want to do"),
    ),
    max_results: v.optional(
      v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(MAX_RESULTS), v.description('Default 5, at most 20')),
    ),
  }),
  description:
    "Finds tools that are not loaded yet and loads them: answers the best matches' definitions (name, description, " +
    'input schema), and from the next turn on those tools can be called. Search by a tool name or by what you want to do.',
  access: () => [],
  async run() {
    return fail('invalid_args', 'tool_search runs only inside an agent run (the loop runs it itself).');
  },
});

/** The deferred tools of one run, the index over them, and what the run has found so far. */
export interface DeferredTools {
  tools: ReadonlyMap<string, ToolDefinition>;
  index: ToolIndex<ToolDefinition>;
  /** The run's tool list (what each request sends) and the names it may call: found tools join both. */
  sent: ToolDefinition[];
  visible: Set<string>;
  /** The found tools loaded now, the least recently found or called first. */
  found: string[];
  /** Tools whose MCP server went away: never found again. */
  gone: Set<string>;
}

const isMcp = (d: ToolDefinition) => d.name.startsWith('mcp__');

/**
 * The tools a run sends and, when its MCP tools are deferred, those it keeps behind tool_search.
 * `budget` is the run's context budget in tokens; the size is estimated as the budget estimates it.
 */
export function deferTools(
  all: readonly ToolDefinition[],
  budget: number,
  o: false | ToolSearchOptions | undefined,
): { sent: ToolDefinition[]; deferred?: DeferredTools } {
  const mcp = all.filter(isMcp);
  if (o === false || mcp.length === 0) return { sent: [...all] };
  const share = o?.share ?? DEFAULT_SHARE;
  const maxTools = o?.maxTools ?? DEFAULT_MAX_TOOLS;
  if (mcp.length <= maxTools && estimateTokens(JSON.stringify(mcp)) <= share * budget) return { sent: [...all] };
  const sent = [...all.filter((d) => !isMcp(d)), searchDefinition(mcp)];
  return {
    sent,
    deferred: {
      tools: new Map(mcp.map((d) => [d.name, d])),
      index: toolIndex(mcp),
      sent,
      visible: new Set(sent.map((d) => d.name)),
      found: [],
      gone: new Set(),
    },
  };
}

/** tool_search's definition, naming the servers whose tools wait behind it. */
function searchDefinition(deferred: readonly ToolDefinition[]): ToolDefinition {
  const servers = new Map<string, number>();
  for (const d of deferred) {
    const server = /^mcp__(.+?)__/.exec(d.name)?.[1] ?? d.name;
    servers.set(server, (servers.get(server) ?? 0) + 1);
  }
  const list = [...servers].map(([s, n]) => `${s} (${n})`).join(', ');
  return {
    name: TOOL_SEARCH,
    description: `${toolSearchTool.description} ${deferred.length} tools of MCP servers wait here, named mcp__<server>__<tool>: ${list}.`,
    inputSchema: toolSearchTool.inputSchema,
    readOnly: true,
    system: false,
  };
}

/** Runs one tool_search call: the matches are found, join the run's tools, and are answered in full. */
export function runToolSearch(input: unknown, d: DeferredTools): ToolResult {
  const parsed = toolSearchTool.parse(input);
  if (!parsed.ok) return parsed.error;
  const { query, max_results } = parsed.value;
  const want = max_results ?? DEFAULT_RESULTS;
  const hits = d.index
    .search(query, want + d.gone.size)
    .filter((h) => !d.gone.has(h.tool.name))
    .slice(0, want);
  if (hits.length === 0)
    return fail(
      'no_match',
      `No deferred tool matches ${JSON.stringify(query)}. Try other words for what you want to do, or a server's name (${serverNames(d)}).`,
    );
  for (const h of hits) {
    if (!d.visible.has(h.tool.name)) {
      d.visible.add(h.tool.name);
      d.sent.push(h.tool);
    }
    usedFound(d, h.tool.name);
  }
  const dropped = dropOldest(d);
  const note = dropped.length
    ? `\n\nUnloaded to keep at most ${MAX_FOUND} found tools (find them again to call them): ${dropped.join(', ')}.`
    : '';
  return { content: `${printHits(hits)}${note}`, isError: false };
}

/** A found tool was found again or called: it is the last to be let go. */
export function usedFound(d: DeferredTools, name: string): void {
  const i = d.found.indexOf(name);
  if (i >= 0) d.found.splice(i, 1);
  if (d.tools.has(name)) d.found.push(name);
}

/** Lets go of the found tools past MAX_FOUND, the least recently used first; their names. */
function dropOldest(d: DeferredTools): string[] {
  const dropped = d.found.splice(0, Math.max(0, d.found.length - MAX_FOUND));
  for (const name of dropped) {
    d.visible.delete(name);
    const i = d.sent.findIndex((t) => t.name === name);
    if (i >= 0) d.sent.splice(i, 1);
  }
  return dropped;
}

const serverNames = (d: DeferredTools) =>
  [...new Set([...d.tools.keys()].map((n) => /^mcp__(.+?)__/.exec(n)?.[1] ?? n))].join(', ');

/** The matches as the model reads them: each tool's name, description and input schema. */
export function printHits(hits: readonly Hit<ToolDefinition>[]): string {
  const head = `${hits.length} tool${hits.length === 1 ? '' : 's'} found; ${hits.length === 1 ? 'it' : 'they'} can be called from now on:`;
  const body = hits.map(
    ({ tool }) => `\n## ${tool.name}\n${tool.description}\nInput schema: ${JSON.stringify(tool.inputSchema)}`,
  );
  return [head, ...body].join('\n');
}

/** The answer to a call of a deferred tool the run has not found yet: what to do instead. */
export function notFoundYet(name: string): ToolResult {
  return fail(
    'unknown_tool',
    `${name} is not loaded yet: its definition was deferred to save context. Call tool_search with {"query": ${JSON.stringify(name)}} first; ` +
      'it answers the definition, and from then on the tool can be called.',
  );
}
