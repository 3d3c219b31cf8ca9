/**
 * The idle watch over one model stream: a request whose stream sends nothing for `idleMs` (no headers,
 * no event) is aborted, so a server that stalls after its headers cannot hang a run. Every event
 * resets the clock. The caller's own signal (Ctrl-C) aborts it too. Main thread.
 */

/** The default idle limit: generous for a slow first token, far below "forever". */
const DEFAULT_STREAM_IDLE_MS = 120_000;

/** MEWCODE_STREAM_IDLE_MS, or the default; a bad value is the default. */
export function streamIdleMs(env: NodeJS.ProcessEnv = process.env): number {
  const n = Number(env.MEWCODE_STREAM_IDLE_MS);
  return Number.isFinite(n) && n > 0 ? n : DEFAULT_STREAM_IDLE_MS;
}

interface StreamWatch {
  /** Aborted by the caller's signal or by the idle limit. */
  readonly signal: AbortSignal;
  /** Something arrived: the idle clock starts again (an event unless `event` is false, as for headers). */
  touch(event?: boolean): void;
  /** How many events arrived. */
  readonly events: number;
  /** True when the idle limit aborted the request. */
  readonly stalled: boolean;
  dispose(): void;
}

export function watchStream(outer: AbortSignal, idleMs: number): StreamWatch {
  const controller = new AbortController();
  let events = 0;
  let stalled = false;
  let timer: NodeJS.Timeout | undefined;
  const arm = () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      stalled = true;
      controller.abort(new Error(`no data for ${idleMs} ms`));
    }, idleMs);
  };
  const onAbort = () => controller.abort(outer.reason);
  if (outer.aborted) controller.abort(outer.reason);
  else outer.addEventListener('abort', onAbort, { once: true });
  arm();
  return {
    signal: controller.signal,
    touch(event = true) {
      if (event) events++;
      if (!stalled) arm();
    },
    get events() {
      return events;
    },
    get stalled() {
      return stalled;
    },
    dispose() {
      clearTimeout(timer);
      outer.removeEventListener('abort', onAbort);
    },
  };
}
