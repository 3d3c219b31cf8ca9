/**
 * `npm run bench -- --edits [--seed N] [--scale X] [--per N] [--baseline DIR]`: builds the seeded edit corpus and prints,
 * for MewCode's matcher and the exact-only rule, how many cases each applied right, applied WRONG,
 * refused naming the intended place first, or refused with a useless hint — per mistake kind and in
 * all, and the wrong applications by cause (whitespace only, a blank line, old_string exact elsewhere,
 * other). Deterministic for a seed; no timings (the matcher's speed on big files is a test, not a race).
 * `--baseline DIR` scores another checkout's matcher (DIR/lib/edit/replace.ts, e.g. `git archive` of an
 * older commit with node_modules linked in) on the same cases: the corpus is built from this tree's
 * files, so two trees' runs differ in cases, and a before/after comparison needs one run.
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import {
  type Attempt,
  attempt,
  buildCorpus,
  CAUSES,
  exactOnly,
  mewcode,
  OUTCOMES,
  score,
  type Tally,
} from './corpus.ts';

const pct = (a: number, b: number) => (b === 0 ? '—' : `${((100 * a) / b).toFixed(1)}%`);

function table(title: string, tally: Tally): string[] {
  const kinds = Object.keys(tally).filter((k) => k !== 'all');
  const w = Math.max(...kinds.map((k) => k.length), 10);
  const head = `| ${'kind'.padEnd(w)} | cases | ${OUTCOMES.map((o) => o.padStart(o.length)).join(' | ')} |`;
  const rows = [...kinds.sort(), 'all'].map((k) => {
    const t = tally[k] as Record<(typeof OUTCOMES)[number], number>;
    const n = OUTCOMES.reduce((s, o) => s + t[o], 0);
    return `| ${(k === 'all' ? '**all**' : k).padEnd(w)} | ${String(n).padStart(5)} | ${OUTCOMES.map((o) => String(t[o]).padStart(o.length)).join(' | ')} |`;
  });
  return [
    `${title}`,
    head,
    `|${'-'.repeat(w + 2)}|------:|${OUTCOMES.map((o) => `${'-'.repeat(o.length + 1)}:`).join('|')}|`,
    ...rows,
    '',
  ];
}

export async function runEditBench(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      edits: { type: 'boolean' },
      seed: { type: 'string', default: '13' },
      scale: { type: 'string', default: '1' },
      per: { type: 'string', default: '3' },
      baseline: { type: 'string' },
    },
    allowPositionals: true,
  });
  const seed = Number(values.seed);
  const { cases, files, skipped } = buildCorpus(seed, Number(values.scale), Number(values.per));
  const out: string[] = [`edit corpus: seed ${seed}, ${files} source files, ${cases.length} cases`];
  const skips = Object.entries(skipped);
  if (skips.length)
    out.push(
      `left out (the mistake produced another place's exact text): ${skips.map(([k, n]) => `${k} ${n}`).join(', ')}`,
    );
  out.push('');
  const contenders: [string, (c: (typeof cases)[number]) => Attempt][] = [
    ['MewCode', mewcode],
    ['exact-only', exactOnly],
  ];
  if (values.baseline) {
    const mod = await import(path.resolve(values.baseline, 'lib/edit/replace.ts'));
    contenders.splice(1, 0, ['baseline', (c) => attempt(mod.replaceText, c)]);
  }
  const totals: string[] = [
    '| | applied, right | applied, WRONG | refused, names the right place | refused, useless hint |',
    '|---|---:|---:|---:|---:|',
  ];
  let wrong = 0;
  const causes: string[] = [`| | ${CAUSES.join(' | ')} |`, `|---|${CAUSES.map(() => '---:').join('|')}|`];
  for (const [name, run] of contenders) {
    const { tally, wrong: bad, causes: why } = score(cases, run);
    out.push(...table(`${name}, per mistake kind:`, tally));
    causes.push(`| ${name} | ${CAUSES.map((k) => why[k].length).join(' | ')} |`);
    const t = tally.all as Record<(typeof OUTCOMES)[number], number>;
    const refused = t['refused, right place'] + t['refused, useless'];
    totals.push(
      `| ${name} | ${t.right} (${pct(t.right, cases.length)}) | ${t.WRONG} | ${t['refused, right place']} (${pct(t['refused, right place'], refused)} of refusals) | ${t['refused, useless']} |`,
    );
    if (name === 'MewCode') {
      wrong = bad.length;
      for (const c of bad.slice(0, 5)) out.push(`WRONG: ${c.kind} in ${c.file} at lines ${c.places[0]?.join('–')}`);
    }
  }
  out.push('all cases:', ...totals, '', 'wrong applications by cause:', ...causes, '');
  process.stdout.write(`${out.join('\n')}\n`);
  return wrong === 0 ? 0 : 1;
}
