import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import * as v from 'valibot';
import { schemaOf } from '../../lib/core/tool.ts';
import { toAnthropicTools } from '../../lib/llm/anthropic.ts';
import { fromStrictArgs, strictInexpressible, strictSchema } from '../../lib/llm/openai.ts';
import { DEFINITION_FORMATS } from '../../lib/runtime/runtime.ts';
import { REPO } from '../helpers/repo.ts';
import { runtimeAt } from '../helpers/runtime.ts';
import { tempDir } from '../helpers/temp.ts';

const rt = runtimeAt(tempDir());

for (const format of DEFINITION_FORMATS) {
  test(`schemas: the ${format} definitions match the golden snapshot`, () => {
    const file = path.join(REPO, 'test/snapshots', `${format}.json`);
    const actual = `${JSON.stringify(rt.definitions(format), null, 2)}\n`;
    if (process.env.UPDATE_SNAPSHOTS === '1' || !existsSync(file)) {
      writeFileSync(file, actual);
      if (process.env.UPDATE_SNAPSHOTS !== '1') assert.fail(`wrote a new snapshot ${file}; review and commit it`);
    }
    assert.equal(actual, readFileSync(file, 'utf8'), `run UPDATE_SNAPSHOTS=1 npm test to accept a schema change`);
  });
}

test('schemas: Anthropic input_schema carries the whole JSON Schema, nothing dropped', () => {
  const defs = rt.registry.definitions();
  const tools = toAnthropicTools(defs);
  for (const [i, d] of defs.entries()) assert.deepEqual(tools[i]?.input_schema, d.inputSchema);
  const rich = schemaOf(richParams);
  assert.deepEqual(
    toAnthropicTools([{ name: 'rich', description: 'd', inputSchema: rich, readOnly: true, system: false }])[0]
      ?.input_schema,
    rich,
  );
});

const richParams = v.strictObject({
  pattern: v.pipe(v.string(), v.minLength(1), v.description('What to find')),
  mode: v.optional(v.pipe(v.picklist(['a', 'b']), v.description('Mode')), 'a'),
  depth: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(9), v.description('Depth'))),
  edits: v.pipe(
    v.array(
      v.strictObject({
        old: v.pipe(v.string(), v.description('old text')),
        all: v.optional(v.pipe(v.boolean(), v.description('every match'))),
      }),
    ),
    v.minLength(1),
    v.description('Edits'),
  ),
});

test('schemas: the OpenAI strict form requires every key, makes optional ones nullable and keeps constraints as text', () => {
  const strict = strictSchema(schemaOf(richParams));
  assert.deepEqual(strict, {
    type: 'object',
    properties: {
      pattern: { type: 'string', description: 'What to find (at least 1 character)' },
      mode: { type: ['string', 'null'], enum: ['a', 'b', null], description: 'Mode (default "a")' },
      depth: { type: ['integer', 'null'], minimum: 0, maximum: 9, description: 'Depth' },
      edits: {
        type: 'array',
        minItems: 1,
        description: 'Edits',
        items: {
          type: 'object',
          properties: {
            old: { type: 'string', description: 'old text' },
            all: { type: ['boolean', 'null'], description: 'every match' },
          },
          required: ['old', 'all'],
          additionalProperties: false,
        },
      },
    },
    required: ['pattern', 'mode', 'depth', 'edits'],
    additionalProperties: false,
  });
});

test('schemas: strict-mode nulls for optional keys read back as absent, required nulls stay', () => {
  const schema = schemaOf(richParams);
  assert.deepEqual(fromStrictArgs(schema, { pattern: 'x', mode: null, depth: null, edits: [] }), {
    pattern: 'x',
    edits: [],
  });
  assert.deepEqual(fromStrictArgs(schema, { pattern: null }), { pattern: null });
  assert.equal(fromStrictArgs(schema, 'text'), 'text');
  const parsed = v.safeParse(
    richParams,
    fromStrictArgs(schema, { pattern: 'x', mode: null, depth: null, edits: [{ old: 'o', all: null }] }),
  );
  assert.equal(
    parsed.success,
    false,
    'nested nulls are the caller’s to clean; the top level is what strict mode fills',
  );
});

test('strictInexpressible lists exactly what strictSchema moves into descriptions', () => {
  const schema = {
    $schema: 'http://json-schema.org/draft-07/schema#',
    type: 'object',
    properties: {
      name: { type: 'string', minLength: 1, pattern: '^[a-z]+$' },
      either: { oneOf: [{ type: 'string' }, { type: 'number' }] },
      tags: { type: 'array', uniqueItems: true, maxItems: 3, items: { type: 'string', maxLength: 9 } },
    },
    required: ['name'],
  };
  assert.deepEqual(strictInexpressible(schema), [
    'name: minLength',
    'either: oneOf',
    'tags: uniqueItems',
    'tags[]: maxLength',
  ]);
  type Node = { description?: string; pattern?: string; minLength?: number; oneOf?: unknown; items?: Node };
  const strict = strictSchema(schema) as { $schema?: unknown; description?: string; properties: Record<string, Node> };
  assert.equal(strict.$schema, undefined, '$schema is dropped without a note');
  assert.equal(strict.description, undefined);
  assert.equal(strict.properties.name?.pattern, '^[a-z]+$');
  assert.equal(strict.properties.name?.minLength, undefined);
  assert.match(strict.properties.name?.description ?? '', /at least 1 character\b/);
  assert.equal(strict.properties.either?.oneOf, undefined);
  assert.match(strict.properties.tags?.description ?? '', /items unique/);
  assert.match(strict.properties.tags?.items?.description ?? '', /at most 9 characters/);
});
