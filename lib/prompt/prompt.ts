/**
 * The approval prompt, on a terminal only: allow once (y), deny (n, or anything else), or always (A,
 * which adds an exact rule — at once, and to .mewcode/settings.local.json). What it asks about is
 * shown whole, as it will run: wrapped to the terminal's width with nothing cut, every invisible or
 * direction-changing character escaped, long runs of spaces counted (prompt_render.ts). A write shows
 * the diff it would make, its head when long (the whole diff saved to a file the prompt names). A
 * request longer than MAX_PROMPT_CHARS is denied unread: it may be hiding something. Without a
 * terminal nothing is asked: the call is denied, naming the flag that would grant it. Main thread.
 */
import { createInterface } from 'node:readline';
import { KINDS, PERMISSION_KINDS } from '../core/permission_kinds.ts';
import type { Result } from '../core/result.ts';
import type { CheckedAccess } from '../core/tool.ts';
import { DIFF_ROWS, diffHead, gutter, wrap } from './render.ts';

export const MAX_PROMPT_CHARS = 10 * 1024;

export type Answer = 'once' | 'deny' | 'always';

/** What a write would change: its diff (and how to keep the whole of it), or why there is none. */
export type PromptPreview = { note: string } | { diff: string; save(): Result<string, string> };

/** One question: the tool, every access that asks (whole, unescaped), and the change when a write can say. */
export interface PromptRequest {
  tool: string;
  asks: readonly { kind: CheckedAccess['kind']; subject: string }[];
  /** Whether "always" is offered (not when an ask rule asks: that rule would ask again). */
  always: boolean;
  /** Computed only when the question is shown. */
  preview?: () => Promise<PromptPreview>;
}

export interface Prompter {
  ask(request: PromptRequest): Promise<Answer>;
}

/** A prompter on the process's terminal, or undefined when stdin or stderr is not a terminal. */
export function terminalPrompter(
  input: NodeJS.ReadStream = process.stdin,
  output: NodeJS.WriteStream = process.stderr,
): Prompter | undefined {
  if (!input.isTTY || !output.isTTY) return undefined;
  return streamPrompter(input, output);
}

/** How many characters a request holds (what MAX_PROMPT_CHARS bounds). */
export const requestChars = (r: PromptRequest) => r.asks.reduce((n, a) => n + a.subject.length, r.tool.length);

/**
 * A prompter over any pair of streams (the terminal one, or a test's). Questions are asked one at a
 * time: a second waits until the first is answered.
 */
export function streamPrompter(input: NodeJS.ReadableStream, output: NodeJS.WritableStream): Prompter {
  let queue: Promise<unknown> = Promise.resolve();
  const ask = async (request: PromptRequest): Promise<Answer> => {
    const size = requestChars(request);
    if (size > MAX_PROMPT_CHARS) {
      output.write(
        `mewcode: denied a permission request of ${size} characters without showing it (over ${MAX_PROMPT_CHARS}).\n`,
      );
      return 'deny';
    }
    const preview = request.preview ? await request.preview() : undefined;
    output.write(`\n${render(request, preview, widthOf(output))}`);
    const line = await readLine(input);
    const a = line?.trim();
    if (a === 'y' || a === 'Y') return 'once';
    return a === 'A' && request.always ? 'always' : 'deny';
  };
  return {
    ask(request) {
      const answer = queue.then(() => ask(request));
      queue = answer.catch(() => undefined);
      return answer;
    },
  };
}

/** The terminal's width (at least 20 columns: narrower, the terminal wraps our rows itself); 80 off a terminal. */
function widthOf(output: NodeJS.WritableStream): number {
  const cols = (output as NodeJS.WriteStream).columns;
  return typeof cols === 'number' && cols > 0 ? Math.max(20, cols) : 80;
}

/** The whole question as drawn on a terminal `width` columns wide, ending with the answer prompt. */
export function render(r: PromptRequest, preview: PromptPreview | undefined, width: number): string {
  const rows: string[] = [];
  const header = (what: string) => rows.push(...wrap(`MewCode: ${r.tool} wants to ${what}:`, width, '', '  ', true));
  for (const a of r.asks) {
    if (a.kind !== 'run') continue;
    const lines = a.subject.split('\n');
    const chars = [...a.subject].length;
    header(
      `${PERMISSION_KINDS.run.ask} (${lines.length === 1 ? '' : `${lines.length} lines, `}${chars} character${chars === 1 ? '' : 's'})`,
    );
    rows.push(...gutter(lines, width));
  }
  // Everything else one subject per row, so no name can pass itself off as two (a newline in it is escaped).
  for (const kind of KINDS) {
    if (kind === 'run') continue; // above, each command whole
    const subjects = r.asks.filter((a) => a.kind === kind).map((a) => a.subject);
    if (subjects.length === 0) continue;
    header(PERMISSION_KINDS[kind].ask);
    rows.push(...subjects.flatMap((s) => wrap(s, width, '  │ ', '  ┆ ')));
  }
  if (preview && 'note' in preview) rows.push(...wrap(`(no diff to show: ${preview.note})`, width, '  ', '  ', true));
  else if (preview) {
    rows.push('The change it would make:');
    const head = diffHead(preview.diff, width);
    rows.push(...head.rows);
    if (head.omitted > 0) {
      const saved = preview.save();
      const n = head.omitted;
      const note = `… ${n} more line${n === 1 ? '' : 's'} of the diff not shown (over ${DIFF_ROWS} rows); ${saved.ok ? 'the whole diff is in:' : `the whole diff could not be saved: ${saved.error}`}`;
      rows.push(...wrap(note, width, '  ', '  ', true));
      if (saved.ok) rows.push(...wrap(saved.value, width, '    '));
    }
  }
  const question = r.always
    ? 'Allow? [y] once  [n] deny  [A] always (saved in .mewcode/settings.local.json) › '
    : 'Allow? [y] once  [n] deny (an ask rule asks for this every time) › ';
  rows.push(...wrap(question, width, '', '', true));
  return rows.join('\n');
}

/** The next line typed, or undefined at end of input (which answers nothing: deny). */
function readLine(input: NodeJS.ReadableStream): Promise<string | undefined> {
  return new Promise((resolve) => {
    const rl = createInterface({ input, terminal: false });
    let answered = false;
    rl.once('line', (line) => {
      answered = true;
      rl.close();
      resolve(line);
    });
    rl.once('close', () => {
      if (!answered) resolve(undefined);
    });
  });
}
