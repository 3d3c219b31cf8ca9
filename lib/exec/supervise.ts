/**
 * Running one command to completion under supervision: its own process group; on timeout or cancel,
 * SIGTERM to the group and SIGKILL after a grace; completion on the process's exit plus a bounded
 * drain of its pipes — never on pipe EOF, which a backgrounded grandchild holding stdout would delay
 * to the timeout — and then whatever is left in the group is killed. Write lane, main thread.
 */
import { spawn } from 'node:child_process';
import type { OutputCollector } from './output.ts';

/** Between SIGTERM and SIGKILL. */
export const KILL_GRACE_MS = 2000;
/** How long output keeps being read after the process exited. */
export const DRAIN_MS = 250;

export interface Supervised {
  argv: readonly string[];
  cwd: string;
  env: Record<string, string>;
  timeoutMs: number;
  signal: AbortSignal;
}

export type Ending = 'exit' | 'timeout' | 'cancelled' | 'spawn_error';

export interface Outcome {
  ending: Ending;
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  error?: string;
  ms: number;
}

export function supervise(s: Supervised, out: OutputCollector): Promise<Outcome> {
  const started = Date.now();
  return new Promise((resolve) => {
    const [cmd, ...args] = s.argv;
    let ending: Ending = 'exit';
    let settled = false;
    const child = spawn(cmd as string, args, {
      cwd: s.cwd,
      env: s.env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const killGroup = (sig: NodeJS.Signals) => {
      if (child.pid === undefined) return;
      try {
        process.kill(-child.pid, sig);
      } catch {
        // the group is already gone
      }
    };
    let grace: NodeJS.Timeout | undefined;
    const terminate = (why: Ending) => {
      if (ending !== 'exit' || settled) return;
      ending = why;
      killGroup('SIGTERM');
      grace = setTimeout(() => killGroup('SIGKILL'), KILL_GRACE_MS);
    };
    const timer = setTimeout(() => terminate('timeout'), s.timeoutMs);
    const onAbort = () => terminate('cancelled');
    if (s.signal.aborted) onAbort();
    else s.signal.addEventListener('abort', onAbort, { once: true });
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.stderr.on('data', (c: Buffer) => out.push(c));
    const finish = (o: Omit<Outcome, 'ms'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (grace) clearTimeout(grace);
      s.signal.removeEventListener('abort', onAbort);
      resolve({ ...o, ms: Date.now() - started });
    };
    child.on('error', (e) => finish({ ending: 'spawn_error', exitCode: null, signal: null, error: e.message }));
    child.on('exit', (exitCode, signal) => {
      // Drain what is already in the pipes, but no longer than DRAIN_MS: a background job that
      // inherited them may keep them open for hours.
      let open = 2;
      const done = () => {
        killGroup('SIGKILL'); // leftovers of the group (background jobs) do not outlive the call
        child.stdout.destroy();
        child.stderr.destroy();
        finish({ ending, exitCode, signal });
      };
      const drain = setTimeout(done, DRAIN_MS);
      const closed = () => {
        if (--open === 0) {
          clearTimeout(drain);
          done();
        }
      };
      if (child.stdout.readableEnded) closed();
      else child.stdout.once('end', closed);
      if (child.stderr.readableEnded) closed();
      else child.stderr.once('end', closed);
    });
  });
}
