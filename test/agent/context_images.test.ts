/**
 * An image in the conversation costs what its pixels cost a model, not what its base64 would cost as
 * text (lib/agent/context_budget.ts): a megabyte of image data is about a thousand tokens, and a
 * cleared result drops its images with its text.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { imageTokens, requestTokens, trim } from '../../lib/agent/context_budget.ts';
import type { Message } from '../../lib/llm/provider.ts';

const image = { mediaType: 'image/png' as const, data: 'A'.repeat(1_000_000), width: 1000, height: 1000 };

const conversation = (): Message[] => [
  { role: 'user', content: 'look' },
  { role: 'assistant', text: '', calls: [{ id: 'c1', name: 'read_file', input: { file_path: 'a.png' } }] },
  {
    role: 'tool_results',
    results: [{ id: 'c1', name: 'read_file', content: 'Image "a.png"', isError: false, images: [image] }],
  },
  { role: 'assistant', text: '', calls: [{ id: 'c2', name: 'read_file', input: { file_path: 'b.txt' } }] },
  { role: 'tool_results', results: [{ id: 'c2', name: 'read_file', content: 'b', isError: false }] },
];

test('context: an image is counted by its pixels, and clearing its result drops it', () => {
  const withImage = requestTokens('system', [], conversation());
  assert.equal(imageTokens(image), 1334);
  assert.ok(withImage > 1334 && withImage < 1334 + 500, `${withImage} tokens: the base64 is not counted as text`);
  const t = conversation();
  const report = trim(t, 1000);
  assert.equal(report.clearedResults, 1);
  const cleared = t[2];
  assert.ok(cleared?.role === 'tool_results');
  assert.equal(cleared.results[0]?.images, undefined);
  assert.match(cleared.results[0]?.content ?? '', /^\[cleared to save context: this read_file result/);
  assert.ok(requestTokens('system', [], t) < 500);
});
