/**
 * install_skill follows a redirect only onto a host its permission covered: two real HTTP servers on
 * 127.0.0.1, the granted one (P) and another (Q). A redirect from P to Q — from a raw URL, the GitHub
 * contents listing, a GitHub download, the skills.sh index or a skills.sh file — fails naming the
 * target, Q is never contacted, and nothing is installed. Redirects within P are followed.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import { MAX_REDIRECTS } from '../../lib/skills/guarded_fetch.ts';
import { runtimeAt } from '../helpers/runtime.ts';
import { type SkillHost, startSkillHost } from '../helpers/skill_host.ts';
import { tempDir, writeTree } from '../helpers/temp.ts';

const SKILL = '---\nname: review\ndescription: Reviews code\n---\nDo the review.\n';
const FILES: Record<string, string> = { 'SKILL.md': SKILL, 'notes/x.md': 'notes' };

const prefixed = (dir: string) => Object.fromEntries(Object.entries(FILES).map(([f, body]) => [`${dir}/${f}`, body]));

/**
 * The same stand-in for GitHub's contents API, raw files (at /raw/<file of the skill>) and skills.sh
 * on both servers; on P, `/off/<rest>` answers 302 to Q's `/<rest>`, `/same/<rest>` 302 to its own
 * `/<rest>`, `/loop` forever. Both servers list files on P (so what Q lists would install): `offdl`
 * lists its files at P's /off/raw/…, which sends them on to Q; skills.sh's `offfile` its second one.
 */
async function skillServer(self: () => string): Promise<SkillHost> {
  return startSkillHost({
    tree: { ...FILES, ...prefixed('acme/tools/review'), ...prefixed('acme/tools/offdl') },
    downloadUrl: ({ path: inRepo }) => {
      const [top, ...rest] = inRepo.split('/');
      return `${top === 'offdl' ? `${P}/off` : P}/raw/${rest.join('/')}`;
    },
    skillsSh: (org, name, version) =>
      org === 'acme' && (name === 'review' || name === 'offfile') && version === '1.0.0'
        ? Object.keys(FILES).map((f, i) => ({
            path: f,
            url: `${name === 'offfile' && i === 1 ? `${P}/off` : P}/raw/${f}`,
          }))
        : undefined,
    route: (url) => {
      const redirect = (to: string) => ({ status: 302, headers: { location: to } });
      const rest = `${url.pathname.replace(/^\/(off|same)/, '')}${url.search}`;
      if (self() === P && url.pathname.startsWith('/off/')) return redirect(`${Q}${rest}`);
      if (self() === P && url.pathname.startsWith('/same/')) return redirect(rest);
      if (url.pathname.startsWith('/loop')) return redirect(`/loop${url.pathname.length}`);
      return undefined;
    },
  });
}

const p = await skillServer(() => P);
const q = await skillServer(() => Q);
const P = p.url; // the granted server
const Q = q.url; // the other one
const hitsOnQ = q.requests;

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
