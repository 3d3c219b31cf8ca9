/**
 * Fetching a skill's files from where install_skill was pointed: a GitHub tree (through the contents
 * API), a raw SKILL.md URL, or skills.sh/<org>/<name>/<version>. Every name and path from the network
 * is checked (no `..`, nothing absolute, no symlinks or submodules) and every limit is enforced while
 * reading, before anything is written. Every request, and every redirect it answers with, stays on
 * the hosts the permission covered (guarded_fetch.ts): the raw URL's own host; the skills.sh host; for
 * GitHub, the API host and raw.githubusercontent.com. Main thread.
 */

import { callDeadline } from '../core/deadline.ts';
import { errValue, okValue, type Result } from '../core/result.ts';
import { fetchWithin } from './guarded_fetch.ts';

export const SKILL_LIMITS = {
  fileBytes: 1024 * 1024,
  totalBytes: 8 * 1024 * 1024,
  files: 64,
  depth: 4,
  timeoutMs: 60_000,
} as const;

export interface SkillSources {
  /** GitHub's REST API (default https://api.github.com). */
  githubApi?: string;
  /** skills.sh (default https://skills.sh). */
  skillsSh?: string;
  timeoutMs?: number;
}

export interface FetchedFile {
  path: string;
  bytes: Buffer;
}

/** The files of a skill, or why they could not be fetched. */
type Fetched = Result<FetchedFile[], string>;

const SEGMENT = /^[A-Za-z0-9._-]+$/;

/** A relative path from the network, checked segment by segment. */
function safePath(p: string): string | undefined {
  if (p === '' || p.startsWith('/') || p.includes('\\') || p.includes('\0')) return undefined;
  const parts = p.split('/');
  if (parts.some((s) => s === '' || s === '.' || s === '..' || !SEGMENT.test(s))) return undefined;
  return parts.join('/');
}

export function sourceHost(url: string): string | undefined {
  const u = parseSource(url);
  return u?.host;
}

type Source =
  | { kind: 'github'; host: string; owner: string; repo: string; ref: string; dir: string }
  | { kind: 'raw'; host: string; url: string }
  | { kind: 'skills.sh'; host: string; org: string; name: string; version: string };

function parseSource(url: string): Source | undefined {
  const sh = /^(?:https?:\/\/)?skills\.sh\/([A-Za-z0-9_.-]+)\/([A-Za-z0-9_.-]+)\/([A-Za-z0-9_.-]+)\/?$/.exec(url);
  if (sh)
    return {
      kind: 'skills.sh',
      host: 'skills.sh',
      org: sh[1] as string,
      name: sh[2] as string,
      version: sh[3] as string,
    };
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return undefined;
  }
  if (u.protocol !== 'https:' && u.protocol !== 'http:') return undefined;
  const tree = /^\/([^/]+)\/([^/]+)\/tree\/([^/]+)\/?(.*)$/.exec(u.pathname);
  if (u.hostname === 'github.com' && tree) {
    return {
      kind: 'github',
      host: u.host,
      owner: tree[1] as string,
      repo: tree[2] as string,
      ref: tree[3] as string,
      dir: (tree[4] as string).replace(/\/$/, ''),
    };
  }
  return { kind: 'raw', host: u.host, url: u.href };
}

export async function fetchSkill(url: string, sources: SkillSources, signal: AbortSignal): Promise<Fetched> {
  const src = parseSource(url);
  if (!src)
    return errValue(
      `${JSON.stringify(url)} is not a GitHub tree URL, a raw SKILL.md URL or skills.sh/<org>/<name>/<version>`,
    );
  // Not AbortSignal.any with AbortSignal.timeout: a garbage collection mid-download would drop the timer.
  const call = callDeadline(signal, sources.timeoutMs ?? SKILL_LIMITS.timeoutMs);
  const deadline = call.signal;
  const budget = { files: 0, bytes: 0 };
  try {
    if (src.kind === 'raw') {
      const bytes = await download(src.url, [src.host], budget, deadline);
      return okValue([{ path: 'SKILL.md', bytes }]);
    }
    if (src.kind === 'skills.sh') {
      const base = (sources.skillsSh ?? 'https://skills.sh').replace(/\/$/, '');
      const home = new URL(base).host;
      const index = (await getJson(
        `${base}/api/v1/skills/${src.org}/${src.name}/${src.version}`,
        [home],
        deadline,
      )) as {
        files?: { path?: unknown; url?: unknown }[];
      };
      if (!Array.isArray(index.files)) return errValue('skills.sh answered without a file list');
      const files: FetchedFile[] = [];
      for (const f of index.files) {
        const p = typeof f.path === 'string' ? safePath(f.path) : undefined;
        if (!p || typeof f.url !== 'string')
          return errValue(`skills.sh listed an unsafe file ${JSON.stringify(f.path)}`);
        // The permission covered skills.sh: a file elsewhere would be a request nobody granted.
        const at = hostOf(f.url);
        if (at !== home) return errValue(`skills.sh listed ${JSON.stringify(p)} at ${at}, not at ${home}`);
        if (p.split('/').length > SKILL_LIMITS.depth)
          return errValue(`${p} is deeper than ${SKILL_LIMITS.depth} levels`);
        files.push({ path: p, bytes: await download(f.url, [home], budget, deadline) });
      }
      return okValue(files);
    }
    const api = (sources.githubApi ?? 'https://api.github.com').replace(/\/$/, '');
    const apiHost = new URL(api).host;
    const github = [apiHost, GITHUB_RAW];
    const files: FetchedFile[] = [];
    const walk = async (dir: string, rel: string, depth: number): Promise<string | undefined> => {
      const listing = await getJson(
        `${api}/repos/${src.owner}/${src.repo}/contents/${dir}?ref=${encodeURIComponent(src.ref)}`,
        github,
        deadline,
      );
      if (!Array.isArray(listing))
        return 'the GitHub API did not answer with a directory listing (is the URL a directory?)';
      for (const e of listing as { type?: string; name?: string; download_url?: string }[]) {
        const name =
          typeof e.name === 'string' && SEGMENT.test(e.name) && e.name !== '.' && e.name !== '..' ? e.name : undefined;
        if (!name) return `the listing has an unsafe name ${JSON.stringify(e.name)}`;
        const p = rel ? `${rel}/${name}` : name;
        if (e.type === 'dir') {
          if (depth + 1 >= SKILL_LIMITS.depth) return `${p}/ is deeper than ${SKILL_LIMITS.depth} levels`;
          const err = await walk(`${dir}/${name}`, p, depth + 1);
          if (err) return err;
        } else if (e.type === 'file' && typeof e.download_url === 'string') {
          const at = hostOf(e.download_url);
          if (at !== apiHost && at !== GITHUB_RAW)
            return `the listing points ${p} at ${at}, which is neither ${apiHost} nor ${GITHUB_RAW}`;
          files.push({ path: p, bytes: await download(e.download_url, github, budget, deadline) });
        } else {
          return `${p} is a ${e.type ?? 'thing'}, not a file or directory (symlinks and submodules are refused)`;
        }
      }
      return undefined;
    };
    const err = await walk(src.dir, '', 0);
    return err ? errValue(err) : okValue(files);
  } catch (e) {
    if (deadline.aborted && !signal.aborted)
      return errValue(
        `the download took longer than ${Math.round((sources.timeoutMs ?? SKILL_LIMITS.timeoutMs) / 1000)} s`,
      );
    return errValue((e as Error).message);
  } finally {
    call.clear();
  }
}

/** Where GitHub's contents API serves file bytes from. */
const GITHUB_RAW = 'raw.githubusercontent.com';

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return JSON.stringify(url);
  }
}

async function getJson(url: string, hosts: readonly string[], signal: AbortSignal): Promise<unknown> {
  const r = await fetchWithin(url, hosts, {
    signal,
    headers: { accept: 'application/vnd.github+json, application/json' },
  });
  if (!r.ok) throw new Error(`${url} answered ${r.status} ${r.statusText}`);
  return r.json();
}

/** Downloads one file from `hosts`, stopping as soon as a limit is passed. */
async function download(
  url: string,
  hosts: readonly string[],
  budget: { files: number; bytes: number },
  signal: AbortSignal,
): Promise<Buffer> {
  if (++budget.files > SKILL_LIMITS.files) throw new Error(`the skill has more than ${SKILL_LIMITS.files} files`);
  const r = await fetchWithin(url, hosts, { signal });
  if (!r.ok || !r.body) throw new Error(`${url} answered ${r.status} ${r.statusText}`);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of r.body as unknown as AsyncIterable<Uint8Array>) {
    size += chunk.length;
    budget.bytes += chunk.length;
    if (size > SKILL_LIMITS.fileBytes) throw new Error(`${url} is larger than ${SKILL_LIMITS.fileBytes} bytes`);
    if (budget.bytes > SKILL_LIMITS.totalBytes)
      throw new Error(`the skill is larger than ${SKILL_LIMITS.totalBytes} bytes in all`);
    chunks.push(Buffer.from(chunk));
  }
  return Buffer.concat(chunks);
}
