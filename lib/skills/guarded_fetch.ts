/**
 * HTTP for install_skill that never leaves the hosts its permission covered. fetch() would follow a
 * redirect anywhere (a 302 from the granted 127.0.0.1:P to 127.0.0.1:Q was followed and installed), so
 * redirects are followed here, by hand: at most MAX_REDIRECTS hops, each target on one of the hosts
 * the request may reach — host and port exactly, as a net permission names them (URL.host, the
 * default port left out) — and never from https down to http. Anything else fails, naming the target,
 * before the target is contacted. Main thread.
 */

export const MAX_REDIRECTS = 5;

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

interface GuardedInit {
  signal: AbortSignal;
  headers?: Record<string, string>;
}

/**
 * Fetches `url`, which must itself be on one of `hosts`, following redirects only onto `hosts`.
 * Rejects with a message naming the refused target.
 */
export async function fetchWithin(url: string, hosts: readonly string[], init: GuardedInit): Promise<Response> {
  let at = new URL(url);
  refuseOffHost(at, hosts, `${url} is`);
  for (let hop = 0; ; hop++) {
    const r = await fetch(at, { ...init, redirect: 'manual' });
    if (!REDIRECTS.has(r.status)) return r;
    await r.body?.cancel();
    const location = r.headers.get('location');
    if (!location) throw new Error(`${at.href} answered ${r.status} without saying where to (no Location)`);
    let next: URL;
    try {
      next = new URL(location, at);
    } catch {
      throw new Error(`${at.href} redirected to ${JSON.stringify(location)}, which is not a URL`);
    }
    const moved = `${at.href} redirected to ${next.href}, which is`;
    if (hop >= MAX_REDIRECTS)
      throw new Error(`${url} redirected more than ${MAX_REDIRECTS} times (last to ${next.href})`);
    if (at.protocol === 'https:' && next.protocol !== 'https:')
      throw new Error(`${moved} not https: a redirect may not drop the encryption`);
    refuseOffHost(next, hosts, moved);
    at = next;
  }
}

function refuseOffHost(u: URL, hosts: readonly string[], what: string): void {
  if (u.protocol !== 'https:' && u.protocol !== 'http:') throw new Error(`${what} not an http(s) URL`);
  if (!hosts.includes(u.host))
    throw new Error(
      `${what} on ${u.host}, a host this download may not reach (only ${hosts.join(' and ')}), so it was not fetched; if you trust ${u.host}, install from a URL there, with network permission for it`,
    );
}
