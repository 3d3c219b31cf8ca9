/**
 * The approval prompt, on a terminal only: allow once (y), deny (n, or anything else), or always (A,
 * which writes a local rule). Requests are shown with control characters, bidi overrides and
 * zero-width characters escaped, and one longer than MAX_PROMPT_CHARS is denied unread — it may be
 * hiding something. Without a terminal nothing is asked: the call is denied, naming the flag that
 * would grant it. Main thread.
 */
import { createInterface } from 'node:readline';
import { escapeControl } from '../core/text.ts';

export const MAX_PROMPT_CHARS = 10 * 1024;

export type Answer = 'once' | 'deny' | 'always';

export interface Prompter {
  ask(request: string): Promise<Answer>;
}

/** A prompter on the process's terminal, or undefined when stdin or stderr is not a terminal. */
export function terminalPrompter(
  input: NodeJS.ReadStream = process.stdin,
  output: NodeJS.WriteStream = process.stderr,
): Prompter | undefined {
  if (!input.isTTY || !output.isTTY) return undefined;
  return streamPrompter(input, output);
}

/** A prompter over any pair of streams (the terminal one, or a test's). */
export function streamPrompter(input: NodeJS.ReadableStream, output: NodeJS.WritableStream): Prompter {
  return {
    ask(request) {
      if (request.length > MAX_PROMPT_CHARS) {
        output.write(
          `mewcode: denied a permission request of ${request.length} characters without showing it (over ${MAX_PROMPT_CHARS}).\n`,
        );
        return Promise.resolve('deny');
      }
      output.write(
        `\n${escapeControl(request)}\nAllow? [y] once  [n] deny  [A] always (adds a rule to .mewcode/settings.local.json) › `,
      );
      return new Promise((resolve) => {
        const rl = createInterface({ input, terminal: false });
        let answered = false;
        rl.once('line', (line) => {
          answered = true;
          rl.close();
          const a = line.trim();
          resolve(a === 'y' || a === 'Y' ? 'once' : a === 'A' ? 'always' : 'deny');
        });
        rl.once('close', () => {
          if (!answered) resolve('deny'); // EOF answers nothing: deny
        });
      });
    },
  };
}
