/**
 * install_skill follows a redirect only onto a host its permission covered: two real HTTP servers on
 * 127.0.0.1, the granted one (P) and another (Q). A redirect from P to Q — from a raw URL, the GitHub
 * contents listing, a GitHub download, the skills.sh index or a skills.sh file — fails naming the
 * target, Q is never contacted, and nothing is installed. Redirects within P are followed.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { MAX_REDIRECTS } from '../../lib/skills/guarded_fetch.ts';
import { runtimeAt, tempDir, writeTree } from '../helpers.ts';

const SKILL = '---\nname: review\ndescription: Reviews code\n---\nDo the review.\n';
const FILES: Record<string, string> = { 'SKILL.md': SKILL, 'notes/x.md': 'notes' };

let P = ''; // the granted server
let Q = ''; // the other one
const hitsOnQ: string[] = [];

/**
 * The same stand-in for GitHub's contents API, raw files and skills.sh on both servers; on P,
 * `/off/<rest>` answers 302 to Q's `/<rest>`, `/same/<rest>` 302 to its own `/<rest>`, `/loop` forever.
 */
function handler(self: () => string) {
  return (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', self());
    if (self() === Q) hitsOnQ.push(url.pathname);
    const redirect = (to: string) => {
      res.writeHead(302, { location: to });
      res.end();
    };
    const json = (body: unknown) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    const rest = `${url.pathname.replace(/^\/(off|same)/, '')}${url.search}`;
    if (self() === P && url.pathname.startsWith('/off/')) return redirect(`${Q}${rest}`);
    if (self() === P && url.pathname.startsWith('/same/')) return redirect(rest);
    if (url.pathname.startsWith('/loop')) return redirect(`/loop${url.pathname.length}`);
    // Both servers list files on P (so what Q lists would install). The listing: `offdl` lists its
    // files at P's /off/raw/…, which sends them on to Q.
    const listing = /^\/repos\/acme\/tools\/contents\/(review|offdl)\/?(.*)$/.exec(url.pathname);
    if (listing) {
      const [, top, sub] = listing;
      const via = top === 'offdl' ? `${P}/off` : P;
      const here = Object.keys(FILES).filter((f) => path.posix.dirname(f) === (sub || '.'));
      const dirs = sub ? [] : ['notes'];
      return json([
        ...here.map((f) => ({ name: path.posix.basename(f), type: 'file', download_url: `${via}/raw/${f}` })),
        ...dirs.map((d) => ({ name: d, type: 'dir', download_url: null })),
      ]);
    }
    // skills.sh: `offfile` lists its second file at P's /off/raw/….
    const sh = /^\/api\/v1\/skills\/acme\/(review|offfile)\/1\.0\.0$/.exec(url.pathname);
    if (sh)
      return json({
        files: Object.keys(FILES).map((f, i) => ({
          path: f,
          url: `${sh[1] === 'offfile' && i === 1 ? `${P}/off` : P}/raw/${f}`,
        })),
      });
    const raw = /^\/raw\/(.+)$/.exec(url.pathname);
    if (raw && FILES[raw[1] as string] !== undefined) {
      res.writeHead(200);
      res.end(FILES[raw[1] as string]);
      return;
    }
    res.writeHead(404);
    res.end('{"message":"Not Found"}');
  };
}

const servers: Server[] = [];
async function listen(self: () => string): Promise<string> {
  const s = createServer(handler(self));
  servers.push(s);
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
}
before(async () => {
  P = await listen(() => P);
  Q = await listen(() => Q);
});
after(() => {
  for (const s of servers) s.close();
});

/** A runtime granted the network of P (and the names github.com, skills.sh stand for), not Q. */
function setup(sources: { githubApi?: string; skillsSh?: string } = {}) {
  const root = tempDir();
  writeTree(root, { 'README.md': 'x\n' });
  const rt = runtimeAt(root, {
    workers: 0,
    skillSources: { githubApi: sources.githubApi ?? P, skillsSh: sources.skillsSh ?? P, timeoutMs: 10_000 },
    permissions: { allow: { net: [new URL(P).host, 'github.com', 'skills.sh'], write: ['.mewcode/skills'] } },
  });
  after(() => rt.close());
  const skillsDir = path.join(root, '.mewcode', 'skills');
  const installed = () => (existsSync(skillsDir) ? readdirSync(skillsDir) : []);
  return { rt, installed };
}

const tree = (dir: string) => `https://github.com/acme/tools/tree/main/${dir}`;
const offTarget = (p: string) =>
  new RegExp(
    `redirected to ${(Q + p).replace(/[.?]/g, '\\$&')}, which is on ${new URL(Q).host}, a host this download may not reach \\(only ${new URL(P).host}[^)]*\\), so it was not fetched; .*Nothing was installed\\.$`,
  );

const refused: [string, string, { githubApi?: string; skillsSh?: string }, string][] = [
  ['a raw SKILL.md URL', 'P/off/raw/SKILL.md', {}, '/raw/SKILL.md'],
  ['the GitHub contents listing', tree('review'), { githubApi: 'P/off' }, '/repos/acme/tools/contents/review?ref=main'],
  ['a GitHub download', tree('offdl'), {}, '/raw/SKILL.md'],
  ['the skills.sh index', 'skills.sh/acme/review/1.0.0', { skillsSh: 'P/off' }, '/api/v1/skills/acme/review/1.0.0'],
  ['a skills.sh file', 'skills.sh/acme/offfile/1.0.0', {}, '/raw/notes/x.md'],
];
for (const [what, url, sources, target] of refused)
  test(`install_skill: a redirect off the granted host:port is refused, naming it: ${what}`, async () => {
    const at = (s: string | undefined) => s?.replace(/^P/, P);
    const { rt, installed } = setup({
      ...(sources.githubApi ? { githubApi: at(sources.githubApi) } : {}),
      ...(sources.skillsSh ? { skillsSh: at(sources.skillsSh) } : {}),
    });
    hitsOnQ.length = 0;
    const r = await rt.call('install_skill', { url: at(url) });
    assert.equal(r.isError, true, r.content);
    assert.match(r.content, offTarget(target));
    assert.deepEqual(hitsOnQ, [], 'the other server was never contacted');
    assert.deepEqual(installed(), []);
  });

test('install_skill: redirects within the granted host are followed, a bounded number of times', async () => {
  const { rt, installed } = setup({ githubApi: `${P}/same` });
  const raw = await rt.call('install_skill', { url: `${P}/same/raw/SKILL.md` });
  assert.match(raw.content, /^Installed the skill "review" \(1 file,/);
  const listed = await rt.call('install_skill', { url: tree('review') });
  assert.match(listed.content, /^Installed the skill "review" \(2 files,/);
  assert.deepEqual(installed(), ['review']);

  const looping = setup();
  const loop = await looping.rt.call('install_skill', { url: `${P}/loop` });
  assert.match(
    loop.content,
    new RegExp(`/loop redirected more than ${MAX_REDIRECTS} times \\(last to ${P}/loop\\d+\\)`),
  );
  assert.deepEqual(looping.installed(), []);
});
