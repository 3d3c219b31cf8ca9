/**
 * todo_write: the agent's plan, a checklist whose items are pending, in progress (one at most) or
 * completed. Each call replaces the whole plan of its owner — the agent run that made the call, or the
 * runtime for a call no run made (an MCP client, a library caller) — and answers with the plan as text
 * the model reads, what changed since the plan before, what comes next, and the items as data
 * (`meta.todos`) for the loop, which shows them and carries them across compaction. It touches no file
 * and asks no permission: read-only, on the main thread where the plans are.
 */
import * as v from 'valibot';
import { quote } from '../core/text.ts';
import { planCount, planLines, TODO_STATUSES, type TodoItem } from '../core/todos.ts';
import { defineTool, fail, ok, type ToolResult } from '../core/tool.ts';
import type { MainContext } from '../lanes/main_context.ts';

/** The most items a plan holds: a plan is a handful of steps, and it is shown whole, again and again. */
export const MAX_TODOS = 50;
/** The most characters an item says (one line: whitespace runs become one space). */
export const MAX_TODO_CHARS = 300;

const item = v.strictObject({
  content: v.pipe(
    v.string(),
    v.check((s) => s.trim() !== '', 'content is empty: each item says what to do, in a few words'),
    v.maxLength(
      MAX_TODO_CHARS,
      `content is over ${MAX_TODO_CHARS} characters: an item names one step in a line; put details in the work itself`,
    ),
    v.description('The step, in a few words in the imperative ("Add a test for the empty input")'),
  ),
  status: v.pipe(
    v.picklist(TODO_STATUSES, `status is one of ${TODO_STATUSES.join(', ')}`),
    v.description('pending (not started), in_progress (being worked on now: at most one item), or completed'),
  ),
});

export const todoWrite = defineTool({
  name: 'todo_write',
  lane: 'main',
  params: v.strictObject({
    todos: v.pipe(
      v.array(item),
      v.maxLength(MAX_TODOS, `a plan holds at most ${MAX_TODOS} items: merge small steps into larger ones`),
      v.description('The whole plan, every item with its status now; it replaces the plan before it ([] clears it)'),
    ),
  }),
  description:
    'Keeps your plan for the task: a checklist of steps, each pending, in_progress or completed, which the user sees as you work. ' +
    'Each call replaces the whole plan: send every item with its status now. Use it for work of three steps or more: write the ' +
    'plan before you start, mark an item in_progress when you begin it (one at a time), and completed as soon as it is done, not ' +
    'in batches; add the steps you discover, drop the ones no longer needed. Skip it for a single simple step. The plan is kept ' +
    'when the conversation is compacted.',
  access: () => [],
  async run(a, ctx: MainContext): Promise<ToolResult> {
    const todos: TodoItem[] = a.todos.map((t) => ({
      content: t.content.replace(/\s+/g, ' ').trim(),
      status: t.status,
    }));
    const busy = todos.filter((t) => t.status === 'in_progress');
    if (busy.length > 1)
      return fail(
        'invalid_args',
        `${busy.length} items are in_progress (${busy.map((t) => quote(t.content)).join(', ')}): at most one item is in progress at a time. ` +
          'Keep in_progress the one you are working on, mark the others pending or completed, and send the whole plan again.',
      );
    const before = ctx.plans.set(ctx.origin?.run, todos);
    return ok(answer(todos, before), { todos });
  },
});

function answer(todos: readonly TodoItem[], before: readonly TodoItem[]): string {
  if (todos.length === 0) return before.length ? 'The plan is cleared.' : 'The plan is empty.';
  const changed = changes(before, todos);
  const head = `Plan updated (${planCount(todos)}${changed ? `; since the last update: ${changed}` : ''}):`;
  return [head, ...planLines(todos), next(todos)].join('\n');
}

/** What the model should do next, by the plan. */
function next(todos: readonly TodoItem[]): string {
  const now = todos.find((t) => t.status === 'in_progress');
  const pending = todos.find((t) => t.status === 'pending');
  if (now)
    return `Now: ${quote(now.content)}. Mark it completed as soon as it is done${pending ? `, then start ${quote(pending.content)}` : ''}.`;
  if (pending) return `Next: ${quote(pending.content)}. Mark it in_progress when you start it.`;
  return 'Every item is completed.';
}

const VERBS = { completed: 'completed', in_progress: 'started', pending: 'set back to pending' } as const;

/** What changed from one plan to the next, items told apart by their words; '' when nothing did. */
function changes(before: readonly TodoItem[], after: readonly TodoItem[]): string {
  if (before.length === 0) return '';
  const left = [...before];
  const out: string[] = [];
  let added = 0;
  for (const t of after) {
    const i = left.findIndex((b) => b.content === t.content);
    const was = i < 0 ? undefined : left.splice(i, 1)[0];
    if (!was) added++;
    else if (was.status !== t.status) out.push(`${VERBS[t.status]} ${quote(t.content)}`);
  }
  if (added) out.push(`${added} added`);
  if (left.length) out.push(`${left.length} removed`);
  return out.join(', ');
}
