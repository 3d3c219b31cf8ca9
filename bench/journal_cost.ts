/**
 * What the change journal (lib/history/, docs/undo.md) adds to a write-tool call.
 *
 *   node --import tsx bench/journal_cost.ts [--n 300] [--big 40] [--files 20] [--size 2048]
 *
 * Two warm library runtimes (`workers: 0`), each on its own temp root holding the same files: one
 * with the journal on (in a temp directory), one with it off. Then, interleaved call by call with the
 * order alternating (so machine load weighs on both alike): N edit_file calls on small files, N
 * write_file calls replacing small files, and `--big` write_file calls of 1 MB (to separate the copy
 * of the bytes written from the per-call cost). Prints the median wall time per call on and off, the
 * difference of the medians, and the median of the paired differences. Figures only: no threshold.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createRuntime, type Runtime } from '../lib/runtime/runtime.ts';
import { median } from './oneshot.ts';

const { values } = parseArgs({
  options: {
    n: { type: 'string' },
    big: { type: 'string' },
    files: { type: 'string' },
    size: { type: 'string' },
  },
});
const N = Number(values.n ?? 300);
const BIG = Number(values.big ?? 40);
const FILES = Number(values.files ?? 20);
const SIZE = Number(values.size ?? 2048);

const base = mkdtempSync(path.join(tmpdir(), 'mewcode-journal-bench-'));
const filler = (i: number, size: number) => {
  const line = `// line ${i} of some source-like text, to make the file the size asked for\n`;
  return line.repeat(Math.ceil(size / line.length)).slice(0, size);
};

function runtime(label: 'on' | 'off'): Runtime {
  const root = path.join(base, label);
  mkdirSync(root);
  for (let i = 0; i < FILES; i++) {
    writeFileSync(path.join(root, `e${i}.ts`), `export const value = 0;\n${filler(i, SIZE)}`);
    writeFileSync(path.join(root, `w${i}.ts`), filler(i, SIZE));
  }
  writeFileSync(path.join(root, 'big.txt'), 'x');
  const made = createRuntime({
    root,
    workers: 0,
    index: 'off',
    home: null,
    allowWrite: true,
    journal: label === 'on' ? { dir: path.join(base, 'journal') } : false,
  });
  if (!made.ok) throw new Error(made.error);
  return made.value;
}

const rts = { on: runtime('on'), off: runtime('off') };
for (const rt of Object.values(rts)) {
  for (let i = 0; i < FILES; i++) {
    await rt.call('read_file', { file_path: `e${i}.ts` });
    await rt.call('read_file', { file_path: `w${i}.ts` });
  }
  await rt.call('read_file', { file_path: 'big.txt' });
}

type Input = (k: number) => [string, Record<string, unknown>];
const cases: [string, number, Input][] = [
  [
    `edit_file, ${SIZE} B file`,
    N,
    (k) => {
      const i = k % FILES;
      const n = Math.floor(k / FILES);
      const file_path = `e${i}.ts`;
      return ['edit_file', { file_path, old_string: `value = ${n};`, new_string: `value = ${n + 1};` }];
    },
  ],
  [
    `write_file, ${SIZE} B`,
    N,
    (k) => ['write_file', { file_path: `w${k % FILES}.ts`, content: `// ${k}\n${filler(k, SIZE)}` }],
  ],
  ['write_file, 1 MB', BIG, (k) => ['write_file', { file_path: 'big.txt', content: `// ${k}\n${filler(0, 1 << 20)}` }]],
];

const fmt = (ms: number) => `${ms.toFixed(3)} ms`;
for (const [label, count, input] of cases) {
  const times = { on: [] as number[], off: [] as number[] };
  // Warm-up (not timed): the first calls pay for compiling, the journal directory and its first collection.
  for (let k = 0; k < count + 3; k++) {
    const order = k % 2 ? (['off', 'on'] as const) : (['on', 'off'] as const);
    for (const which of order) {
      const [tool, args] = input(k);
      const t = performance.now();
      const r = await rts[which].call(tool, args);
      const ms = performance.now() - t;
      if (r.isError) throw new Error(`${label} (${which}) #${k}: ${r.content}`);
      if (which === 'on' && r.meta?.journal === undefined) throw new Error(`${label} #${k}: no journal entry`);
      if (k >= 3) times[which].push(ms);
    }
  }
  const on = median(times.on);
  const off = median(times.off);
  const paired = median(times.on.map((x, j) => x - (times.off[j] as number)));
  process.stdout.write(
    `${label} (${count} calls each): on ${fmt(on)}, off ${fmt(off)}, difference of medians ${fmt(on - off)}, median paired difference ${fmt(paired)}\n`,
  );
}
for (const rt of Object.values(rts)) await rt.close();
rmSync(base, { recursive: true, force: true });
