/**
 * The tool index behind tool_search: a tool's whole name (or its own part of an MCP name) ranks first
 * whatever the text says, then names the query starts, then BM25; and on the benchmark's 300
 * generated tools, the 60 queries find their tool in the top five at least 95% of the time, every
 * name always.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fullName, QUERIES, SERVERS, serverTools } from '../../bench/tool_search_data.ts';
import { ownName, stem, toolIndex, words } from '../../lib/agent/tool_index.ts';

const tool = (name: string, description: string, params: Record<string, string> = {}) => ({
  name,
  description,
  inputSchema: {
    type: 'object' as const,
    properties: Object.fromEntries(Object.entries(params).map(([k, d]) => [k, { type: 'string', description: d }])),
  },
});

const TABLE = [
  tool('mcp__gh__search', 'Looks things up.'),
  tool('mcp__gh__search_code', 'Search code: search the code of every repository, search by path.', {
    q: 'Search query',
  }),
  tool('mcp__gh__create_issue', 'Creates a new issue in a repository.', { title: 'Issue title', body: 'Issue body' }),
  tool('mcp__jira__create_issue', 'Creates a Jira ticket.', { summary: 'One-line summary' }),
  tool('mcp__gh__list_issues', 'Lists the issues of a repository.', { state: 'open or closed' }),
  tool('mcp__slack__postMessage', 'Posts a message to a channel.', { channel_id: 'Channel' }),
];
const names = (q: string, n = 10) =>
  toolIndex(TABLE)
    .search(q, n)
    .map((h) => `${h.tier}:${h.tool.name}`);

test('tool index: a whole name ranks first, even when the text favours another tool', () => {
  // search_code says "search" four times; the tool named search says it not at all.
  assert.deepEqual(names('search', 2), ['exact:mcp__gh__search', 'prefix:mcp__gh__search_code']);
  assert.deepEqual(names('mcp__gh__search_code', 1), ['exact:mcp__gh__search_code']);
  // The tool's own part matches on every server that has it.
  assert.deepEqual(names('create_issue', 2).sort(), ['exact:mcp__gh__create_issue', 'exact:mcp__jira__create_issue']);
  // A name among other words counts too.
  assert.equal(names('use mcp__jira__create_issue for the bug')[0], 'exact:mcp__jira__create_issue');
  assert.equal(names('`mcp__slack__postMessage`')[0], 'exact:mcp__slack__postMessage');
  assert.equal(names('call "mcp__gh__list_issues" please')[0], 'exact:mcp__gh__list_issues');
});

test('tool index: names the query starts come next, then BM25 on words', () => {
  // Then the words: "create" ranks Jira's create_issue above the server's other tools (which match "gh").
  assert.deepEqual(names('mcp__gh__create').slice(0, 2), [
    'prefix:mcp__gh__create_issue',
    'text:mcp__jira__create_issue',
  ]);
  assert.deepEqual(names('list_iss', 1), ['prefix:mcp__gh__list_issues']);
  // Too short to be a name's start: "se" is only words.
  assert.ok(!names('se').some((n) => n.startsWith('prefix:')));
  // Plurals and camelCase fold: "posts messages" finds postMessage; "issues" finds both issue tools
  // ahead of the one whose name does not say issue.
  assert.equal(names('posts messages')[0], 'text:mcp__slack__postMessage');
  const issues = names('issues in a repository');
  assert.equal(issues.length, 4);
  assert.deepEqual(issues.slice(0, 3).sort(), [
    'text:mcp__gh__create_issue',
    'text:mcp__gh__list_issues',
    'text:mcp__jira__create_issue',
  ]);
  assert.equal(issues[3], 'text:mcp__gh__search_code');
  // A synonym finds at a lower weight than the word itself: "ticket" prefers Jira's, which says ticket.
  assert.equal(names('open a ticket')[0], 'text:mcp__jira__create_issue');
  assert.deepEqual(names('zebra quantum'), []);
});

test('tool index: words, stems and names split as the index does', () => {
  assert.deepEqual(words('mcp__slack__postMessage'), ['slack', 'post', 'messag']);
  assert.deepEqual(['issues', 'queries', 'running', 'created', 'create', 'pass'].map(stem), [
    'issu',
    'query',
    'run',
    'creat',
    'creat',
    'pass',
  ]);
  assert.equal(ownName('mcp__my_srv__get_thing'), 'get_thing');
  assert.equal(ownName('read_file'), 'read_file');
});

test('tool index: recall@5 of the 60 benchmark queries over the 300 generated tools is at least 95%, names 100%', () => {
  const tools = SERVERS.flatMap((s) => serverTools(s).map((t) => ({ ...t, name: `mcp__${s}__${t.name}` })));
  assert.equal(tools.length, 300);
  assert.equal(new Set(tools.map((t) => t.name)).size, 300);
  assert.equal(QUERIES.length, 60);
  const index = toolIndex(tools);
  const missed = QUERIES.filter((q) => {
    const top = index.search(q.query, 5).map((h) => h.tool.name);
    return !q.want.map(fullName).some((w) => top.includes(w));
  });
  assert.ok(missed.length <= 3, `missed ${missed.length}: ${missed.map((q) => q.query).join(' | ')}`);
  assert.deepEqual(
    missed.filter((q) => q.kind === 'exact' || q.kind === 'prefix'),
    [],
  );
  // An exact name is not only in the top five: it is first.
  for (const q of QUERIES.filter((x) => x.kind === 'exact'))
    assert.equal(index.search(q.query, 1)[0]?.tool.name, fullName(q.want[0] ?? ''), q.query);
});
