/**
 * Pages web_fetch fetched, kept for 15 minutes per URL (and byte bound), so a model that reads a page
 * again, or a part of it, does not fetch it again. At most MAX_PAGES pages and MAX_BYTES of bodies,
 * the oldest going first. An entry keeps the hosts its redirects passed through: a later call is
 * answered from it only when those are still allowed. Per process, main thread.
 */
import type { FetchedPage } from './fetch_page.ts';

export const PAGE_TTL_MS = 15 * 60 * 1000;
const MAX_PAGES = 32;
const MAX_BYTES = 32 * 1024 * 1024;

export interface CachedPage {
  page: FetchedPage;
  /** The hosts of the redirects followed, after the first. */
  via: string[];
  at: number;
}

const pages = new Map<string, CachedPage>();
let bytes = 0;

const keyOf = (url: string, maxBytes: number) => `${maxBytes} ${url}`;

export function cachedPage(url: string, maxBytes: number, now = Date.now()): CachedPage | undefined {
  const key = keyOf(url, maxBytes);
  const c = pages.get(key);
  if (c && now - c.at <= PAGE_TTL_MS) return c;
  if (c) drop(key, c);
  return undefined;
}

export function keepPage(url: string, maxBytes: number, c: CachedPage): void {
  const key = keyOf(url, maxBytes);
  const had = pages.get(key);
  if (had) drop(key, had);
  if (c.page.body.length > MAX_BYTES) return;
  pages.set(key, c);
  bytes += c.page.body.length;
  for (const [k, old] of pages) {
    if (pages.size <= MAX_PAGES && bytes <= MAX_BYTES) break;
    drop(k, old);
  }
}

function drop(key: string, c: CachedPage): void {
  pages.delete(key);
  bytes -= c.page.body.length;
}
