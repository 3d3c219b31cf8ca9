/**
 * The one-shot agent run from the command line. `--output-format text` (the default): the answer
 * streams to stdout; tool activity goes to stderr as `● tool(argument preview)` and `⎿ result preview`,
 * each result labelled with its call unless it directly follows it, in call order; retries, trimmed
 * context and token totals go to stderr too. `json` (or `--json`) prints one object at the end; `stream-json`
 * prints one JSON event per line as it happens (lib/agent/output.ts). Exit 0 when the run ends with
 * an answer, 1 when it stops on a model or tool failure, a cut or empty answer, 130 on Ctrl-C.
 */

import { type AgentEvent, runAgent } from '../agent/loop.ts';
import { type ActivityLog, activityLog, streamJsonEvent, usageLine } from '../agent/output.ts';
import { chooseModel, makeProvider, type ProviderName } from '../llm/providers.ts';
import type { Runtime } from '../runtime/runtime.ts';
import { UsageError } from './args.ts';

const OUTPUT_FORMATS = ['text', 'json', 'stream-json'] as const;
type OutputFormat = (typeof OUTPUT_FORMATS)[number];

/** --output-format, with --json as the old spelling of `json`. */
export function outputFormat(flag: string | undefined, json: boolean | undefined): OutputFormat {
  if (flag === undefined) return json ? 'json' : 'text';
  if (!(OUTPUT_FORMATS as readonly string[]).includes(flag))
    throw new UsageError(`--output-format must be one of ${OUTPUT_FORMATS.join(', ')}, not "${flag}".`);
  return flag as OutputFormat;
}

interface AgentCli {
  task: string;
  provider: ProviderName;
  model?: string;
  baseURL?: string;
  maxTurns?: number;
  format: OutputFormat;
  /** Aborted when the run must stop (a signal to the CLI): the model stream and the running tools end. */
  signal: AbortSignal;
}

export async function runAgentCli(runtime: Runtime, o: AgentCli): Promise<number> {
  const made = makeProvider({
    provider: o.provider,
    ...(o.baseURL !== undefined ? { baseURL: o.baseURL, baseURLName: '--base-url' } : {}),
  });
  if (!made.ok) throw new UsageError(made.error);
  const model = chooseModel(o.provider, { flag: o.model, settings: runtime.model });
  const out = (s: string) => process.stdout.write(s);
  const err = (s: string) => process.stderr.write(s);
  let log: ActivityLog | undefined;
  let onEvent: (e: AgentEvent) => void;
  if (o.format === 'stream-json') {
    out(`${JSON.stringify({ type: 'start', provider: o.provider, model, url: made.value.url })}\n`);
    onEvent = (e) => out(`${JSON.stringify(streamJsonEvent(e))}\n`);
  } else if (o.format === 'json') onEvent = () => {};
  else {
    log = activityLog(out, err, { live: process.stderr.isTTY === true });
    onEvent = log.onEvent;
  }
  const r = await runAgent({
    task: o.task,
    provider: made.value,
    model,
    runtime,
    signal: o.signal,
    onEvent,
    ...(o.maxTurns ? { maxTurns: o.maxTurns } : {}),
  });
  if (o.format === 'json')
    out(
      `${JSON.stringify({ ok: r.ok, reason: r.reason, answer: r.answer, error: r.error, turns: r.turns, usage: { input_tokens: r.usage.input, output_tokens: r.usage.output }, transcript: r.transcript }, null, 2)}\n`,
    );
  log?.end();
  // The totals end the run's output, after its error if it failed.
  if (!r.ok && r.reason !== 'cancelled') err(`mewcode: ${r.error ?? r.reason}\n`);
  if (log) err(`${usageLine(r.turns, r.usage)}\n`);
  if (r.reason === 'cancelled') return 130;
  return r.ok ? 0 : 1;
}
