/**
 * Retries of transient provider failures (429, 5xx, 529 overloaded, a refused or dropped connection, a
 * stalled stream), each announced through `onRetry` before the wait so the user sees it. Backoff is
 * exponential with jitter (half to the whole of the step), from MEWCODE_RETRY_BASE_MS (default 1 s)
 * for server errors and connections and five times that for 429/529, so an overloaded service gets tens
 * of seconds; a Retry-After header is honoured up to the cap. The last failure is thrown in words.
 * Main thread.
 */
import { ProviderError, toProviderError } from './errors.ts';
import type { ModelTurn, Provider, TurnRequest } from './provider.ts';

const DEFAULT_RETRY_BASE_MS = 1000;
const CAP_MS = 60_000;

export interface RetryNotice {
  /** The attempt about to start (2 for the first retry) and how many there may be in all. */
  attempt: number;
  of: number;
  delayMs: number;
  /** Why, in a word or two: "overloaded", "server error 500", "stream stalled". */
  why: string;
  message: string;
  /** Text of the failed attempt had already streamed out: it is discarded and comes again. */
  discarded: boolean;
}

function retryBaseMs(env: NodeJS.ProcessEnv = process.env): number {
  const n = Number(env.MEWCODE_RETRY_BASE_MS);
  return Number.isFinite(n) && n >= 0 && env.MEWCODE_RETRY_BASE_MS !== '' && env.MEWCODE_RETRY_BASE_MS !== undefined
    ? n
    : DEFAULT_RETRY_BASE_MS;
}

/** The wait before attempt `attempt` (2, 3, …) after `e`. */
export function backoffMs(e: ProviderError, attempt: number, baseMs: number, random = Math.random): number {
  const slow = e.status === 429 || e.status === 529;
  const step = Math.min(CAP_MS, baseMs * (slow ? 5 : 1) * 2 ** (attempt - 2));
  const jittered = step / 2 + (random() * step) / 2;
  return Math.round(Math.max(jittered, Math.min(CAP_MS, e.retryAfterMs ?? 0)));
}

export async function turnWithRetries(
  provider: Provider,
  req: TurnRequest,
  o: { onRetry?: (n: RetryNotice) => void; baseMs?: number } = {},
): Promise<ModelTurn> {
  const of = provider.maxRetries + 1;
  const baseMs = o.baseMs ?? retryBaseMs();
  for (let attempt = 1; ; attempt++) {
    let streamed = false;
    try {
      return await provider.turn({
        ...req,
        onText: (d) => {
          streamed = true;
          req.onText?.(d);
        },
      });
    } catch (raw) {
      const e = toProviderError(provider.name, provider.url, raw);
      if (!e.transient || attempt >= of || req.signal.aborted) {
        if (e.transient && attempt > 1)
          throw new ProviderError(`${e.message} Gave up after ${attempt} attempts.`, e.kind, false, e.why, e.status);
        throw e;
      }
      const delayMs = backoffMs(e, attempt + 1, baseMs);
      o.onRetry?.({ attempt: attempt + 1, of, delayMs, why: e.why, message: e.message, discarded: streamed });
      await sleep(delayMs, req.signal);
      if (req.signal.aborted) throw toProviderError(provider.name, provider.url, { name: 'AbortError' });
    }
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}
