import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { after, before, test } from 'node:test';
import v8 from 'node:v8';
import vm from 'node:vm';
import { SKILL_LIMITS } from '../../lib/skills/fetch.ts';
import { treeDigest } from '../../lib/tools/install_skill.ts';
import { runtimeAt, tempDir, writeTree } from '../helpers.ts';

// A stand-in for GitHub's contents API and raw files, and for skills.sh, on 127.0.0.1.
type Node =
  | { type: 'file'; body: string | Buffer }
  | { type: 'dir'; children: Record<string, Node> }
  | { type: 'symlink' };
const repos: Record<string, Record<string, Node>> = {};
let base = '';
/** While set, requests get no answer at all (until the test lets go of them): a source that hangs. */
let stalled: ServerResponse[] | undefined;
const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
  if (stalled) {
    stalled.push(res);
    return;
  }
  const url = new URL(req.url ?? '/', base);
  const contents = /^\/repos\/([^/]+)\/([^/]+)\/contents\/?(.*)$/.exec(url.pathname);
  const json = (status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  if (contents) {
    const [, owner, repo, dir] = contents;
    if (owner === 'broken') return json(500, { message: 'boom' });
    let node: Node | undefined = { type: 'dir', children: repos[`${owner}/${repo}`] ?? {} };
    for (const part of (dir ?? '').split('/').filter(Boolean))
      node = node?.type === 'dir' ? node.children[part] : undefined;
    if (node?.type !== 'dir') return json(404, { message: 'Not Found' });
    return json(
      200,
      Object.entries(node.children).map(([name, n]) => ({
        name,
        path: `${dir}/${name}`,
        type: n.type,
        download_url:
          n.type !== 'file'
            ? null
            : name === 'foreign.md'
              ? 'http://169.254.169.254/foreign.md' // a host the GitHub permission does not cover
              : `${base}/raw/${owner}/${repo}/${dir}/${name}`,
      })),
    );
  }
  const raw = /^\/raw\/([^/]+)\/([^/]+)\/(.*)$/.exec(url.pathname);
  if (raw) {
    let node: Node | undefined = { type: 'dir', children: repos[`${raw[1]}/${raw[2]}`] ?? {} };
    for (const part of (raw[3] ?? '').split('/').filter(Boolean))
      node = node?.type === 'dir' ? node.children[part] : undefined;
    if (node?.type !== 'file') return json(404, { message: 'Not Found' });
    res.writeHead(200);
    res.end(node.body);
    return;
  }
  const sh = /^\/api\/v1\/skills\/([^/]+)\/([^/]+)\/([^/]+)$/.exec(url.pathname);
  if (sh)
    return json(200, {
      files: [
        { path: 'SKILL.md', url: `${base}/raw/acme/tools/review/SKILL.md` },
        {
          path: sh[2] === 'evil' ? '../escape.md' : 'notes/x.md',
          // 'elsewhere' points a file at a host the permission for skills.sh does not cover.
          url: sh[2] === 'elsewhere' ? 'http://169.254.169.254/x.md' : `${base}/raw/acme/tools/review/notes/x.md`,
        },
      ],
    });
  json(404, { message: 'Not Found' });
});
before(async () => {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => {
  server.closeAllConnections(); // keep-alive sockets of the clients would hold the file open
  server.close();
});

const skill = (name: string, extra = '') =>
  `---\nname: ${name}\ndescription: Reviews code for ${name}\n---\n# ${name}\nDo the review.${extra}\n`;
repos['acme/tools'] = {
  review: {
    type: 'dir',
    children: {
      'SKILL.md': { type: 'file', body: skill('review') },
      notes: { type: 'dir', children: { 'x.md': { type: 'file', body: 'notes' } } },
    },
  },
  nomd: { type: 'dir', children: { 'README.md': { type: 'file', body: 'no skill here' } } },
  huge: {
    type: 'dir',
    children: {
      'SKILL.md': { type: 'file', body: skill('huge') },
      'big.bin': { type: 'file', body: Buffer.alloc(SKILL_LIMITS.fileBytes + 1) },
    },
  },
  total: {
    type: 'dir',
    children: {
      'SKILL.md': { type: 'file', body: skill('total') },
      ...Object.fromEntries(
        Array.from({ length: 9 }, (_, i) => [
          `p${i}.bin`,
          { type: 'file', body: Buffer.alloc(SKILL_LIMITS.fileBytes - 10) },
        ]),
      ),
    },
  },
  many: {
    type: 'dir',
    children: {
      'SKILL.md': { type: 'file', body: skill('many') },
      ...Object.fromEntries(Array.from({ length: 64 }, (_, i) => [`f${i}.md`, { type: 'file', body: 'x' }])),
    },
  },
  deep: {
    type: 'dir',
    children: {
      'SKILL.md': { type: 'file', body: skill('deep') },
      a: {
        type: 'dir',
        children: {
          b: {
            type: 'dir',
            children: {
              c: { type: 'dir', children: { d: { type: 'dir', children: { 'x.md': { type: 'file', body: 'x' } } } } },
            },
          },
        },
      },
    },
  },
  link: { type: 'dir', children: { 'SKILL.md': { type: 'file', body: skill('link') }, evil: { type: 'symlink' } } },
  badname: { type: 'dir', children: { 'SKILL.md': { type: 'file', body: skill('Bad Name') } } },
  foreign: {
    type: 'dir',
    children: { 'SKILL.md': { type: 'file', body: skill('foreign') }, 'foreign.md': { type: 'file', body: 'x' } },
  },
};

// The download deadline stays at its default (60 s) here: no test but the deadline test may come near it.
function setup(timeoutMs?: number) {
  const root = tempDir();
  writeTree(root, { 'README.md': 'x\n' });
  const rt = runtimeAt(root, {
    workers: 0,
    skillSources: { githubApi: base, skillsSh: base, ...(timeoutMs ? { timeoutMs } : {}) },
    permissions: { allow: { net: true, write: ['.mewcode/skills'] } },
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
  stalled = [];
  try {
    const r = await rt.call('install_skill', { url: tree('review') });
    assert.match(r.content, /the download took longer than 1 s\. Nothing was installed\.$/);
    assert.deepEqual(left(), []);
  } finally {
    for (const res of stalled) res.destroy();
    stalled = undefined;
  }
});

test('install_skill: the deadline survives garbage collection while the source holds the request', {
  timeout: 60_000,
}, async () => {
  // A timer kept only weakly (AbortSignal.any over AbortSignal.timeout) vanished with a collection.
  v8.setFlagsFromString('--expose-gc');
  const gc = vm.runInNewContext('gc') as () => void;
  const { rt, left } = setup(1000);
  stalled = [];
  const collecting = setInterval(gc, 20);
  try {
    const r = await rt.call('install_skill', { url: tree('review') });
    assert.match(r.content, /the download took longer than 1 s\. Nothing was installed\.$/);
    assert.deepEqual(left(), []);
  } finally {
    clearInterval(collecting);
    for (const res of stalled) res.destroy();
    stalled = undefined;
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
  assert.match(r.content, /may not net "github\.com" \(network access is denied by default\)/);
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
