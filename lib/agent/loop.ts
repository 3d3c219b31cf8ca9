import type { ToolDefinition } from '../core/registry.ts';
import { describeProviderError, type Message, type Provider, type Usage } from '../llm/provider.ts';
import { DEFAULT_MODELS, makeProvider } from '../llm/providers.ts';
import { type RetryNotice, turnWithRetries } from '../llm/retry.ts';
import { agentTool } from './agent_tool.ts';
import { uniqueIds } from './call_ids.ts';
import { compact } from './compact.ts';
import { contextBudget, requestTokens, trim } from './context_budget.ts';
import { subAgentTools } from './filter.ts';
import { runCalls, toDef } from './run_calls.ts';
import { systemPrompt } from './system_prompt.ts';
import type { AgentEvent, AgentOptions, AgentResult, StopReason } from './types.ts';

export const DEFAULT_MAX_TURNS = 25;
export const MAX_TOKENS = 8192;

export type { AgentEvent, AgentOptions, AgentResult, StopReason } from './types.ts';

export async function runAgent(options: AgentOptions): Promise<AgentResult> {
  const usage: Usage = { input: 0, output: 0 };
  let provider: Provider;
  if (typeof options.provider === 'string') {
    const made = makeProvider({ provider: options.provider });
    if (!made.ok) return { ok: false, reason: 'error', answer: '', error: made.error, turns: 0, transcript: [], usage };
    provider = made.value;
  } else provider = options.provider;
  const o = { ...options, provider, model: options.model ?? DEFAULT_MODELS[provider.name] };
  const depth = o.depth ?? 0;
  const emit = (e: AgentEvent) => o.onEvent?.(e);
  const signal = o.signal ?? new AbortController().signal;
  const maxTurns = o.maxTurns ?? DEFAULT_MAX_TURNS;
  const breakerAt = depth === 0 ? 3 : 2;
  const rt = o.runtime;
  const base: ToolDefinition[] =
    rt.policy.mode === 'plan' ? rt.registry.readOnlyDefinitions() : rt.registry.definitions();
  // Sub-agents never get `agent`; the top level gets it outside plan mode.
  const withAgent = depth === 0 && rt.policy.mode !== 'plan' ? [...base, toDef(agentTool)] : base;
  const tools = o.filter ? subAgentTools(withAgent, o.filter) : withAgent;
  const visible = new Set(tools.map((t) => t.name));
  // Skills loaded with load_skill stay pinned in the system prompt for the following turns.
  const activeSkills: { name: string; body: string }[] = [];
  const catalog = rt.skills.list().map((s) => `${s.name}: ${s.description}`);
  const prompt = () => systemPrompt({ root: rt.root, mode: rt.policy.mode, skills: catalog, activeSkills });
  // The budget covers the request and the answer: the answer's share is reserved out of it.
  const budget = o.contextTokens ?? contextBudget(o.model);
  const maxTokens = Math.min(MAX_TOKENS, Math.floor(budget / 4));
  const limit = budget - maxTokens;
  let transcript: Message[] = [{ role: 'user', content: o.task }];
  const usedIds = new Set<string>();
  let unknownStreak = 0;
  const onRetry = (notice: RetryNotice) => emit({ type: 'retry', notice, depth });
  const count = (u: Usage | undefined, turn: number) => {
    if (!u) return;
    usage.input += u.input;
    usage.output += u.output;
    emit({ type: 'usage', turn, usage: u, total: { ...usage }, depth });
  };
  const finish = (reason: StopReason, answer: string, turns: number, error?: string): AgentResult => {
    emit({ type: 'done', reason, answer, ...(error ? { error } : {}), usage: { ...usage }, turns, depth });
    return { ok: reason === 'end', reason, answer, ...(error ? { error } : {}), turns, transcript, usage };
  };

  // The task, the system prompt and the tools must fit on their own: nothing could be trimmed from them.
  if (requestTokens(prompt(), tools, transcript) > limit)
    return finish(
      'error',
      '',
      0,
      `the context budget (${budget} tokens) is too small for the task, the system prompt and the tools; raise MEWCODE_CONTEXT_TOKENS`,
    );
  for (let turn = 1; turn <= maxTurns; turn++) {
    if (signal.aborted) return finish('cancelled', '', turn - 1, 'cancelled before the model was asked');
    emit({ type: 'turn', turn, depth });
    let t: Awaited<ReturnType<Provider['turn']>>;
    try {
      const fits = () => requestTokens(prompt(), tools, transcript) <= limit;
      const size = requestTokens(prompt(), tools, transcript);
      const trimmed = size > limit ? trim(transcript, size - limit) : { clearedResults: 0, summarizedInputs: 0 };
      if (trimmed.clearedResults || trimmed.summarizedInputs)
        emit({
          type: 'notice',
          message: `context: cleared ${trimmed.clearedResults} older tool results and summarized ${trimmed.summarizedInputs} large arguments to stay within ${budget} tokens`,
          depth,
        });
      if (!fits()) {
        const c = await compact({ ...o, transcript, limit, maxTokens, signal, onRetry });
        count(c.usage, turn);
        transcript = [...c.transcript];
        emit({
          type: 'notice',
          message: `context: the conversation was compacted into a summary by the model${c.files.length ? `; read again: ${c.files.join(', ')}` : ''}`,
          depth,
        });
        if (!fits())
          return finish(
            'error',
            '',
            turn,
            `the context budget (${budget} tokens) is too small for the task and the tools; raise MEWCODE_CONTEXT_TOKENS`,
          );
      }
      t = await turnWithRetries(
        o.provider,
        {
          model: o.model,
          system: prompt(),
          messages: transcript,
          tools,
          maxTokens,
          signal,
          onText: (delta) => emit({ type: 'text', delta, depth }),
        },
        { onRetry },
      );
    } catch (e) {
      if (signal.aborted) return finish('cancelled', '', turn, 'cancelled while the model was answering');
      return finish('error', '', turn, describeProviderError(o.provider, e));
    }
    count(t.usage, turn);
    const calls = uniqueIds(t.calls, usedIds, turn);
    if (t.truncated && calls.length === 0)
      return finish(
        'truncated',
        t.text,
        turn,
        `the answer was cut off by the output limit (${maxTokens} tokens): it is incomplete. Ask for a shorter answer, or split the task.`,
      );
    if (calls.length === 0 && !t.text.trim())
      return finish(
        'empty',
        '',
        turn,
        `the model answered with an empty message (stop reason: ${t.stopReason}); there is no answer. Run the task again or rephrase it.`,
      );
    if (t.truncated) {
      // The arguments of a cut turn are incomplete: running them would act on half a call.
      emit({
        type: 'notice',
        message: `the model's turn was cut off by the output limit (${maxTokens} tokens): its ${calls.length} tool call${calls.length === 1 ? ' was' : 's were'} not run`,
        depth,
      });
      transcript.push({
        role: 'assistant',
        text: t.text,
        calls: calls.map((c) => ({ ...c, input: {}, badJson: undefined })),
      });
      transcript.push({
        role: 'tool_results',
        results: calls.map((c) => ({ id: c.id, name: c.name, content: cutCall(c.name, maxTokens), isError: true })),
      });
      continue;
    }
    transcript.push({ role: 'assistant', text: t.text, calls });
    if (calls.length === 0) return finish('end', t.text, turn);
    const results = await runCalls(calls, { ...o, depth, visible, signal, emit, runAgent });
    for (const r of results) {
      const skill = r?.meta?.skill as { name: string; body: string } | undefined;
      if (skill && !activeSkills.some((s) => s.name === skill.name)) activeSkills.push(skill);
      // A sub-agent's tokens count toward the run's totals.
      count(r?.meta?.usage as Usage | undefined, turn);
    }
    transcript.push({
      role: 'tool_results',
      results: calls.map((c, i) => ({
        id: c.id,
        name: c.name,
        content: results[i]?.content ?? '',
        isError: results[i]?.isError ?? true,
      })),
    });
    if (signal.aborted) return finish('cancelled', t.text, turn, 'cancelled while tools ran');
    unknownStreak = calls.every((c) => !visible.has(c.name)) ? unknownStreak + 1 : 0;
    if (unknownStreak >= breakerAt) {
      return finish(
        'unknown_tools',
        t.text,
        turn,
        `stopped: ${breakerAt} turns in a row called only tools that do not exist (${[...new Set(calls.map((c) => c.name))].join(', ')})`,
      );
    }
  }
  return finish(
    'max_turns',
    '',
    maxTurns,
    `stopped after ${maxTurns} turns without a final answer; raise --max-turns or split the task`,
  );
}

const cutCall = (name: string, maxTokens: number) =>
  `This ${name} call was cut off by the output limit (${maxTokens} output tokens) before its arguments were complete, so it was NOT run. ` +
  'Split the work into smaller calls: write a large file in parts (write_file with the first part, then edit_file or apply_patch to add the rest), and keep each call well under the limit.';
