/**
 * The commands running in this process right now, so that the process itself can stop them all when
 * it is told to stop (the CLI's SIGINT, SIGTERM and SIGHUP) whichever call, agent turn or MCP request
 * started them. Main thread.
 */

interface LiveCommand {
  /** Stop as on a cancel: SIGTERM, then SIGKILL after the grace. */
  terminate(): void;
  /** SIGKILL to everything now and wait, synchronously (a second signal, or the process exiting). */
  killNow(): void;
  /** Settles when the command has ended and its processes are gone. */
  readonly ended: Promise<unknown>;
}

const live = new Set<LiveCommand>();
let hooked = false;

/** Tracks a command while it runs; the returned function forgets it. */
export function track(c: LiveCommand): () => void {
  if (!hooked) {
    hooked = true;
    // Whatever ends this process — process.exit, an uncaught exception — ends its commands with it.
    process.once('exit', killAllNow);
  }
  live.add(c);
  return () => live.delete(c);
}

/** Terminates every running command; resolves once all of them have ended and left nothing behind. */
export async function terminateAll(): Promise<void> {
  const all = [...live];
  for (const c of all) c.terminate();
  await Promise.allSettled(all.map((c) => c.ended));
}

/** SIGKILL to every running command's processes, now. */
export function killAllNow(): void {
  for (const c of live) c.killNow();
}
