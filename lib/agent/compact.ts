/**
 * Compaction: when clearing tool results and summarizing applied inputs (context_budget.ts) is not
 * enough, the model itself summarizes the conversation so far, and the run goes on from the task, that
 * summary, its plan (todo_write) as it stood, and the most recently read files read again (up to 5
 * files of up to 5,000 tokens each, fewer when the budget is small) — the seed's compact/recovery, and
 * Claude Code's auto-compact. The summary request fits the budget too: the conversation goes to it as
 * text, oldest parts dropped first when it would not fit. Main thread.
 */
import { planLines, type TodoItem } from '../core/todos.ts';
import type { CallOrigin } from '../core/tool.ts';
import type { Message, Provider, TurnRequest } from '../llm/provider.ts';
import type { RetryNotice } from '../llm/retry.ts';
import { turnWithRetries } from '../llm/retry.ts';
import type { Runtime } from '../runtime/runtime.ts';
import { estimateTokens } from './context_budget.ts';

const RECOVER_FILES = 5;
const RECOVER_TOKENS = 5000;

const INSTRUCTION =
  'Summarize the conversation above so that the work can continue from the summary alone: the task, what was ' +
  'found, which files were read or changed and how, decisions taken, what failed, and what remains to do next. ' +
  'Be specific (paths, names, values). Answer with the summary only; call no tools.';

interface Compacted {
  transcript: Message[];
  summary: string;
  files: string[];
  usage?: { input: number; output: number };
}

export async function compact(o: {
  provider: Provider;
  model: string;
  task: string;
  transcript: readonly Message[];
  /** The run's plan (todo_write): the head carries it, so the work goes on from it. */
  todos?: readonly TodoItem[];
  runtime: Runtime;
  /** Input tokens a request may carry. */
  limit: number;
  /**
   * Tokens the next request carries beside its messages (the system prompt and the tools): the files
   * read again share only what is left, or the compacted request would not fit either.
   */
  reserved?: number;
  maxTokens: number;
  signal: AbortSignal;
  onRetry?: (n: RetryNotice) => void;
  /** The run and turn compacting: the files read again are its calls. */
  origin?: CallOrigin;
}): Promise<Compacted> {
  const system = 'You write summaries of coding-agent conversations so that the work can continue.';
  const room = o.limit - estimateTokens(system) - estimateTokens(INSTRUCTION) - 200;
  const req: TurnRequest = {
    model: o.model,
    system,
    messages: [{ role: 'user', content: `${render(o.transcript, room)}\n\n${INSTRUCTION}` }],
    tools: [],
    maxTokens: o.maxTokens,
    signal: o.signal,
  };
  const t = await turnWithRetries(o.provider, req, o.onRetry ? { onRetry: o.onRetry } : {});
  const summary = t.text.trim() || '(the model gave no summary)';
  const head = `${o.task}\n\n[The conversation so far was compacted to fit the context budget. Summary of the work until now:]\n${summary}${planPart(o.todos)}`;
  // What is left of the budget after the head, shared by the files read again.
  const left = o.limit - (o.reserved ?? 0) - estimateTokens(head);
  const perFile = Math.min(RECOVER_TOKENS, Math.floor(left / 2 / RECOVER_FILES));
  const files: string[] = [];
  let attached = '';
  for (const file of recentlyRead(o.transcript).slice(0, RECOVER_FILES)) {
    if (perFile < 50) break;
    const r = await o.runtime.call(
      'read_file',
      { file_path: file },
      { signal: o.signal, ...(o.origin ? { origin: o.origin } : {}) },
    );
    // A picture's answer is a line about an image the summary cannot carry: not read again.
    if (r.isError || r.meta?.image) continue;
    const max = perFile * 3;
    const body =
      r.content.length > max
        ? `${r.content.slice(0, max)}\n[… cut to ${perFile} tokens; read_file for the rest]`
        : r.content;
    attached += `\n\n[Recently read file, read again after compaction: ${file}]\n${body}`;
    files.push(file);
  }
  return {
    transcript: [{ role: 'user', content: head + attached }],
    summary,
    files,
    ...(t.usage ? { usage: t.usage } : {}),
  };
}

/** The plan as it stood, for the head: the model goes on from it and keeps it up to date with todo_write. */
const planPart = (todos: readonly TodoItem[] | undefined) =>
  todos?.length
    ? `\n\n[Your plan (todo_write) as it stood before compaction; go on from it, and keep it up to date with todo_write:]\n${planLines(todos).join('\n')}`
    : '';

/** The files read_file read, most recent first, each once. */
function recentlyRead(transcript: readonly Message[]): string[] {
  const out: string[] = [];
  for (let i = transcript.length - 1; i >= 0; i--) {
    const m = transcript[i];
    if (m?.role !== 'assistant') continue;
    for (const c of [...m.calls].reverse()) {
      const f = (c.input as { file_path?: unknown } | undefined)?.file_path;
      if (c.name === 'read_file' && typeof f === 'string' && !out.includes(f)) out.push(f);
    }
  }
  return out;
}

/** The conversation as text within `room` tokens: the newest parts kept whole, the oldest dropped first. */
function render(transcript: readonly Message[], room: number): string {
  const parts = transcript.map((m) => {
    if (m.role === 'user') return `USER: ${m.content}`;
    if (m.role === 'assistant')
      return `ASSISTANT: ${m.text}${m.calls.map((c) => `\n[called ${c.name} ${clip(JSON.stringify(c.input) ?? '', 2000)}]`).join('')}`;
    return m.results
      .map((r) => `[${r.name} ${r.isError ? 'failed' : 'answered'}]: ${clip(r.content, 4000)}`)
      .join('\n');
  });
  const kept: string[] = [];
  let used = 0;
  for (let i = parts.length - 1; i >= 0; i--) {
    const p = parts[i] ?? '';
    const cost = estimateTokens(p) + 1;
    if (used + cost > room) {
      const left = (room - used) * 3;
      if (left > 200) kept.unshift(`[… earlier part dropped …] ${p.slice(p.length - left + 40)}`);
      else kept.unshift('[… earlier parts of the conversation dropped to fit …]');
      break;
    }
    kept.unshift(p);
    used += cost;
  }
  return `The conversation so far:\n\n${kept.join('\n\n')}`;
}

const clip = (s: string, n: number) => (s.length > n ? `${s.slice(0, n)}… [${s.length - n} more characters]` : s);
