/**
 * The agent's plan as todo_write keeps it: its items (plain JSON, so a result carries them anywhere),
 * and the plan as lines with a mark per status, for whoever shows it — the tool's answer and the
 * compacted conversation in ASCII, the CLI's progress with boxes. Shared by every lane; no state.
 */

export const TODO_STATUSES = ['pending', 'in_progress', 'completed'] as const;
export type TodoStatus = (typeof TODO_STATUSES)[number];

export interface TodoItem {
  content: string;
  status: TodoStatus;
}

/** How each status is marked at the start of its line. */
export type TodoMarks = Readonly<Record<TodoStatus, string>>;

/** What a model reads: a checklist it can quote back. */
export const ASCII_MARKS: TodoMarks = { pending: '[ ]', in_progress: '[>]', completed: '[x]' };
/** What a person sees on a terminal. */
export const BOX_MARKS: TodoMarks = { pending: '☐', in_progress: '◐', completed: '☑' };

/** One line per item, its mark first. */
export const planLines = (todos: readonly TodoItem[], marks: TodoMarks = ASCII_MARKS): string[] =>
  todos.map((t) => `${marks[t.status]} ${t.content}`);

/** "2 of 5 completed". */
export function planCount(todos: readonly TodoItem[]): string {
  const done = todos.filter((t) => t.status === 'completed').length;
  return `${done} of ${todos.length} completed`;
}
