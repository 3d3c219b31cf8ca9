/**
 * A text written in pieces through the output budget (lib/core/budgeted_text.ts) gives the answer
 * `applyBudget` gives for the joined text, byte for byte — the model's text, the marker, the spill
 * file — wherever the pieces are cut and whatever the characters at the cut; and a written answer
 * that is not used leaves no spill file.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import * as v from 'valibot';
import { applyBudget } from '../../lib/core/budget.ts';
import { BudgetedText } from '../../lib/core/budgeted_text.ts';
import { defineTool, type ToolContext } from '../../lib/core/tool.ts';
import type { ToolResult } from '../../lib/core/tool_result.ts';
import { tempDir } from '../helpers/temp.ts';

/** A small seeded generator, so a failure reproduces. */
function prng(seed: number) {
  let s = seed >>> 0;
  return (n: number) => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s % n;
  };
}

/** `text` cut into pieces at `cuts` (sorted offsets; a cut may fall inside a surrogate pair). */
const piecesOf = (text: string, cuts: number[]) =>
  [0, ...cuts, text.length].slice(1).map((end, i, ends) => text.slice(i === 0 ? 0 : (ends[i - 1] as number), end));

/** The result with its spill file's name (random per spill) made comparable. */
const comparable = (r: ToolResult, file: string | undefined) => {
  const named = file ? r.content.split(file).join('<spill>') : r.content;
  const t = r.meta?.truncated;
  return { content: named, isError: r.isError, truncated: t && { ...t, spillPath: t.spillPath && '<spill>' } };
};

function check(text: string, pieces: string[], maxBytes: number, label: string) {
  const dir = tempDir('mewcode-budgeted-');
  const whole = applyBudget({ content: text, isError: false }, { maxBytes, spillDir: dir });
  const out = new BudgetedText({ maxBytes, spillDir: dir });
  for (const p of pieces) out.write(p);
  const streamed = out.result();
  assert.equal(out.finished, true);
  const wholeFile = whole.meta?.truncated?.spillPath;
  const streamedFile = streamed.meta?.truncated?.spillPath;
  assert.deepEqual(comparable(streamed, streamedFile), comparable(whole, wholeFile), label);
  assert.equal(streamedFile === undefined, wholeFile === undefined, label);
  if (streamedFile && wholeFile) {
    assert.equal(path.dirname(streamedFile), dir);
    assert.ok(readFileSync(streamedFile).equals(readFileSync(wholeFile)), `${label}: spill files differ`);
    assert.equal(statSync(streamedFile).mode & 0o777, 0o600);
  }
  // Nothing more than the one spill file each (or none when the text fits).
  assert.equal(readdirSync(dir).length, wholeFile ? 2 : 0, label);
}

test('budgeted text: pieces give applyBudget’s answer and spill file, at any cut and any budget', () => {
  const rand = prng(16);
  const units = ['a', 'é', '中', '😀', '\n', 'line of text\n', `${'x'.repeat(700)}\n`];
  for (let round = 0; round < 120; round++) {
    const maxBytes = [600, 1000, 4096, 70_000][round % 4] as number;
    let text = '';
    const target = [maxBytes - 1, maxBytes, maxBytes + 1, maxBytes * 3, 300_000][rand(5)] as number;
    // Counted unit by unit (each is whole characters, so the sizes add up): measuring the whole
    // text after every unit made building a 300 KB text quadratic, most of this test's time.
    for (let bytes = 0; bytes < target; ) {
      const unit = units[rand(units.length)] as string;
      text += unit;
      bytes += Buffer.byteLength(unit);
    }
    if (rand(2)) text = text.slice(0, -1); // sometimes a lone half of a pair at the end
    const cuts = new Set<number>();
    const n = [0, 1, 7, 200][rand(4)] as number;
    for (let i = 0; i < n; i++) cuts.add(rand(text.length));
    const pieces = piecesOf(
      text,
      [...cuts].sort((a, b) => a - b),
    );
    assert.equal(pieces.join(''), text);
    check(
      text,
      pieces,
      maxBytes,
      `round ${round}: ${text.length} chars in ${pieces.length} pieces, budget ${maxBytes}`,
    );
  }
});

test('budgeted text: one piece per line of a whole-tree-sized answer, and exactly at the budget', () => {
  const lines = Array.from({ length: 20_000 }, (_, i) => `src/dir${i % 97}/file-${i}-é.ts:${i % 13}`);
  check(
    lines.join('\n'),
    lines.map((l, i) => (i === 0 ? l : `\n${l}`)),
    256 * 1024,
    'lines',
  );
  const exact = 'y'.repeat(1000);
  check(exact, [exact.slice(0, 400), exact.slice(400)], 1000, 'exactly the budget: not cut');
  check(`${exact}z`, [exact, 'z'], 1000, 'one byte over: cut');
});

test('budgeted text: a spill directory that cannot be used gives the marker applyBudget gives', () => {
  const spillDir = path.join(tempDir(), 'missing');
  const text = 'x'.repeat(10_000);
  const whole = applyBudget({ content: text, isError: false }, { maxBytes: 1000, spillDir });
  const out = new BudgetedText({ maxBytes: 1000, spillDir });
  for (let i = 0; i < 10; i++) out.write(text.slice(i * 1000, (i + 1) * 1000));
  const streamed = out.result();
  const name = (r: ToolResult) => r.content.replace(/\/[^/ ]+\.txt cannot/, '/<spill> cannot');
  assert.equal(name(streamed), name(whole));
  assert.match(streamed.content, /the rest could not be saved \(.+ cannot be written: ENOENT\); narrow the request\]$/);
  assert.equal(streamed.meta?.truncated?.spillPath, undefined);
});

test('budgeted text: an answer written and then dropped leaves no spill file, through invoke too', async () => {
  const dir = tempDir('mewcode-budgeted-');
  const dropped = new BudgetedText({ maxBytes: 1000, spillDir: dir });
  dropped.write('z'.repeat(50_000));
  assert.equal(readdirSync(dir).length, 1, 'the spill started once past the budget');
  dropped.discard();
  assert.deepEqual(readdirSync(dir), []);
  // A tool that writes 500 KB past the budget, then finishes as `end` says, invoked on `dir`.
  const writeThen = (name: string, end: (ctx: ToolContext) => ToolResult) =>
    defineTool({
      name,
      description: 'test',
      lane: 'main',
      params: v.strictObject({}),
      access: () => [],
      async run(_args, ctx) {
        ctx.output?.write('w'.repeat(500_000));
        return end(ctx);
      },
    }).invoke({}, { root: dir, paths: [], signal: new AbortController().signal }, { spillDir: dir });
  // It throws after writing: the caller gets an error and no file stays.
  const r = await writeThen('writes_then_throws', () => {
    throw new Error('after writing');
  });
  assert.equal(r.code, 'internal');
  assert.deepEqual(readdirSync(dir), []);
  // It returns its written answer: one spill file, the answer cut once.
  const kept = await writeThen('writes', (ctx) => ctx.output?.result({ files: 1 }) ?? { content: '', isError: true });
  assert.equal(kept.meta?.files, 1);
  assert.equal(kept.content.match(/\[truncated:/g)?.length, 1);
  assert.equal(readFileSync(String(kept.meta?.truncated?.spillPath), 'utf8'), 'w'.repeat(500_000));
  assert.equal(readdirSync(dir).length, 1);
});
