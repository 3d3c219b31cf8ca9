/**
 * Provider failures in words: every error names the URL that was tried and what came back, says
 * whether a retry may help (transient: 429, 5xx, 529, a dropped or refused connection, a stalled
 * stream) and, for the user, what to do. The SDKs' raw JSON bodies never reach the user. Main thread.
 */

type FailureKind = 'http' | 'connection' | 'stalled' | 'bad_response' | 'cancelled';

export class ProviderError extends Error {
  readonly kind: FailureKind;
  readonly transient: boolean;
  /** Why a retry is worth it, in a word or two, for the retry line ("overloaded", "server error 500"). */
  readonly why: string;
  readonly status: number | undefined;
  /** The server's Retry-After, in milliseconds. */
  readonly retryAfterMs: number | undefined;
  constructor(
    message: string,
    kind: FailureKind,
    transient: boolean,
    why: string,
    status?: number,
    retryAfterMs?: number,
  ) {
    super(message);
    this.name = 'ProviderError';
    this.kind = kind;
    this.transient = transient;
    this.why = why;
    this.status = status;
    this.retryAfterMs = retryAfterMs;
  }
}

const clip = (s: string, n = 200) => {
  const one = s.replace(/\s+/g, ' ').trim();
  return one.length > n ? `${one.slice(0, n)}…` : one;
};

/** The words inside an SDK error's body: Anthropic's `error.error.message`, OpenAI's `error.message`. */
function bodyWords(e: { error?: unknown; message?: string }): string {
  const body = e.error as { error?: { message?: unknown }; message?: unknown } | undefined;
  const inner = body?.error?.message ?? body?.message;
  if (typeof inner === 'string' && inner.trim()) return clip(inner);
  // The SDK's own message starts with the status and may carry the raw JSON body: keep only words.
  const m = (e.message ?? '').replace(/^\d{3}\s*/, '');
  return m.trim().startsWith('{') ? '' : clip(m);
}

function retryAfter(headers: unknown): number | undefined {
  const h = headers as Headers | Record<string, string> | undefined;
  const raw = h
    ? typeof (h as Headers).get === 'function'
      ? (h as Headers).get('retry-after')
      : (h as Record<string, string>)['retry-after']
    : undefined;
  if (!raw) return undefined;
  const s = Number(raw);
  if (Number.isFinite(s)) return Math.max(0, s * 1000);
  const at = Date.parse(raw);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}

/** Any failure of a model request as a ProviderError naming `url`. */
export function toProviderError(provider: string, url: string, e: unknown): ProviderError {
  if (e instanceof ProviderError) return e;
  const err = e as {
    status?: number;
    headers?: unknown;
    message?: string;
    name?: string;
    cause?: unknown;
    error?: unknown;
  };
  const status = typeof err?.status === 'number' ? err.status : undefined;
  const at = `${provider} (${url})`;
  if (err?.name === 'AbortError' || err?.name === 'APIUserAbortError')
    return new ProviderError(`${provider}: the request was cancelled.`, 'cancelled', false, 'cancelled');
  if (status !== undefined) {
    const words = bodyWords(err);
    const said = words ? `: ${words}` : '';
    const after = retryAfter(err.headers);
    const afterWords = after !== undefined ? `; retry after ${Math.round(after / 1000)} s` : '';
    if (status === 401)
      return new ProviderError(`${at}: authentication failed (401): check the API key.`, 'http', false, '', status);
    if (status === 403)
      return new ProviderError(
        `${at}: permission denied (403)${said}. The key cannot use this model.`,
        'http',
        false,
        '',
        status,
      );
    if (status === 404)
      return new ProviderError(
        `${at}: not found (404)${said}. Check the model name and the base URL.`,
        'http',
        false,
        '',
        status,
      );
    if (status === 429)
      return new ProviderError(
        `${at}: rate limited (429)${afterWords}${said}. Wait, or lower the request rate.`,
        'http',
        true,
        'rate limited',
        status,
        after,
      );
    if (status === 529)
      return new ProviderError(
        `${at}: the service is overloaded (529)${said}. Try again in a few minutes.`,
        'http',
        true,
        'overloaded',
        status,
        after,
      );
    if (status >= 500 || status === 408)
      return new ProviderError(
        `${at}: the service failed (${status})${said}. Try again later.`,
        'http',
        true,
        `server error ${status}`,
        status,
        after,
      );
    return new ProviderError(`${at}: the request was refused (${status})${said}.`, 'http', false, '', status);
  }
  // No HTTP status: the connection failed or dropped. The SDKs say "Connection error." or "terminated";
  // the cause carries the system's code (ECONNREFUSED, ECONNRESET).
  const detail = systemCode(err) ?? causes(err);
  return new ProviderError(
    `${at}: the connection failed (${clip(detail, 120)}). Check the network and the base URL (--base-url).`,
    'connection',
    true,
    'connection failed',
  );
}

/** The system's code (ECONNREFUSED, ECONNRESET) somewhere down an error's chain of causes. */
function systemCode(e: unknown, depth = 0): string | undefined {
  if (!e || typeof e !== 'object' || depth > 5) return undefined;
  const o = e as { code?: unknown; cause?: unknown; errors?: unknown[] };
  if (typeof o.code === 'string' && /^E[A-Z]+$|^UND_ERR/.test(o.code)) return o.code;
  for (const next of [o.cause, ...(o.errors ?? [])]) {
    const found = systemCode(next, depth + 1);
    if (found) return found;
  }
  return undefined;
}

/** The messages down the chain of causes ("fetch failed: bad port"), the SDK's generic one left out. */
function causes(e: unknown): string {
  const out: string[] = [];
  for (let c = e as { message?: string; cause?: unknown } | undefined, i = 0; c && i < 5; c = c.cause as typeof c, i++)
    if (c.message && c.message !== 'Connection error.') out.push(c.message);
  return out.join(': ') || String(e);
}

/** A 200 answer that is not a stream of events (a login page, a proxy's error page). */
export function notAStream(provider: string, url: string, contentType: string | null, body?: string): ProviderError {
  const what = body?.trim() ? `: ${clip(body)}` : ' and no stream events';
  return new ProviderError(
    `${provider} (${url}): the server answered 200 with ${contentType ?? 'no content type'} instead of an event stream${what}. Check the base URL: it must be the API's, not a web page's.`,
    'bad_response',
    false,
    '',
  );
}

/** The stream closed before its end: name the URL and how far it got. */
export function cutMidStream(provider: string, url: string, events: number, e: unknown): ProviderError {
  const reason = clip((e as Error)?.message ?? String(e), 120);
  return new ProviderError(
    `${provider} (${url}): the connection closed in the middle of the answer, after ${events} stream event${events === 1 ? '' : 's'} (${reason}).`,
    'connection',
    true,
    'connection dropped',
  );
}

export function stalled(provider: string, url: string, idleMs: number, events: number): ProviderError {
  return new ProviderError(
    `${provider} (${url}): the stream stalled: nothing arrived for ${idleMs / 1000} s${events ? ` after ${events} stream events` : ''} (MEWCODE_STREAM_IDLE_MS sets the limit).`,
    'stalled',
    true,
    'stream stalled',
  );
}

/** What a provider knows when its streamed turn fails. */
interface StreamState {
  signal: AbortSignal;
  watch: { stalled: boolean; events: number };
  idleMs: number;
  /** The server answered (headers came): a failure after that is a cut stream, not a failed connection. */
  answered: boolean;
  /** The answer's content type, when the provider checks it only after a failure. */
  contentType?: string | null;
}

/**
 * A streamed turn's failure in words, the same for every provider: the caller's cancel, a stall, an
 * HTTP status, a 200 that was not an event stream, a stream cut after it started, else the connection.
 */
export function streamFailure(provider: string, url: string, e: unknown, s: StreamState): ProviderError {
  if (s.signal.aborted) return toProviderError(provider, url, { name: 'AbortError' });
  if (s.watch.stalled) return stalled(provider, url, s.idleMs, s.watch.events);
  if (e instanceof ProviderError || (e as { status?: number }).status !== undefined)
    return toProviderError(provider, url, e);
  const type = s.contentType;
  if (s.watch.events === 0 && type !== undefined && type !== null && !type.includes('event-stream'))
    return notAStream(provider, url, type);
  if (s.watch.events > 0 || s.answered) return cutMidStream(provider, url, s.watch.events, e);
  return toProviderError(provider, url, e);
}
