import { fail } from '../core/tool.ts';
import { describeProviderError, type ModelTurn, type Provider, type ToolCall, type Usage } from '../llm/provider.ts';
import { DEFAULT_MODELS, makeProvider } from '../llm/providers.ts';
import { type RetryNotice, turnWithRetries } from '../llm/retry.ts';
import { uniqueIds } from './call_ids.ts';
import { compact } from './compact.ts';
import { limitImages, requestTokens, trim } from './context_budget.ts';
import { recordLoopAnswer, runCalls } from './run_calls.ts';
import { count, finish, type Run, startRun } from './run_state.ts';
import type { AgentOptions, AgentResult } from './types.ts';

export { DEFAULT_MAX_TURNS, MAX_TOKENS } from './run_state.ts';

export type { AgentEvent, AgentOptions, AgentResult, StopReason } from './types.ts';

export async function runAgent(options: AgentOptions): Promise<AgentResult> {
  const usage: Usage = { input: 0, output: 0 };
  let provider: Provider;
  if (typeof options.provider === 'string') {
    const made = makeProvider({ provider: options.provider });
    if (!made.ok) return { ok: false, reason: 'error', answer: '', error: made.error, turns: 0, transcript: [], usage };
    provider = made.value;
  } else provider = options.provider;
  const run = startRun({ ...options, provider, model: options.model ?? DEFAULT_MODELS[provider.name] }, usage);
  try {
    return await runTurns(run);
  } finally {
    await run.jobs.stop();
  }
}

/** The run's turns, until one ends it. */
async function runTurns(run: Run): Promise<AgentResult> {
  // The task, the system prompt and the tools must fit on their own: nothing could be trimmed from them.
  if (requestTokens(run.prompt(), run.tools, run.transcript) > run.limit)
    return finish(
      run,
      'error',
      '',
      0,
      `the context budget (${run.budget} tokens) is too small for the task, the system prompt and the tools; raise MEWCODE_CONTEXT_TOKENS`,
    );
  for (let turn = 1; turn <= run.maxTurns; turn++) {
    const ended = await runTurn(run, turn);
    if (ended) return ended;
  }
  return finish(
    run,
    'max_turns',
    '',
    run.maxTurns,
    `stopped after ${run.maxTurns} turns without a final answer; raise --max-turns or split the task`,
  );
}

/** One turn: the model is asked, then its calls run. The run's result when the run ends in this turn. */
async function runTurn(run: Run, turn: number): Promise<AgentResult | undefined> {
  if (run.signal.aborted) return finish(run, 'cancelled', '', turn - 1, 'cancelled before the model was asked');
  run.emit({ type: 'turn', turn, depth: run.depth });
  const asked = await askModel(run, turn);
  if ('ended' in asked) return asked.ended;
  const t = asked.turn;
  count(run, t.usage, turn);
  const calls = uniqueIds(t.calls, run.usedIds, turn);
  const unanswered = endWithoutAnswer(run, t, calls, turn);
  if (unanswered) return unanswered;
  if (t.truncated) {
    answerCutCalls(run, t, calls, turn);
    return undefined;
  }
  run.transcript.push({ role: 'assistant', text: t.text, calls });
  if (calls.length === 0) return finish(run, 'end', t.text, turn);
  await runAndRecordCalls(run, calls, turn);
  if (run.signal.aborted) return finish(run, 'cancelled', t.text, turn, 'cancelled while tools ran');
  return breakOnUnknownTools(run, t.text, calls, turn);
}

/** Fits the transcript to the budget, then asks the model; a failure there, or a cancellation, ends the run. */
async function askModel(run: Run, turn: number): Promise<{ turn: ModelTurn } | { ended: AgentResult }> {
  const unfit = await fitContextOrEnd(run, turn);
  if (unfit) return { ended: unfit };
  forgetGoneTools(run);
  const asked = { startedAt: Date.now(), started: performance.now(), retries: 0 };
  try {
    const t = await turnWithRetries(
      run.o.provider,
      {
        model: run.o.model,
        system: run.prompt(),
        messages: run.transcript,
        tools: run.tools,
        maxTokens: run.maxTokens,
        signal: run.signal,
        onText: (delta) => run.emit({ type: 'text', delta, depth: run.depth }),
      },
      {
        onRetry: (n) => {
          asked.retries++;
          run.onRetry(n);
        },
      },
    );
    recordTurn(run, turn, asked, { stop: t.stopReason, usage: t.usage, calls: t.calls.length });
    return { turn: t };
  } catch (e) {
    const cancelled = run.signal.aborted;
    const error = cancelled ? 'cancelled while the model was answering' : describeProviderError(run.o.provider, e);
    recordTurn(run, turn, asked, { stop: cancelled ? 'cancelled' : 'error', error, calls: 0 });
    return { ended: finish(run, cancelled ? 'cancelled' : 'error', '', turn, error) };
  }
}

/**
 * An MCP server that went away (its connection closed) took its tools out of the registry: the run
 * stops offering them, found ones included, so the model is not sent tools it cannot call.
 */
function forgetGoneTools(run: Run): void {
  const gone = run.tools.filter((t) => t.name.startsWith('mcp__') && !run.o.runtime.registry.get(t.name));
  for (const t of gone) {
    run.tools.splice(run.tools.indexOf(t), 1);
    run.visible.delete(t.name);
    run.deferred?.gone.add(t.name);
  }
  if (run.deferred)
    for (const name of run.deferred.tools.keys()) if (!run.o.runtime.registry.get(name)) run.deferred.gone.add(name);
  if (gone.length)
    run.emit({
      type: 'notice',
      message: `tools: ${gone.length} tools of MCP servers no longer connected are not offered any more`,
      depth: run.depth,
    });
}

/** fitContext, its failure (a compaction request that failed or was cancelled) ending the run. */
async function fitContextOrEnd(run: Run, turn: number): Promise<AgentResult | undefined> {
  try {
    return await fitContext(run, turn);
  } catch (e) {
    if (run.signal.aborted) return finish(run, 'cancelled', '', turn, 'cancelled while the model was answering');
    return finish(run, 'error', '', turn, describeProviderError(run.o.provider, e));
  }
}

/** The audit record of one model request. */
function recordTurn(
  run: Run,
  turn: number,
  asked: { startedAt: number; started: number; retries: number },
  got: { stop: string; usage?: Usage | undefined; calls: number; error?: string; purpose?: 'compact' },
): void {
  run.o.runtime.record({
    type: 'turn',
    time: new Date(asked.startedAt).toISOString(),
    session: run.o.runtime.session,
    run: run.id,
    turn,
    depth: run.depth,
    provider: run.o.provider.name,
    model: run.o.model,
    tokens: { input: got.usage?.input ?? 0, output: got.usage?.output ?? 0 },
    retries: asked.retries,
    ms: Math.round(performance.now() - asked.started),
    stop: got.stop,
    ...(got.error ? { error: got.error } : {}),
    calls: got.calls,
    ...(got.purpose ? { purpose: got.purpose } : {}),
  });
}

/**
 * Trims older tool results and large arguments, then has the model compact the conversation if that
 * was not enough. The run's result when even the compacted request does not fit.
 */
async function fitContext(run: Run, turn: number): Promise<AgentResult | undefined> {
  const { tools, limit, budget, depth } = run;
  const dropped = limitImages(run.transcript);
  if (dropped)
    run.emit({
      type: 'notice',
      message: `context: removed ${dropped} older images to stay within the providers' limits per request`,
      depth,
    });
  const fits = () => requestTokens(run.prompt(), tools, run.transcript) <= limit;
  const size = requestTokens(run.prompt(), tools, run.transcript);
  const trimmed = size > limit ? trim(run.transcript, size - limit) : { clearedResults: 0, summarizedInputs: 0 };
  if (trimmed.clearedResults || trimmed.summarizedInputs)
    run.emit({
      type: 'notice',
      message: `context: cleared ${trimmed.clearedResults} older tool results and summarized ${trimmed.summarizedInputs} large arguments to stay within ${budget} tokens`,
      depth,
    });
  if (fits()) return undefined;
  const c = await compactRecorded(run, turn, requestTokens(run.prompt(), tools, []));
  count(run, c.usage, turn);
  run.transcript = [...c.transcript];
  run.emit({
    type: 'notice',
    message: `context: the conversation was compacted into a summary by the model${c.files.length ? `; read again: ${c.files.join(', ')}` : ''}`,
    depth,
  });
  if (fits()) return undefined;
  return finish(
    run,
    'error',
    '',
    turn,
    `the context budget (${budget} tokens) is too small for the task and the tools; raise MEWCODE_CONTEXT_TOKENS`,
  );
}

/**
 * The model summarises the conversation (compact.ts): its request is a turn record of its own, its
 * failure too, and the files it reads again are the run's calls. `reserved`: the tokens of the system
 * prompt and the tools, which the compacted request carries beside its messages.
 */
async function compactRecorded(run: Run, turn: number, reserved: number) {
  const { o, limit, maxTokens, signal, onRetry } = run;
  const asked = { startedAt: Date.now(), started: performance.now(), retries: 0 };
  const retried = (n: RetryNotice) => {
    asked.retries++;
    onRetry(n);
  };
  const origin = { run: run.id, turn };
  try {
    const c = await compact({
      ...o,
      transcript: run.transcript,
      todos: run.todos,
      limit,
      reserved,
      maxTokens,
      signal,
      onRetry: retried,
      origin,
    });
    recordTurn(run, turn, asked, { stop: 'compacted', usage: c.usage, calls: 0, purpose: 'compact' });
    return c;
  } catch (e) {
    const cancelled = signal.aborted;
    const error = cancelled ? 'cancelled while the model was answering' : describeProviderError(o.provider, e);
    recordTurn(run, turn, asked, { stop: cancelled ? 'cancelled' : 'error', error, calls: 0, purpose: 'compact' });
    throw e;
  }
}

/** A turn without calls that was cut off or is empty ends the run: there is no whole answer to give. */
function endWithoutAnswer(run: Run, t: ModelTurn, calls: ToolCall[], turn: number): AgentResult | undefined {
  if (t.truncated && calls.length === 0)
    return finish(
      run,
      'truncated',
      t.text,
      turn,
      `the answer was cut off by the output limit (${run.maxTokens} tokens): it is incomplete. Ask for a shorter answer, or split the task.`,
    );
  if (calls.length === 0 && !t.text.trim())
    return finish(
      run,
      'empty',
      '',
      turn,
      `the model answered with an empty message (stop reason: ${t.stopReason}); there is no answer. Run the task again or rephrase it.`,
    );
  return undefined;
}

/**
 * The arguments of a cut turn are incomplete: running them would act on half a call, so each call is
 * answered with an error saying why it was not run.
 */
function answerCutCalls(run: Run, t: ModelTurn, calls: ToolCall[], turn: number): void {
  const { maxTokens } = run;
  run.emit({
    type: 'notice',
    message: `the model's turn was cut off by the output limit (${maxTokens} tokens): its ${calls.length} tool call${calls.length === 1 ? ' was' : 's were'} not run`,
    depth: run.depth,
  });
  run.transcript.push({
    role: 'assistant',
    text: t.text,
    calls: calls.map((c) => ({ ...c, input: {}, badJson: undefined })),
  });
  run.transcript.push({
    role: 'tool_results',
    results: calls.map((c) => ({ id: c.id, name: c.name, content: cutCall(c.name, maxTokens), isError: true })),
  });
  const start = { startedAt: Date.now(), started: performance.now() };
  const env = { runtime: run.o.runtime, origin: { run: run.id, turn } };
  for (const c of calls) recordLoopAnswer(env, c, start, 'parse', fail('invalid_args', cutCall(c.name, maxTokens)));
}

/** Runs the turn's calls and records their answers, pinning the skills they loaded and keeping the plan they wrote. */
async function runAndRecordCalls(run: Run, calls: ToolCall[], turn: number): Promise<void> {
  const { o, depth, visible, signal, emit, deferred } = run;
  const origin = { run: run.id, turn };
  const results = await runCalls(calls, { ...o, depth, visible, signal, emit, runAgent, origin, deferred });
  for (const r of results) {
    const skill = r?.meta?.skill;
    if (skill && !run.activeSkills.some((s) => s.name === skill.name)) run.activeSkills.push(skill);
    if (r?.meta?.todos && !r.isError) {
      run.todos = r.meta.todos;
      run.emit({ type: 'todo', todos: run.todos, depth });
    }
    // A sub-agent's tokens count toward the run's totals.
    count(run, r?.meta?.usage, turn);
  }
  run.jobs.started(results);
  // Jobs that ended meanwhile are told after the last result: both wires carry it, in the next request.
  const ended = run.jobs.endedLines();
  run.transcript.push({
    role: 'tool_results',
    results: calls.map((c, i) => ({
      id: c.id,
      name: c.name,
      content: `${results[i]?.content ?? ''}${i === calls.length - 1 && ended.length ? `\n${ended.join('\n')}` : ''}`,
      isError: results[i]?.isError ?? true,
      ...(results[i]?.images?.length ? { images: results[i]?.images } : {}),
    })),
  });
}

/** Stops a run whose model keeps calling only tools that do not exist (breakerAt turns in a row). */
function breakOnUnknownTools(run: Run, text: string, calls: ToolCall[], turn: number): AgentResult | undefined {
  run.unknownStreak = calls.every((c) => !run.visible.has(c.name)) ? run.unknownStreak + 1 : 0;
  if (run.unknownStreak < run.breakerAt) return undefined;
  return finish(
    run,
    'unknown_tools',
    text,
    turn,
    `stopped: ${run.breakerAt} turns in a row called only tools that do not exist (${[...new Set(calls.map((c) => c.name))].join(', ')})`,
  );
}

const cutCall = (name: string, maxTokens: number) =>
  `This ${name} call was cut off by the output limit (${maxTokens} output tokens) before its arguments were complete, so it was NOT run. ` +
  'Split the work into smaller calls: write a large file in parts (write_file with the first part, then edit_file or apply_patch to add the rest), and keep each call well under the limit.';
