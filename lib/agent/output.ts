/**
 * How an agent run shows itself on the command line. `activityLog` is the text form: the answer to
 * stdout, tool activity to stderr — `● tool(argument preview)` when a call starts, `⎿ result preview`
 * when it ends, in call order (a result that finishes early waits for the ones before it), labelled
 * with its call unless it directly follows its own start line; the plan (todo_write) as a checklist
 * each time it changes. `streamJsonEvent` is the
 * `--output-format stream-json` form: one JSON object per line, as Claude Code's stream-json and
 * `codex exec --json` print. Main thread.
 */
import { escapeControl } from '../core/text.ts';
import { BOX_MARKS, planLines } from '../core/todos.ts';
import type { ToolResult } from '../core/tool.ts';
import type { Usage } from '../llm/provider.ts';
import type { AgentEvent } from './types.ts';

export interface ActivityLog {
  onEvent(e: AgentEvent): void;
  /** Ends the answer's last line. */
  end(): void;
}

interface Pending {
  id: string;
  label: string;
  done?: string;
  /** A change's diff, shown below its result line. */
  diff?: string[];
}

interface LogOptions {
  /**
   * stderr is a terminal: while a request waits for the model's first word, a status line says so
   * (`… waiting for the model`), erased by whatever comes next. Never in a pipe or a file.
   */
  live?: boolean;
}

/** How many lines of a change's diff the log shows. */
export const DIFF_LINES = 20;

export function activityLog(out: (s: string) => void, err: (s: string) => void, o: LogOptions = {}): ActivityLog {
  let endedWithText = true;
  /** The call whose start line is the last line on stderr: its result needs no label. */
  let lastStart: string | undefined;
  let waiting = false;
  const pending = new Map<number, Pending[]>();
  const unwait = () => {
    if (waiting) err('\r\u001b[K');
    waiting = false;
  };
  const wait = (indent: string) => {
    if (!o.live) return;
    unwait();
    err(`${indent}… waiting for the model`);
    waiting = true;
  };
  const breakText = () => {
    unwait();
    if (!endedWithText) out('\n');
    endedWithText = true;
  };
  const line = (s: string) => {
    unwait();
    err(`${s}\n`);
    lastStart = undefined;
  };
  const flush = (depth: number) => {
    const queue = pending.get(depth) ?? [];
    const indent = '  '.repeat(depth);
    while (queue[0]?.done !== undefined) {
      const c = queue.shift() as Pending;
      line(`${indent}  ⎿ ${lastStart === c.id ? '' : `${c.label}: `}${c.done}`);
      for (const d of c.diff ?? []) line(`${indent}      ${d}`);
    }
  };
  return {
    onEvent(e) {
      const indent = '  '.repeat(e.depth);
      if (e.type === 'turn') wait(indent);
      else if (e.type === 'text' && e.depth === 0) {
        unwait();
        out(e.delta);
        endedWithText = e.delta.endsWith('\n');
      } else if (e.type === 'tool_start') {
        breakText();
        const label = `${e.name}(${preview(e.name, e.input)})`;
        const queue = pending.get(e.depth) ?? [];
        queue.push({ id: e.id, label });
        pending.set(e.depth, queue);
        line(`${indent}● ${label}`);
        lastStart = e.id;
      } else if (e.type === 'tool_end') {
        const c = pending.get(e.depth)?.find((p) => p.id === e.id);
        if (c) {
          c.done = resultPreview(e.result);
          const diff = e.result.isError ? undefined : diffPreview(e.result.meta?.diff);
          if (diff) c.diff = diff;
        }
        flush(e.depth);
      } else if (e.type === 'retry') {
        breakText();
        const n = e.notice;
        line(
          `mewcode: retrying in ${seconds(n.delayMs)} (${n.why}, attempt ${n.attempt} of ${n.of})${n.discarded ? '; the partial answer above is discarded' : ''}`,
        );
        wait(indent);
      } else if (e.type === 'notice') {
        breakText();
        line(`${indent}mewcode: ${e.message}`);
      } else if (e.type === 'job') {
        breakText();
        line(`${indent}mewcode: background job ${e.id} (${oneLine(e.command, 60)}): ${e.state}`);
      } else if (e.type === 'todo') {
        breakText();
        if (e.todos.length === 0) line(`${indent}    (the plan is empty)`);
        for (const l of planLines(e.todos, BOX_MARKS)) line(`${indent}    ${oneLine(l, 160)}`);
      }
    },
    end: breakText,
  };
}

const seconds = (ms: number) => (ms >= 10_000 ? `${Math.round(ms / 1000)} s` : `${(ms / 1000).toFixed(1)} s`);

/** "3 turns, 1,234 input tokens, 567 output tokens". */
export function usageLine(turns: number, u: Usage): string {
  const n = (x: number) => x.toLocaleString('en-US');
  return `mewcode: ${turns} turn${turns === 1 ? '' : 's'}, ${n(u.input)} input tokens, ${n(u.output)} output tokens`;
}

/** The argument that says most about a call, on one line. */
export function preview(tool: string, input: unknown): string {
  const a = (input ?? {}) as Record<string, unknown>;
  // The plan itself is shown as a checklist when it changes (the `todo` event): here only its size.
  if (tool === 'todo_write' && Array.isArray(a.todos))
    return `${a.todos.length} item${a.todos.length === 1 ? '' : 's'}`;
  const main =
    tool === 'bash' && typeof a.description === 'string'
      ? a.description
      : (a.file_path ?? a.pattern ?? a.command ?? a.prompt ?? a.path ?? a.description);
  const text = typeof main === 'string' ? main : (JSON.stringify(input) ?? '');
  return oneLine(text, 80);
}

/** Tabs as spaces, the rest escaped, clipped: a preview never shows a literal `\t`. */
const oneLine = (s: string, n: number) => {
  const flat = s.replace(/\t/g, ' ');
  return escapeControl(flat.length > n ? `${flat.slice(0, n)}…` : flat);
};

function resultPreview(r: ToolResult): string {
  const lines = r.content.split('\n');
  const first = (lines.find((l) => l.trim() !== '') ?? '').trimStart();
  let head = oneLine(first, 100);
  // A denied call keeps the flags that would grant it, which the policy's decision names.
  const grants = r.code === 'permission_denied' ? (r.meta?.policy?.grants ?? []) : [];
  const missing = grants.filter((f) => !head.includes(f));
  if (missing.length) head += ` (run again with ${missing.join(' ')})`;
  return `${r.isError ? `error (${r.code}): ` : ''}${head}${lines.length > 1 ? ` (+${lines.length - 1} line${lines.length === 2 ? '' : 's'})` : ''}`;
}

/**
 * A change's diff as the log shows it: the hunks without the `---`/`+++` file header (the call's
 * line names the file; apply_patch's `A`/`M` lines stay), each line escaped and clipped, at most
 * DIFF_LINES of them, then how many more there are.
 */
function diffPreview(diff: string | undefined): string[] | undefined {
  if (!diff) return undefined;
  const all = diff.replace(/\n$/, '').split('\n');
  // A file header is `--- a/x`, `+++ b/x` right before a hunk; a removed line may look like one alone.
  const header = (i: number) =>
    all[i]?.startsWith('--- a/') && all[i + 1]?.startsWith('+++ b/') && all[i + 2]?.startsWith('@@ ');
  const lines = all.filter((_, i) => !header(i) && !header(i - 1));
  const shown = lines.slice(0, DIFF_LINES).map((l) => oneLine(l, 160));
  if (lines.length > DIFF_LINES) shown.push(`… ${lines.length - DIFF_LINES} more lines of the diff`);
  return shown;
}

/** One `--output-format stream-json` line. */
export function streamJsonEvent(e: AgentEvent): Record<string, unknown> {
  const depth = e.depth;
  switch (e.type) {
    case 'turn':
      return { type: 'turn_start', turn: e.turn, depth };
    case 'text':
      return { type: 'text_delta', text: e.delta, depth };
    case 'tool_start':
      return { type: 'tool_start', id: e.id, name: e.name, input: e.input, depth };
    case 'tool_end':
      return {
        type: 'tool_end',
        id: e.id,
        name: e.name,
        is_error: e.result.isError,
        ...(e.result.code ? { code: e.result.code } : {}),
        content: e.result.content,
        depth,
      };
    case 'usage':
      return {
        type: 'usage',
        turn: e.turn,
        input_tokens: e.usage.input,
        output_tokens: e.usage.output,
        total_input_tokens: e.total.input,
        total_output_tokens: e.total.output,
        depth,
      };
    case 'retry':
      return {
        type: 'retry',
        attempt: e.notice.attempt,
        of: e.notice.of,
        delay_ms: e.notice.delayMs,
        why: e.notice.why,
        message: e.notice.message,
        discarded: e.notice.discarded,
        depth,
      };
    case 'notice':
      return { type: 'notice', message: e.message, depth };
    case 'job':
      return { type: 'job', id: e.id, command: e.command, state: e.state, depth };
    case 'todo':
      return { type: 'todo', todos: e.todos.map((t) => ({ content: t.content, status: t.status })), depth };
    case 'done':
      return {
        type: depth === 0 ? 'result' : 'subagent_result',
        ok: e.reason === 'end',
        reason: e.reason,
        answer: e.answer,
        ...(e.error ? { error: e.error } : {}),
        turns: e.turns,
        usage: { input_tokens: e.usage.input, output_tokens: e.usage.output },
        depth,
      };
  }
}
