/**
 * SIGINT, SIGTERM and SIGHUP for the CLI. Node's default is to exit on the spot, which leaves every
 * running command behind (they run in process groups of their own, which a terminal's Ctrl-C does not
 * reach). Instead the first signal aborts the command's AbortSignal and terminates every running
 * command, and the CLI exits 128 + the signal's number (130, 143, 129) once they are gone; a second
 * signal kills them with SIGKILL and exits at once. Main thread.
 */
import { killAllNow, terminateAll } from '../exec/live.ts';

const STOP_SIGNALS = { SIGHUP: 1, SIGINT: 2, SIGTERM: 15 } as const;
type StopSignal = keyof typeof STOP_SIGNALS;

interface StopSignals {
  /** Aborted on the first signal: pass it to the calls. */
  readonly signal: AbortSignal;
  /** 128 + the signal's number once a signal came, else undefined. */
  exitCode(): number | undefined;
  /** Settles with the exit code after a signal, once every running command is gone. */
  readonly stopped: Promise<number>;
  /** Puts Node's own handling back. */
  dispose(): void;
}

export function watchStopSignals(): StopSignals {
  const controller = new AbortController();
  let code: number | undefined;
  let resolveStopped: (code: number) => void = () => {};
  const stopped = new Promise<number>((r) => {
    resolveStopped = r;
  });
  const handlers = new Map<StopSignal, () => void>();
  for (const name of Object.keys(STOP_SIGNALS) as StopSignal[]) {
    const handler = () => {
      if (code !== undefined) {
        // Asked twice: no more waiting for graceful exits.
        killAllNow();
        process.exit(code);
      }
      code = 128 + STOP_SIGNALS[name];
      // A hung-up terminal fails writes; that must not turn into a crash that skips the kill.
      process.stderr.on('error', () => {});
      if (name !== 'SIGHUP') process.stderr.write(`\nmewcode: ${name}; stopping the running commands\n`);
      controller.abort();
      const stopping = code;
      void terminateAll().then(() => resolveStopped(stopping));
    };
    handlers.set(name, handler);
    process.on(name, handler);
  }
  return {
    signal: controller.signal,
    exitCode: () => code,
    stopped,
    dispose() {
      for (const [name, handler] of handlers) process.off(name, handler);
    },
  };
}
