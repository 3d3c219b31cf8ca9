/**
 * How the regex engine was chosen (docs/regex-engine.md): correctness on the ripgrep-syntax pattern
 * table (test/search/rg_syntax_cases.ts) against a live rg, and speed on a realistic search, for
 *   translate — ripgrep syntax parsed and translated to a V8 `v`-flag RegExp (what grep uses),
 *   re2js     — the pure-JavaScript RE2 port, given the pattern as is,
 *   js        — the pattern handed to V8 as a JavaScript regex (what grep did before).
 * Speed: every line of a source-like text tested with each of a few patterns, no literal prefilter,
 * engines interleaved, median of the repetitions. Usage: node --import tsx bench/regex_engines.ts [--reps N]
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { RE2JS } from 're2js';
import { compileRegex } from '../lib/search/matcher.ts';
import { writeTree } from '../test/helpers/temp.ts';
import { SYNTAX_CASES, SYNTAX_TREE } from '../test/search/rg_syntax_cases.ts';

type Tester = (line: string) => boolean;
type Engine = (pattern: string, ignoreCase: boolean) => Tester;

const ENGINES: Record<string, Engine> = {
  translate: (p, i) => {
    const r = compileRegex(p, { ignoreCase: i, fixedStrings: false });
    if (!r.ok) throw new Error(r.error);
    const re = r.value.line;
    return (l) => re.test(l);
  },
  re2js: (p, i) => {
    const re = RE2JS.compile(p, i ? RE2JS.CASE_INSENSITIVE : 0);
    return (l) => re.matcher(l).find();
  },
  js: (p, i) => {
    const re = new RegExp(p, (i ? 'i' : '') + (/\\[pPu]\{/.test(p) ? 'u' : ''));
    return (l) => re.test(l);
  },
};

function correctness(): Record<string, number> {
  const root = mkdtempSync(path.join(tmpdir(), 'mewcode-engines-'));
  writeTree(root, SYNTAX_TREE);
  const lines = Object.entries(SYNTAX_TREE).flatMap(([f, text]) =>
    text
      .split('\n')
      .slice(0, text.endsWith('\n') ? -1 : undefined)
      .map((l, n) => ({ key: `${f}:${n + 1}`, l })),
  );
  const score: Record<string, number> = Object.fromEntries(Object.keys(ENGINES).map((e) => [e, 0]));
  const cases = SYNTAX_CASES.filter((c) => !c.multiline && !c.rg);
  for (const c of cases) {
    const r = spawnSync(
      'rg',
      ['--no-config', '-n', '--with-filename', '--no-heading', ...(c.ignoreCase ? ['-i'] : []), '-e', c.pattern, '.'],
      {
        cwd: root,
        encoding: 'utf8',
      },
    );
    const rgError = r.status === 2;
    const want = new Set(
      r.stdout
        .split('\n')
        .filter(Boolean)
        .map((s) => s.replace(/^\.\//, '').replace(/^(.*?:\d+):.*$/, '$1')),
    );
    for (const [name, engine] of Object.entries(ENGINES)) {
      let ok: boolean;
      try {
        const t = engine(c.pattern, c.ignoreCase ?? false);
        ok = !rgError && lines.every(({ key, l }) => t(l) === want.has(key));
      } catch {
        ok = rgError;
      }
      if (ok) (score[name] as number)++;
    }
  }
  rmSync(root, { recursive: true, force: true });
  console.log(`correctness: cases agreeing with rg ${JSON.stringify(score)} of ${cases.length}`);
  return score;
}

function sourceText(): string[] {
  const files: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d)) {
      const p = path.join(d, e);
      if (statSync(p).isDirectory()) walk(p);
      else if (p.endsWith('.ts')) files.push(p);
    }
  };
  walk(path.join(import.meta.dirname, '..', 'lib'));
  const lines = files.flatMap((f) => readFileSync(f, 'utf8').split('\n'));
  return Array.from({ length: 4 }, () => lines).flat();
}

function speed(reps: number) {
  const lines = sourceText();
  const patterns: [string, boolean][] = [
    ['function\\s+\\w+', false],
    ['\\bconst\\s+[a-z]+\\s*=', false],
    ['error', true],
    ['[A-Z][a-z]+Error', false],
    ['(?:import|export) .* from', false],
  ];
  console.log(`speed: ${lines.length} lines, ${reps} repetitions, median ms per pattern (ratio to translate)`);
  for (const [p, i] of patterns) {
    const times: Record<string, number[]> = {};
    const counts: Record<string, number> = {};
    for (let r = 0; r < reps; r++) {
      for (const [name, engine] of Object.entries(ENGINES)) {
        let t: Tester;
        try {
          t = engine(p, i);
        } catch {
          continue;
        }
        const t0 = performance.now();
        let n = 0;
        for (const l of lines) if (t(l)) n++;
        times[name] = [...(times[name] ?? []), performance.now() - t0];
        counts[name] = n;
      }
    }
    const med = (a: number[]) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)] as number;
    const base = med(times.translate ?? [1]);
    const cells = Object.entries(times).map(
      ([n, a]) => `${n} ${med(a).toFixed(1)} (${(med(a) / base).toFixed(2)}x, ${counts[n]} lines)`,
    );
    console.log(`  ${i ? '-i ' : ''}${p}: ${cells.join(' | ')}`);
  }
}

const { values } = parseArgs({ options: { reps: { type: 'string' } } });
correctness();
speed(Number(values.reps ?? 5));
