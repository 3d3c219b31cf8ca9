/**
 * A fake skill host on 127.0.0.1: a stand-in for GitHub's contents API and raw files, and for the
 * skills.sh index, serving a tree of files the test gives. Closed when the test (or file) ends.
 *
 * - `/repos/<owner>/<repo>/contents/<dir>` lists the tree's `<owner>/<repo>/<dir>` as GitHub does;
 * - `/raw/<path>` answers the file at `<path>` of the tree;
 * - `/api/v1/skills/<org>/<name>/<version>` answers what `skillsSh` lists for it.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after } from 'node:test';

/** A symlink in a listing (GitHub lists symlinks and submodules, which an install must refuse). */
export const SYMLINK = Symbol('symlink');

/** Path → content; the directories are those the paths imply. */
export type SkillTree = Record<string, string | Buffer | typeof SYMLINK>;

/** An answer of the test's own, before the stand-in's. */
export interface Reply {
  status: number;
  headers?: Record<string, string>;
  body?: string | Buffer;
}

export interface SkillHostOptions {
  tree: SkillTree;
  /** Where the listing points the file `<owner>/<repo>/<path>` (default: its /raw/ URL here). */
  downloadUrl?: (file: { owner: string; repo: string; path: string }) => string;
  /** The files skills.sh lists for `<org>/<name>/<version>` (undefined: 404). */
  skillsSh?: (org: string, name: string, version: string) => { path: string; url: string }[] | undefined;
  /** Answers a request before the stand-in does (redirects, server errors); undefined lets it through. */
  route?: (url: URL) => Reply | undefined;
}

export interface SkillHost {
  /** `http://127.0.0.1:<port>` */
  url: string;
  /** The path (and query) of every request, in order. */
  requests: string[];
  /** From now on requests get no answer (a source that hangs); the returned function lets them go. */
  stall(): () => void;
}

/** What a directory of the tree holds, in the order the tree names it: GitHub's listing. */
function listing(tree: SkillTree, dir: string): { name: string; type: 'file' | 'dir' | 'symlink' }[] | undefined {
  const entries = new Map<string, 'file' | 'dir' | 'symlink'>();
  for (const [file, content] of Object.entries(tree)) {
    if (!file.startsWith(`${dir}/`)) continue;
    const [name, ...below] = file.slice(dir.length + 1).split('/');
    if (name && !entries.has(name)) entries.set(name, below.length ? 'dir' : content === SYMLINK ? 'symlink' : 'file');
  }
  return entries.size ? [...entries].map(([name, type]) => ({ name, type })) : undefined;
}

function standIn(o: SkillHostOptions, url: URL, base: string): Reply {
  const json = (status: number, body: unknown): Reply => ({
    status,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const contents = /^\/repos\/([^/]+)\/([^/]+)\/contents\/?(.*?)\/?$/.exec(url.pathname);
  if (contents) {
    const [, owner = '', repo = '', dir = ''] = contents;
    const found = listing(o.tree, [owner, repo, dir].filter(Boolean).join('/'));
    if (!found) return json(404, { message: 'Not Found' });
    const link = o.downloadUrl ?? ((f) => `${base}/raw/${f.owner}/${f.repo}/${f.path}`);
    return json(
      200,
      found.map(({ name, type }) => {
        const path = dir ? `${dir}/${name}` : name;
        return { name, path, type, download_url: type === 'file' ? link({ owner, repo, path }) : null };
      }),
    );
  }
  const raw = /^\/raw\/(.+)$/.exec(url.pathname);
  const file = raw ? o.tree[raw[1] as string] : undefined;
  if (file !== undefined && file !== SYMLINK) return { status: 200, body: file };
  const sh = /^\/api\/v1\/skills\/([^/]+)\/([^/]+)\/([^/]+)$/.exec(url.pathname);
  const files = sh ? o.skillsSh?.(sh[1] as string, sh[2] as string, sh[3] as string) : undefined;
  if (files) return json(200, { files });
  return json(404, { message: 'Not Found' });
}

export async function startSkillHost(o: SkillHostOptions): Promise<SkillHost> {
  const requests: string[] = [];
  let stalled: ServerResponse[] | undefined;
  let base = '';
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', base);
    requests.push(`${url.pathname}${url.search}`);
    if (stalled) return void stalled.push(res);
    const reply = o.route?.(url) ?? standIn(o, url, base);
    res.writeHead(reply.status, reply.headers);
    res.end(reply.body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  after(() => {
    server.closeAllConnections(); // keep-alive sockets of the clients would hold the file open
    server.close();
  });
  const stall = () => {
    stalled = [];
    return () => {
      for (const res of stalled ?? []) res.destroy();
      stalled = undefined;
    };
  };
  return { url: base, requests, stall };
}
