/**
 * What tool search saves and how well it finds (docs/agent.md, "Tool search"):
 *
 *   node --import tsx bench/tool_search.ts [--model claude-sonnet-4-5]
 *
 * Two real MCP servers (the SDK's, over stdio) serve the 300 generated tools of
 * bench/tool_search_data.ts; the runtime connects them as the CLI does. An agent run's tool list is
 * measured as each request carries it — every tool (tool search off), deferred (the built-ins and
 * tool_search), and deferred after one search found five — in the budget's estimate and in each
 * wire's JSON. Then recall@5 of the 60 queries (and of 20 held-out ones) through the run's own index,
 * with the ranker's parts turned off one by one. Prints a table, then the JSON.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { estimateTokens } from '../lib/agent/context_budget.ts';
import { startRun } from '../lib/agent/run_state.ts';
import { type IndexOptions, type Searchable, toolIndex } from '../lib/agent/tool_index.ts';
import { runToolSearch } from '../lib/agent/tool_search.ts';
import type { AgentOptions } from '../lib/agent/types.ts';
import type { ToolDefinition } from '../lib/core/registry.ts';
import { toAnthropicTools } from '../lib/llm/anthropic.ts';
import { toOpenAITools } from '../lib/llm/openai.ts';
import { makeProvider } from '../lib/llm/providers.ts';
import { connectMcpServer } from '../lib/mcp/client.ts';
import { createRuntime } from '../lib/runtime/runtime.ts';
import { fullName, HELD_OUT, QUERIES, SERVERS, type SearchQuery } from './tool_search_data.ts';

const { values } = parseArgs({ options: { model: { type: 'string' } } });
const model = values.model ?? 'claude-sonnet-4-5';
const TSX = import.meta.resolve('tsx');
const FIXTURE = path.resolve(import.meta.dirname, '../test/fixtures/mcp_many.ts');

const root = mkdtempSync(path.join(tmpdir(), 'mewcode-tool-search-bench-'));
const made = createRuntime({ root, home: null, workers: 0 });
if (!made.ok) throw new Error(made.error);
const rt = made.value;
const connections = await Promise.all(
  SERVERS.map((s) =>
    connectMcpServer(rt, s, {
      command: process.execPath,
      args: ['--import', TSX, FIXTURE, s],
      trustReadOnlyHints: true,
    }),
  ),
);
// Never called: the run is only started to see the tools its requests would carry.
const madeProvider = makeProvider({ provider: 'anthropic', apiKey: 'unused' });
if (!madeProvider.ok) throw new Error(madeProvider.error);
const provider = madeProvider.value;

async function toolsSent(toolSearch: AgentOptions['toolSearch'], search?: string) {
  const run = startRun({ task: 'bench', provider, model, runtime: rt, toolSearch }, { input: 0, output: 0 });
  if (search && run.deferred) runToolSearch({ query: search }, run.deferred);
  const tools = [...run.tools];
  await run.jobs.stop();
  return { tools, run };
}

const measure = (tools: readonly ToolDefinition[]) => ({
  tools: tools.length,
  estimate: estimateTokens(JSON.stringify(tools)),
  anthropic: estimateTokens(JSON.stringify(toAnthropicTools(tools))),
  openai: estimateTokens(JSON.stringify(toOpenAITools(tools))),
});

const before = await toolsSent(false);
const deferred = await toolsSent(undefined);
const found = await toolsSent(undefined, 'open an issue in the tracker');
const requests = {
  all: measure(before.tools),
  deferred: measure(deferred.tools),
  afterOneSearch: measure(found.tools),
};
const budget = deferred.run.budget;
const mcpTokens = estimateTokens(JSON.stringify(before.tools.filter((t) => t.name.startsWith('mcp__'))));

function recall(index: { search(q: string, n: number): { tool: Searchable }[] }, queries: readonly SearchQuery[]) {
  const misses: { query: string; top5: string[] }[] = [];
  let hits = 0;
  for (const q of queries) {
    const top5 = index.search(q.query, 5).map((h) => h.tool.name);
    if (q.want.map(fullName).some((w) => top5.includes(w))) hits++;
    else misses.push({ query: q.query, top5 });
  }
  return { hits, of: queries.length, recall: hits / queries.length, misses };
}

const runIndex = deferred.run.deferred?.index;
if (!runIndex) throw new Error('the 300 tools were not deferred');
const named = QUERIES.filter((q) => q.kind === 'exact' || q.kind === 'prefix');
const mcpDefs = before.tools.filter((t) => t.name.startsWith('mcp__'));
const variants: [string, IndexOptions][] = [
  ['BM25 on names, descriptions, parameter names', { paramDescriptions: false, synonyms: false }],
  ['+ parameter descriptions', { paramDescriptions: true, synonyms: false }],
  ['+ synonyms (the default)', {}],
];
const ranking = {
  all60: recall(runIndex, QUERIES),
  names: recall(runIndex, named),
  byKind: Object.fromEntries(
    (['exact', 'prefix', 'paraphrase', 'task'] as const).map((k) => {
      const r = recall(
        runIndex,
        QUERIES.filter((q) => q.kind === k),
      );
      return [k, `${r.hits}/${r.of}`];
    }),
  ),
  heldOut: recall(runIndex, HELD_OUT),
  variants: variants.map(([name, o]) => {
    const ix = toolIndex(mcpDefs, o);
    return {
      name,
      all60: `${recall(ix, QUERIES).hits}/60`,
      heldOut: `${recall(ix, HELD_OUT).hits}/${HELD_OUT.length}`,
    };
  }),
};

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
console.log(`Tool search: 300 MCP tools on two stdio servers; model ${model}, budget ${budget} tokens`);
console.log(`MCP definitions: ${mcpTokens} tokens (${pct(mcpTokens / budget)} of the budget)\n`);
console.log('tool list per request          tools  estimate  anthropic wire  openai wire');
for (const [name, m] of Object.entries(requests))
  console.log(
    `${name.padEnd(30)} ${String(m.tools).padStart(5)} ${String(m.estimate).padStart(9)} ${String(m.anthropic).padStart(15)} ${String(m.openai).padStart(12)}`,
  );
console.log(
  `\nrecall@5: ${ranking.all60.hits}/60 (${pct(ranking.all60.recall)}); names ${ranking.names.hits}/${ranking.names.of}; held-out ${ranking.heldOut.hits}/${ranking.heldOut.of} (${pct(ranking.heldOut.recall)})`,
);
console.log(`by kind: ${JSON.stringify(ranking.byKind)}`);
for (const v of ranking.variants) console.log(`  ${v.name.padEnd(48)} ${v.all60}  held-out ${v.heldOut}`);
for (const m of [...ranking.all60.misses, ...ranking.heldOut.misses])
  console.log(`  missed: ${JSON.stringify(m.query)} → ${m.top5.join(', ')}`);
console.log(JSON.stringify({ model, budget, mcpTokens, requests, ranking }, null, 2));

for (const c of connections) await c.close();
await rt.close();
rmSync(root, { recursive: true, force: true });
