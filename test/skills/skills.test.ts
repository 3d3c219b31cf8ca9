import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import v8 from 'node:v8';
import vm from 'node:vm';
import { SKILL_LIMITS } from '../../lib/skills/fetch.ts';
import { treeDigest } from '../../lib/tools/install_skill.ts';
import { runtimeAt } from '../helpers/runtime.ts';
import { SYMLINK, startSkillHost } from '../helpers/skill_host.ts';
import { tempDir, writeTree } from '../helpers/temp.ts';

const skill = (name: string, extra = '') =>
  `---\nname: ${name}\ndescription: Reviews code for ${name}\n---\n# ${name}\nDo the review.${extra}\n`;
const spread = (dir: string, count: number, name: (i: number) => string, body: string | Buffer) =>
  Object.fromEntries(Array.from({ length: count }, (_, i) => [`${dir}/${name(i)}`, body]));

// A stand-in for GitHub's contents API and raw files, and for skills.sh, on 127.0.0.1.
const host = await startSkillHost({
  tree: {
    'acme/tools/review/SKILL.md': skill('review'),
    'acme/tools/review/notes/x.md': 'notes',
    'acme/tools/nomd/README.md': 'no skill here',
    'acme/tools/huge/SKILL.md': skill('huge'),
    'acme/tools/huge/big.bin': Buffer.alloc(SKILL_LIMITS.fileBytes + 1),
    'acme/tools/total/SKILL.md': skill('total'),
    ...spread('acme/tools/total', 9, (i) => `p${i}.bin`, Buffer.alloc(SKILL_LIMITS.fileBytes - 10)),
    'acme/tools/many/SKILL.md': skill('many'),
    ...spread('acme/tools/many', 64, (i) => `f${i}.md`, 'x'),
    'acme/tools/deep/SKILL.md': skill('deep'),
    'acme/tools/deep/a/b/c/d/x.md': 'x',
    'acme/tools/link/SKILL.md': skill('link'),
    'acme/tools/link/evil': SYMLINK,
    'acme/tools/badname/SKILL.md': skill('Bad Name'),
    'acme/tools/foreign/SKILL.md': skill('foreign'),
    'acme/tools/foreign/foreign.md': 'x',
  },
  downloadUrl: ({ owner, repo, path }) =>
    path.endsWith('/foreign.md')
      ? 'http://169.254.169.254/foreign.md' // a host the GitHub permission does not cover
      : `${host.url}/raw/${owner}/${repo}/${path}`,
  skillsSh: (_org, name) => [
    { path: 'SKILL.md', url: `${host.url}/raw/acme/tools/review/SKILL.md` },
    {
      path: name === 'evil' ? '../escape.md' : 'notes/x.md',
      // 'elsewhere' points a file at a host the permission for skills.sh does not cover.
      url: name === 'elsewhere' ? 'http://169.254.169.254/x.md' : `${host.url}/raw/acme/tools/review/notes/x.md`,
    },
  ],
  route: (url) =>
    url.pathname.startsWith('/repos/broken/')
      ? { status: 500, headers: { 'content-type': 'application/json' }, body: '{"message":"boom"}' }
      : undefined,
});
const base = host.url;

// The download deadline stays at its default (60 s) here: no test but the deadline test may come near it.
function setup(timeoutMs?: number) {
  const root = tempDir();
  writeTree(root, { 'README.md': 'x\n' });
  const rt = runtimeAt(root, {
    workers: 0,
    skillSources: { githubApi: base, skillsSh: base, ...(timeoutMs ? { timeoutMs } : {}) },
    // Every host, and the test server's loopback address named: no blanket grant reaches that.
    permissions: { allow: { net: ['*', new URL(base).host], write: ['.mewcode/skills'] } },
  });
  const skillsDir = path.join(root, '.mewcode', 'skills');
  const left = () => (existsSync(skillsDir) ? readdirSync(skillsDir).sort() : []);
  return { rt, root, skillsDir, left };
}
const tree = (dir: string) => `https://github.com/acme/tools/tree/main/${dir}`;

test('install_skill: a GitHub tree lands in .mewcode/skills/<name>, joins the catalog and loads', async () => {
  const { rt, skillsDir } = setup();
  const r = await rt.call('install_skill', { url: tree('review') });
  assert.equal(r.isError, false, r.content);
  const digest = treeDigest([
    { path: 'SKILL.md', bytes: Buffer.from(skill('review')) },
    { path: 'notes/x.md', bytes: Buffer.from('notes') },
  ]);
  assert.equal(
    r.content,
    `Installed the skill "review" (2 files, ${Buffer.byteLength(skill('review')) + 5} bytes) into .mewcode/skills/review; sha256 ${digest}. Load it with load_skill.`,
  );
  assert.equal(readFileSync(path.join(skillsDir, 'review/notes/x.md'), 'utf8'), 'notes');
  assert.deepEqual(
    rt.skills.list().map((s) => s.name),
    ['review'],
  );
  const loaded = await rt.call('load_skill', { name: 'review' });
  assert.equal(
    loaded.content,
    'Loaded the skill "review": its instructions are in the system prompt from the next turn on.',
  );
  assert.deepEqual(loaded.meta?.skill, { name: 'review', body: '# review\nDo the review.' });
  assert.equal(
    (await rt.call('load_skill', { name: 'nope' })).content,
    'There is no skill named "nope". Skills: review.',
  );
  // Pinned: the right digest installs again, a wrong one refuses and keeps what is there.
  assert.equal((await rt.call('install_skill', { url: tree('review'), sha256: digest })).isError, false);
  const wrong = await rt.call('install_skill', { url: tree('review'), sha256: '0'.repeat(64) });
  assert.match(wrong.content, new RegExp(`its sha256 is ${digest}, not the pinned 0{64}\\. Nothing was installed\\.$`));
});

test('install_skill: a raw SKILL.md URL and skills.sh/<org>/<name>/<version>', async () => {
  const { rt, left } = setup();
  assert.match(
    (await rt.call('install_skill', { url: `${base}/raw/acme/tools/review/SKILL.md` })).content,
    /^Installed the skill "review" \(1 file,/,
  );
  assert.match(
    (await rt.call('install_skill', { url: 'skills.sh/acme/review/1.0.0' })).content,
    /^Installed the skill "review" \(2 files,/,
  );
  assert.deepEqual(left(), ['review']);
});

const failures: [string, string, RegExp][] = [
  ['a file over 1 MiB', tree('huge'), /is larger than 1048576 bytes\. Nothing was installed\.$/],
  ['more than 8 MiB in all', tree('total'), /the skill is larger than 8388608 bytes in all\. Nothing was installed\.$/],
  ['more than 64 files', tree('many'), /the skill has more than 64 files\. Nothing was installed\.$/],
  ['deeper than 4 levels', tree('deep'), /a\/b\/c\/d\/ is deeper than 4 levels\. Nothing was installed\.$/],
  ['no SKILL.md', tree('nomd'), /it has no SKILL\.md at its top\. Nothing was installed\.$/],
  [
    'a symlink',
    tree('link'),
    /evil is a symlink, not a file or directory \(symlinks and submodules are refused\)\. Nothing was installed\.$/,
  ],
  ['a hostile skill name', tree('badname'), /SKILL\.md name "Bad Name" must be lowercase letters, digits, - or _/],
  [
    'a hostile path from skills.sh',
    'skills.sh/acme/evil/1.0.0',
    /skills\.sh listed an unsafe file "\.\.\/escape\.md"\. Nothing was installed\.$/,
  ],
  [
    'a file on another host from the GitHub listing',
    tree('foreign'),
    /the listing points foreign\.md at 169\.254\.169\.254, which is neither 127\.0\.0\.1:\d+ nor raw\.githubusercontent\.com\. Nothing was installed\.$/,
  ],
  [
    'a file on another host from skills.sh',
    'skills.sh/acme/elsewhere/1.0.0',
    /skills\.sh listed "notes\/x\.md" at 169\.254\.169\.254, not at 127\.0\.0\.1:\d+\. Nothing was installed\.$/,
  ],
  ['a missing directory', tree('nothing'), /answered 404 Not Found\. Nothing was installed\.$/],
  [
    'a server error',
    'https://github.com/broken/repo/tree/main/x',
    /answered 500 Internal Server Error\. Nothing was installed\.$/,
  ],
  ['not a URL at all', 'ftp://example.com/x', /is not a GitHub tree URL, a raw SKILL\.md URL or skills\.sh/],
];
for (const [what, url, message] of failures) {
  test(`install_skill: ${what} installs nothing and leaves nothing behind`, async () => {
    const { rt, left } = setup();
    const r = await rt.call('install_skill', { url });
    assert.equal(r.isError, true);
    assert.match(r.content, message);
    assert.deepEqual(left(), []);
    assert.deepEqual(rt.skills.list(), []);
  });
}

test('install_skill: a source that never answers times out at the deadline, leaving nothing', async () => {
  // The server holds every request: the deadline is the only thing that can end this install.
  const { rt, left } = setup(1000);
  const release = host.stall();
  try {
    const r = await rt.call('install_skill', { url: tree('review') });
    assert.match(r.content, /the download took longer than 1 s\. Nothing was installed\.$/);
    assert.deepEqual(left(), []);
  } finally {
    release();
  }
});

test('install_skill: the deadline survives garbage collection while the source holds the request', {
  timeout: 60_000,
}, async () => {
  // A timer kept only weakly (AbortSignal.any over AbortSignal.timeout) vanished with a collection.
  v8.setFlagsFromString('--expose-gc');
  const gc = vm.runInNewContext('gc') as () => void;
  const { rt, left } = setup(1000);
  const release = host.stall();
  const collecting = setInterval(gc, 20);
  try {
    const r = await rt.call('install_skill', { url: tree('review') });
    assert.match(r.content, /the download took longer than 1 s\. Nothing was installed\.$/);
    assert.deepEqual(left(), []);
  } finally {
    clearInterval(collecting);
    release();
  }
});

test('install_skill: needs network permission for the source host', async () => {
  const root = tempDir();
  const rt = runtimeAt(root, {
    workers: 0,
    skillSources: { githubApi: base },
    permissions: { allow: { write: ['.mewcode/skills'] } }, // .mewcode/ is protected: only a grant naming it opens it
  });
  const r = await rt.call('install_skill', { url: tree('review') });
  assert.equal(r.code, 'permission_denied');
  assert.match(
    r.content,
    /wants to connect to "github\.com", and there is no prompt to ask\. Grant it with createRuntime's permissions: \{ allow: \{ net: \["github\.com"\] \} \}/,
  );
});

test('skills: the catalog reads project and user skills; the project wins; bad files are reported', () => {
  const root = tempDir();
  const home = tempDir();
  writeTree(root, {
    '.mewcode/skills/lint/SKILL.md': skill('lint'),
    '.mewcode/skills/broken/SKILL.md': 'no frontmatter',
  });
  writeTree(home, {
    '.mewcode/skills/lint/SKILL.md': skill('lint', ' (user)'),
    '.mewcode/skills/deploy/SKILL.md': skill('deploy'),
  });
  const rt = runtimeAt(root, { workers: 0, home });
  assert.deepEqual(
    rt.skills.list().map((s) => [s.name, s.level]),
    [
      ['lint', 'project'],
      ['deploy', 'user'],
    ],
  );
  assert.match(rt.skills.problems[0] ?? '', /broken\/SKILL\.md: no frontmatter/);
});

test('install_skill: a loopback address named in the URL needs a grant naming it, not every host', async () => {
  const root = tempDir();
  const rt = runtimeAt(root, { workers: 0, permissions: { allow: { net: true, write: ['.mewcode/skills'] } } });
  const r = await rt.call('install_skill', { url: `${base}/raw/acme/tools/review/SKILL.md` });
  assert.equal(r.code, 'permission_denied');
  assert.ok(r.content.includes(`net: ["${new URL(base).host}"]`), r.content);
});
