import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { applyBudget, charPrefix, fmtInt, utf8Prefix } from '../../lib/core/budget.ts';
import { tempDir } from '../helpers/temp.ts';

const strictDecode = (b: Buffer) => new TextDecoder('utf-8', { fatal: true }).decode(b);

test('budget: a UTF-8 cut never splits a multi-byte character or an emoji, at any offset', () => {
  for (const unit of ['é', '中', '😀', '👩‍👩‍👧', 'a']) {
    for (let pad = 0; pad < 8; pad++) {
      const text = 'a'.repeat(pad) + unit.repeat(50);
      for (let max = 0; max < 60; max++) {
        const { text: cut, bytes } = utf8Prefix(text, max);
        const encoded = Buffer.from(cut, 'utf8');
        assert.ok(encoded.length <= max, `${unit} pad ${pad} max ${max}`);
        assert.equal(encoded.length, bytes);
        assert.equal(strictDecode(encoded), cut);
        assert.ok(text.startsWith(cut));
        assert.ok(max - bytes < 4 || bytes === Buffer.byteLength(text), 'cuts at most one character short');
      }
    }
  }
});

test('budget: a character cut never leaves half a surrogate pair', () => {
  const text = `ab${'😀'.repeat(10)}`;
  for (let n = 0; n < text.length; n++) {
    const cut = charPrefix(text, n);
    assert.ok(text.startsWith(cut));
    assert.doesNotMatch(cut, /[\ud800-\udbff]$/);
    assert.ok(n - cut.length <= 1);
  }
});

test('budget: results within budget pass through untouched', () => {
  const r = { content: 'small', isError: false };
  assert.equal(applyBudget(r, { maxBytes: 100 }), r);
});

test('budget: an oversized result is cut with one marker and spilled whole to a private file', () => {
  const dir = tempDir();
  const content = `${'😀 line\n'.repeat(5000)}end`;
  const r = applyBudget({ content, isError: true, code: 'io' }, { maxBytes: 4096, spillDir: dir });
  assert.equal(r.isError, true);
  assert.equal(r.code, 'io');
  assert.ok(Buffer.byteLength(r.content) <= 4096);
  assert.equal(strictDecode(Buffer.from(r.content)), r.content);
  const spill = r.meta?.truncated?.spillPath ?? '';
  assert.ok(spill.startsWith(dir));
  assert.equal(readFileSync(spill, 'utf8'), content);
  const marker = r.content.split('\n').at(-1);
  assert.equal(
    marker,
    `[truncated: showing ${r.meta?.truncated?.shownBytes.toLocaleString('en-US')} of ${Buffer.byteLength(content).toLocaleString('en-US')} bytes; the whole output is in "${spill}"; read the rest with read_file (file_path "${spill}", offset = the next line)]`,
  );
  assert.equal(r.content.match(/\[truncated:/g)?.length, 1);
  assert.ok(
    r.content
      .split('\n')
      .slice(0, -1)
      .every((l) => l === '😀 line'),
    'the cut ends on a whole line',
  );
});

test('budget: when the spill cannot be written the marker says so instead of failing', () => {
  const r = applyBudget(
    { content: 'x'.repeat(10_000), isError: false },
    { maxBytes: 1000, spillDir: '/nonexistent/dir' },
  );
  assert.match(
    r.content,
    /\[truncated: showing [\d,]+ of 10,000 bytes; the rest could not be saved \(\/nonexistent\/dir\/\S+\.txt cannot be written: ENOENT\); narrow the request\]$/,
  );
  assert.equal(r.meta?.truncated?.spillPath, undefined);
});

test('fmtInt writes what toLocaleString("en-US") writes, for any number', () => {
  const xs = [0, -0, 1, -1, 999, 1000, -1000, 123456, 1234567, Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER];
  xs.push(1e21, 1.5, -2.25, Number.NaN, Number.POSITIVE_INFINITY);
  for (let bits = 0; bits <= 53; bits++) xs.push(2 ** bits - 1, -(2 ** bits) + 7, Math.floor(2 ** bits / 3));
  for (const x of xs) assert.equal(fmtInt(x), x.toLocaleString('en-US'), String(x));
});
