/**
 * An image in the conversation costs what its pixels cost a model, not what its base64 would cost as
 * text (lib/agent/context_budget.ts): a megabyte of image data is about a thousand tokens, and a
 * cleared result drops its images with its text.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { imageTokens, limitImages, requestTokens, trim } from '../../lib/agent/context_budget.ts';
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

test('context: a request carries at most 20 images and 20 MiB of them, the newest kept, the others named as removed', () => {
  const small = { ...image, data: 'B'.repeat(1000), width: 10, height: 10 };
  const t: Message[] = [];
  for (let i = 0; i < 25; i++) {
    t.push({
      role: 'assistant',
      text: '',
      calls: [{ id: `c${i}`, name: 'read_file', input: { file_path: `${i}.png` } }],
    });
    t.push({
      role: 'tool_results',
      results: [{ id: `c${i}`, name: 'read_file', content: `Image ${i}`, isError: false, images: [small] }],
    });
  }
  assert.equal(limitImages(t), 5);
  const kept = t.flatMap((m) => (m.role === 'tool_results' ? m.results.filter((r) => r.images?.length) : []));
  assert.deepEqual(
    kept.map((r) => r.content),
    Array.from({ length: 20 }, (_, i) => `Image ${i + 5}`),
  );
  const first = t[1];
  assert.ok(first?.role === 'tool_results');
  assert.match(
    first.results[0]?.content ?? '',
    /^Image 0\n\[1 image of this result removed to keep the request within the providers' limits/,
  );
  assert.equal(limitImages(t), 0, 'nothing more to remove');
  const big = [
    {
      role: 'tool_results' as const,
      results: [
        {
          id: 'x',
          name: 'read_file',
          content: 'nb',
          isError: false,
          images: Array.from({ length: 6 }, () => ({ ...image, data: 'C'.repeat(4 * 1024 * 1024) })),
        },
      ],
    },
  ];
  assert.equal(limitImages(big), 1, 'six pictures of 4 MiB: five fit in 20 MiB');
});
