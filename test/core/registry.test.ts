import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import * as v from 'valibot';
import { Registry } from '../../lib/core/registry.ts';
import { okValue } from '../../lib/core/result.ts';
import { type AnyTool, defineTool, ok, type ToolResult } from '../../lib/core/tool.ts';
import { TOOLS } from '../../lib/tools/mod.ts';
import { READ_TOOLS } from '../../lib/tools/read_tools.ts';
import { WRITE_TOOLS } from '../../lib/tools/write_tools.ts';
import { REPO } from '../helpers/repo.ts';

const allowed = { allow: true, by: 'test', reason: 'the test allows everything' };
const env = { root: '/', authorize: async () => okValue({ paths: [], decision: allowed }) };

function echoTool<const N extends string>(name: N, gate?: Promise<void>, run?: () => Promise<ToolResult>) {
  return defineTool({
    name,
    lane: 'pool',
    params: v.strictObject({ text: v.pipe(v.string(), v.description('what to echo')) }),
    description: `Echoes text (${name}).`,
    access: () => [],
    async run(a) {
      await gate;
      return run ? run() : ok(`${name}:${a.text}`);
    },
  });
}

test('registry: every built-in tool has a unique snake_case name', () => {
  const names = TOOLS.map((t) => t.name);
  assert.equal(new Set(names).size, names.length);
  for (const n of names) assert.match(n, /^[a-z][a-z0-9_]*$/);
});

test('registry: every property of every tool schema is described and snake_case', () => {
  for (const t of TOOLS as readonly AnyTool[]) {
    assert.equal(t.inputSchema.type, 'object', t.name);
    assert.equal(t.inputSchema.additionalProperties, false, `${t.name} must reject unknown keys`);
    for (const [key, prop] of Object.entries(t.inputSchema.properties)) {
      assert.match(key, /^[a-z][a-z0-9_]*$/, `${t.name}.${key}`);
      assert.ok(
        typeof prop.description === 'string' && prop.description.length > 10,
        `${t.name}.${key} has no description`,
      );
    }
    assert.ok(t.description.length > 40, `${t.name} needs a real description`);
  }
});

test('registry: backticked names in a description are real parameters', () => {
  for (const t of TOOLS as readonly AnyTool[]) {
    for (const [, word] of t.description.matchAll(/`([a-z_]+)`/g)) {
      assert.ok(word && word in t.inputSchema.properties, `${t.name} mentions \`${word}\`, which is not a parameter`);
    }
  }
});

test('registry: the read-only and write lists are disjoint and cover every tool file', () => {
  const read = new Set<string>(READ_TOOLS.map((t) => t.name));
  const write = new Set<string>((WRITE_TOOLS as readonly AnyTool[]).map((t) => t.name));
  for (const n of read) assert.ok(!write.has(n), `${n} is in both lists`);
  for (const t of READ_TOOLS) assert.equal(t.readOnly, true, t.name);
  for (const t of WRITE_TOOLS as readonly AnyTool[]) assert.equal(t.readOnly, false, t.name);
  const files = readdirSync(path.join(REPO, 'lib/tools'))
    .filter(
      (f) => f.endsWith('.ts') && !f.startsWith('_') && !['mod.ts', 'read_tools.ts', 'write_tools.ts'].includes(f),
    )
    .map((f) => f.replace(/\.ts$/, ''))
    .sort();
  assert.deepEqual(files, [...read, ...write].sort(), 'each tool file is one tool named like the file');
});

test('registry: order is registration order and replacing keeps the position', async () => {
  const r = new Registry([echoTool('a_tool'), echoTool('b_tool'), echoTool('c_tool')]);
  assert.deepEqual(r.names(), ['a_tool', 'b_tool', 'c_tool']);
  r.register({ ...echoTool('b_tool'), description: 'replaced' }, { replace: true });
  assert.deepEqual(r.names(), ['a_tool', 'b_tool', 'c_tool']);
  assert.equal(r.get('b_tool')?.description, 'replaced');
  assert.throws(() => r.register(echoTool('a_tool')), /already registered; pass \{ replace: true \}/);
  assert.throws(() => r.register(echoTool('d_tool'), { replace: true }), /not registered/);
});

test('registry: an unknown tool is an error listing the names, and prototype names reach nothing', async () => {
  const r = new Registry([echoTool('a_tool'), echoTool('b_tool')]);
  for (const name of [
    'nope',
    '__proto__',
    'constructor',
    'toString',
    'hasOwnProperty',
    'a_tool ',
    'A_tool',
    'a_tool\u200b',
  ]) {
    const res = await r.execute(name, { text: 'x' }, env);
    assert.equal(res.code, 'unknown_tool', name);
    assert.equal(res.content, `There is no tool named ${JSON.stringify(name)}. Available tools: a_tool, b_tool.`);
  }
});

test('registry: a name that is no string (a caller without types) is an unknown tool, never a throw', async () => {
  // Enough tools that the error passes the length past which quoted inputs are clipped (it threw there).
  const r = new Registry(Array.from({ length: 20 }, (_, i) => echoTool(`tool_number_${i}`)));
  const cycle: Record<string, unknown> = {};
  cycle.self = cycle;
  const throwing = {
    toString: () => {
      throw new Error('boom');
    },
  };
  const names: [unknown, string][] = [
    [undefined, 'undefined'],
    [null, 'null'],
    [7, '7'],
    [{}, '{}'],
    [['tool_number_0'], '["tool_number_0"]'],
    [Object.create(null), '{}'],
    [throwing, '{}'],
    [10n, 'a bigint'],
    [cycle, 'a object'],
    [Symbol('s'), 'symbol'],
  ];
  for (const [name, shown] of names) {
    const res = await r.execute(name as string, { text: 'x'.repeat(500) }, env);
    assert.equal(res.code, 'unknown_tool', shown);
    assert.ok(res.content.startsWith(`There is no tool named ${shown}. Available tools: tool_number_0,`), res.content);
  }
});

test('registry: a tool registered or replaced while a call is in flight leaves that call alone', async () => {
  let release!: () => void;
  const gate = new Promise<void>((r) => {
    release = r;
  });
  const r = new Registry([echoTool('slow_tool', gate)]);
  const inFlight = r.execute('slow_tool', { text: 'one' }, env);
  r.register(echoTool('late_tool'));
  r.register(
    echoTool('slow_tool', undefined, async () => ok('replacement')),
    { replace: true },
  );
  assert.equal((await r.execute('late_tool', { text: 'x' }, env)).content, 'late_tool:x');
  release();
  assert.equal((await inFlight).content, 'slow_tool:one');
  assert.equal((await r.execute('slow_tool', { text: 'two' }, env)).content, 'replacement');
  assert.ok(r.unregister('late_tool'));
  assert.equal((await r.execute('late_tool', { text: 'x' }, env)).code, 'unknown_tool');
});

test('registry: plan mode offers the read-only tools, system ones included, never a write-lane tool', () => {
  const sys = { ...echoTool('sys_tool'), system: true };
  const writer = { ...echoTool('writer_tool'), lane: 'write' as const, readOnly: false };
  const r = new Registry([echoTool('a_tool'), sys, writer]);
  assert.deepEqual(
    r.readOnlyDefinitions().map((d) => d.name),
    ['a_tool', 'sys_tool'],
  );
  assert.deepEqual(
    r.definitions().map((d) => d.name),
    ['a_tool', 'sys_tool', 'writer_tool'],
  );
});

test('registry: the decision that allowed a call travels with its result', async () => {
  const r = new Registry([echoTool('a_tool')]);
  const res = await r.execute('a_tool', { text: 'x' }, env);
  assert.deepEqual(res, { content: 'a_tool:x', isError: false, meta: { policy: allowed } });
});

test('registry: a tool that throws still answers, with the internal code of a broken invariant', async () => {
  const r = new Registry([
    echoTool('boom_tool', undefined, async () => {
      throw new Error('kaput');
    }),
  ]);
  const res = await r.execute('boom_tool', { text: 'x' }, env);
  assert.deepEqual(res, {
    content: 'boom_tool failed unexpectedly: kaput',
    isError: true,
    code: 'internal',
    meta: { policy: allowed },
  });
});

test('registry: invalid arguments are summarised, naming unknown keys and the real parameters', async () => {
  const r = new Registry(TOOLS);
  const res = await r.execute('read_file', { path: 'x' }, env);
  assert.equal(res.code, 'invalid_args');
  assert.equal(
    res.content,
    'Invalid arguments for read_file (received {"path":"x"}):\n' +
      '- missing required key file_path\n' +
      '- unknown key "path"; the parameters are file_path, offset, limit, pages\n' +
      'Expected an object with required file_path; optional offset, limit, pages.',
  );
  for (const bad of [
    null,
    '',
    {},
    [],
    'x',
    42,
    { file_path: 1 },
    { file_path: '' },
    { file_path: 'a', offset: 0 },
    { file_path: 'a', limit: 1.5 },
    { file_path: 'a', offset: '10' },
  ]) {
    const out = await r.execute('read_file', bad, env);
    assert.equal(out.code, 'invalid_args', JSON.stringify(bad));
    assert.match(out.content, /^Invalid arguments for read_file/);
  }
});

test('registry: __proto__ inside arguments is rejected and pollutes nothing', async () => {
  const r = new Registry(TOOLS);
  const res = await r.execute('read_file', JSON.parse('{"file_path":"a","__proto__":{"isAdmin":true}}'), env);
  assert.equal(res.code, 'invalid_args');
  assert.match(res.content, /unknown key "__proto__"/);
  assert.equal(({} as Record<string, unknown>).isAdmin, undefined);
});
