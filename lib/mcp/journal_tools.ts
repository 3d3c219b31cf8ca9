/**
 * The MCP server's own tools over the root's undo journal (docs/undo.md): `history` lists its
 * entries, `rewind` undoes the last change, rewinds to an entry or redoes. They are served to MCP
 * clients only, never put in the registry a model is offered: the agent's model must not silently
 * take back history the user accepted — a client (and the person behind it) decides. Both go through
 * `runtime.journal`, so a restore is the same compare-and-swap, queued in the write lane, as
 * `mewcode undo`. Main thread.
 */

import { callRecord } from '../core/call_record.ts';
import type { ErrorCode } from '../core/tool.ts';
import type { Journal } from '../history/journal.ts';
import { historyTable, rewindReport } from '../history/print.ts';
import type { Runtime } from '../runtime/runtime.ts';

export interface McpToolResult {
  [key: string]: unknown;
  content: { type: 'text'; text: string }[];
  isError: boolean;
  structuredContent?: Record<string, unknown>;
}

/** The newest entries `history` shows unless asked for more: a long-lived journal has thousands. */
const HISTORY_DEFAULT = 50;

const HISTORY = {
  name: 'history',
  description:
    "The undo journal of this root: every change MewCode's write tools made (and every undo and redo), newest last, with the files each created (A), modified (M) or deleted (D). An entry's id is what `rewind` takes as `to`.",
  inputSchema: {
    type: 'object' as const,
    properties: {
      limit: {
        type: 'integer',
        minimum: 1,
        description: `How many of the newest entries (default ${HISTORY_DEFAULT}).`,
      },
    },
    additionalProperties: false,
  },
  annotations: { readOnlyHint: true, destructiveHint: false, openWorldHint: false },
};

const REWIND = {
  name: 'rewind',
  description:
    'Take back changes recorded in the undo journal, as `mewcode undo` / `mewcode undo --to ID` / `mewcode redo` do. action "undo": the last change in effect, or with `to`, every change after entry `to` (the tree as right after it). action "redo": takes back the last undo. A file someone changed since is left untouched and listed as a conflict with its diff (the answer is not an error; `clean` is false), unless `force` (its current content is then lost).',
  inputSchema: {
    type: 'object' as const,
    properties: {
      action: { type: 'string', enum: ['undo', 'redo'], description: 'undo (optionally to an entry) or redo.' },
      to: { type: 'integer', minimum: 1, description: 'undo only: the id of the change to go back to.' },
      force: { type: 'boolean', description: 'Restore files changed since the journal saw them too.' },
    },
    required: ['action'],
    additionalProperties: false,
  },
  annotations: { readOnlyHint: false, destructiveHint: true, openWorldHint: false },
};

/** The journal tools to list: none without a journal, and no `rewind` in plan mode (it writes). */
export function journalToolList(runtime: Runtime): (typeof HISTORY | typeof REWIND)[] {
  if (!runtime.journal) return [];
  return runtime.policy.mode === 'plan' ? [HISTORY] : [HISTORY, REWIND];
}

/** Runs a journal tool; undefined when `name` is not one the server lists. */
export async function callJournalTool(
  runtime: Runtime,
  name: string,
  args: unknown,
): Promise<McpToolResult | undefined> {
  if (!journalToolList(runtime).some((t) => t.name === name)) return undefined;
  const start = { startedAt: Date.now(), started: performance.now() };
  const journal = runtime.journal as Journal;
  const a = (args ?? {}) as Record<string, unknown>;
  let r: McpToolResult;
  try {
    r = name === 'history' ? history(journal, a) : await rewind(journal, a);
  } catch (err) {
    r = failure('io', `${name} failed: ${(err as Error).message}`);
  }
  // Answered here, not by the runtime: recorded in the audit trail as its calls are (rewind changes files).
  const code = r.isError ? (r.structuredContent?.code as ErrorCode | undefined) : undefined;
  const result = { content: r.content.map((c) => c.text).join('\n'), isError: r.isError, ...(code ? { code } : {}) };
  const facts = { session: runtime.session, via: 'mcp' as const, tool: name, input: a };
  runtime.record(
    callRecord({ ...facts, ...start, stage: code === 'invalid_args' ? 'parse' : 'run', result }, performance.now()),
  );
  return r;
}

function history(journal: Journal, a: Record<string, unknown>): McpToolResult {
  const bad = unknownKeys(a, ['limit']);
  if (bad) return failure('invalid_args', bad);
  if (a.limit !== undefined && !positiveInt(a.limit))
    return failure('invalid_args', 'history: limit must be a positive integer.');
  const all = journal.list();
  const entries = all.slice(-((a.limit as number | undefined) ?? HISTORY_DEFAULT));
  const older = all.length - entries.length;
  const note = older > 0 ? `(${older} older entries not shown: pass a larger limit)\n` : '';
  return { content: [text(note + historyTable(entries))], isError: false, structuredContent: { entries, older } };
}

async function rewind(journal: Journal, a: Record<string, unknown>): Promise<McpToolResult> {
  const bad = rewindArgsError(a);
  if (bad) return failure('invalid_args', bad);
  const o = { force: a.force === true };
  const done =
    a.action === 'redo'
      ? await journal.redo(o)
      : a.to !== undefined
        ? await journal.rewind(a.to as number, o)
        : await journal.undo(o);
  // Nothing to undo or redo, an id not in effect: the request cannot be carried out; nothing changed.
  if (!done.ok) return failure('no_change', `Nothing was changed: ${done.error}.`);
  const report = rewindReport(done.value, a.action === 'redo' ? 'redo' : 'undo');
  // Conflicts are an answer, not a failure: the restore did what compare-and-swap means, and says so.
  return {
    content: [text(report.out + report.err)],
    isError: false,
    structuredContent: { ...done.value, clean: report.clean },
  };
}

function rewindArgsError(a: Record<string, unknown>): string | undefined {
  const bad = unknownKeys(a, ['action', 'to', 'force']);
  if (bad) return bad;
  if (a.action !== 'undo' && a.action !== 'redo') return 'rewind: action must be "undo" or "redo".';
  if (a.to !== undefined && !positiveInt(a.to)) return 'rewind: to must be a positive integer (an entry id).';
  if (a.to !== undefined && a.action === 'redo') return 'rewind: to goes with action "undo" only.';
  if (a.force !== undefined && typeof a.force !== 'boolean') return 'rewind: force must be a boolean.';
  return undefined;
}

function unknownKeys(a: unknown, known: readonly string[]): string | undefined {
  if (typeof a !== 'object' || a === null || Array.isArray(a)) return 'the arguments must be an object.';
  const extra = Object.keys(a).filter((k) => !known.includes(k));
  return extra.length ? `unknown argument ${extra.map((k) => JSON.stringify(k)).join(', ')}.` : undefined;
}

const positiveInt = (v: unknown) => typeof v === 'number' && Number.isInteger(v) && v >= 1;
const text = (t: string) => ({ type: 'text' as const, text: t });
const failure = (code: ErrorCode, message: string): McpToolResult => ({
  content: [text(message)],
  isError: true,
  structuredContent: { code, message },
});
