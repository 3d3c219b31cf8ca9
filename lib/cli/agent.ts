/**
 * The one-shot agent run from the command line: the answer streams to stdout, tool activity goes to
 * stderr as `● tool(argument preview)` with a short result preview, `--json` prints the transcript.
 * Exit 0 when the run ends with an answer, 1 when it stops on a model or tool failure, 130 on Ctrl-C
 * (the caller's `signal`, aborted by lib/cli/signals.ts).
 */

import { type AgentEvent, runAgent } from '../agent/loop.ts';
import { escapeControl } from '../core/text.ts';
import type { ToolResult } from '../core/tool.ts';
import { DEFAULT_MODELS, makeProvider, type ProviderName } from '../llm/providers.ts';
import type { Runtime } from '../runtime.ts';
import { UsageError } from './args.ts';

export interface AgentCli {
  task: string;
  provider: ProviderName;
  model?: string;
  baseURL?: string;
  maxTurns?: number;
  json: boolean;
  /** Aborted when the run must stop (a signal to the CLI): the model stream and the running tools end. */
  signal: AbortSignal;
}

export async function runAgentCli(runtime: Runtime, o: AgentCli): Promise<number> {
  const made = makeProvider({ provider: o.provider, ...(o.baseURL ? { baseURL: o.baseURL } : {}) });
  if (!made.ok) throw new UsageError(made.error);
  let endedWithText = true;
  const onEvent = (e: AgentEvent) => {
    if (o.json) return;
    const indent = '  '.repeat(e.depth);
    if (e.type === 'text' && e.depth === 0) {
      process.stdout.write(e.delta);
      endedWithText = e.delta.endsWith('\n');
    } else if (e.type === 'tool_start') {
      if (!endedWithText) process.stdout.write('\n');
      endedWithText = true;
      process.stderr.write(`${indent}● ${e.name}(${preview(e.name, e.input)})\n`);
    } else if (e.type === 'tool_end') {
      process.stderr.write(`${indent}  ⎿ ${resultPreview(e.result)}\n`);
    }
  };
  const r = await runAgent({
    task: o.task,
    provider: made.value,
    model: o.model ?? DEFAULT_MODELS[o.provider],
    runtime,
    signal: o.signal,
    onEvent,
    ...(o.maxTurns ? { maxTurns: o.maxTurns } : {}),
  });
  if (o.json)
    process.stdout.write(
      `${JSON.stringify({ ok: r.ok, reason: r.reason, answer: r.answer, error: r.error, turns: r.turns, transcript: r.transcript }, null, 2)}\n`,
    );
  else if (!endedWithText) process.stdout.write('\n');
  if (r.reason === 'cancelled') return 130;
  if (!r.ok) {
    process.stderr.write(`mewcode: ${r.error ?? r.reason}\n`);
    return 1;
  }
  return 0;
}

function preview(tool: string, input: unknown): string {
  const a = (input ?? {}) as Record<string, unknown>;
  const main = a.description ?? a.file_path ?? a.pattern ?? a.command ?? a.prompt ?? a.path;
  const text = typeof main === 'string' ? main : JSON.stringify(input);
  const short = text.length > 80 ? `${text.slice(0, 80)}…` : text;
  return escapeControl(tool === 'bash' && typeof a.description === 'string' ? a.description : short);
}

function resultPreview(r: ToolResult): string {
  const first = r.content.split('\n').find((l) => l.trim() !== '') ?? '';
  const lines = r.content.split('\n').length;
  const head = escapeControl(first.length > 100 ? `${first.slice(0, 100)}…` : first);
  return `${r.isError ? `error (${r.code}): ` : ''}${head}${lines > 1 ? ` (+${lines - 1} lines)` : ''}`;
}
