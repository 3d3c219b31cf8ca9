/**
 * One-shot rows of the benchmark: whole programs started per search, as a person or a script runs
 * them (spawn, read all output, exit), MewCode's bundle and `npx tsx mewcode.ts` beside rg, fd and the
 * bare start of node and tsx. Commands of a group are interleaved over the repetitions with the order
 * rotating; each row is a median and a ratio to its group's reference. Result sets are compared by
 * their number of result lines (notes and markers aside). The "node floor" rows (bench/node_floor.mjs)
 * walk the same tree with nothing but node:fs and no ignore rules (so their counts differ): what any
 * Node program pays for that walk, checked through descriptors as MewCode's is, or by plain paths.
 *
 * Standalone: node --import tsx bench/oneshot.ts <10k tree> <100k tree> [--reps N] [--baseline DIR]
 * (DIR: another checkout with its dist/ built, for before/after rows in the same run).
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { which } from './contenders.ts';

export interface Shot {
  name: string;
  cmd: string;
  args: string[];
  cwd: string;
  env?: Record<string, string>;
}

export interface ShotGroup {
  name: string;
  /** The first shot is the reference. */
  shots: Shot[];
}

export interface ShotRow {
  name: string;
  medianMs: number | null;
  ratio: number | null;
  /** Median CPU time (user + system) and its ratio to the reference's. */
  cpuMs: number | null;
  cpuRatio: number | null;
  /** Result lines of the first run. */
  items: number;
  note?: string;
}

const repo = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');

/**
 * CPU seconds of this process's waited-for children (user + system, with their own children), from
 * /proc/self/stat: on a loaded machine a command's wall time is mostly its wait for a core, its CPU
 * time is what it costs. Linux only (NaN elsewhere); resolution one clock tick (10 ms).
 */
export function childCpuMs(): number {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' '); // f[0] is field 3 (state)
    return ((Number(f[13]) + Number(f[14])) * 1000) / CLOCK_TICKS;
  } catch {
    return Number.NaN;
  }
}
const CLOCK_TICKS = 100;

function runShot(s: Shot): { ms: number; cpuMs: number; out: string; ok: boolean } {
  const cpu0 = childCpuMs();
  const t = process.hrtime.bigint();
  const r = spawnSync(s.cmd, s.args, {
    cwd: s.cwd,
    encoding: 'utf8',
    maxBuffer: 1 << 30,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...s.env },
  });
  const ms = Number(process.hrtime.bigint() - t) / 1e6;
  return { ms, cpuMs: childCpuMs() - cpu0, out: r.stdout ?? '', ok: r.status === 0 || r.status === 1 };
}

const resultLines = (s: string) => s.split('\n').filter((l) => l !== '' && !l.startsWith('[') && !l.startsWith('No '));

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
}

/** Times every group, its shots interleaved; `log` gets progress. */
export function runShots(groups: ShotGroup[], reps: number, log: (s: string) => void): Map<string, ShotRow[]> {
  const out = new Map<string, ShotRow[]>();
  for (const g of groups) {
    log(`● one-shot ${g.name}: ${g.shots.length} commands × ${reps}`);
    const samples = g.shots.map(() => [] as number[]);
    const cpu = g.shots.map(() => [] as number[]);
    const rows: ShotRow[] = g.shots.map((s) => {
      const first = runShot(s); // warm-up: page cache, tsx's transform cache
      return {
        name: s.name,
        medianMs: null,
        ratio: null,
        cpuMs: null,
        cpuRatio: null,
        items: resultLines(first.out).length,
        ...(first.ok ? {} : { note: `failed: ${first.out.slice(0, 60)}` }),
      };
    });
    for (let r = 0; r < reps; r++)
      for (let i = 0; i < g.shots.length; i++) {
        const k = (i + r) % g.shots.length;
        if (rows[k]?.note) continue;
        const shot = runShot(g.shots[k] as Shot);
        samples[k]?.push(shot.ms);
        cpu[k]?.push(shot.cpuMs);
      }
    const ref = samples[0]?.length ? median(samples[0]) : null;
    const cpuRef = cpu[0]?.length ? median(cpu[0]) : null;
    for (const [k, row] of rows.entries()) {
      if (!samples[k]?.length) continue;
      row.medianMs = median(samples[k]);
      row.ratio = ref ? row.medianMs / ref : null;
      row.cpuMs = median(cpu[k] as number[]);
      row.cpuRatio = cpuRef ? row.cpuMs / cpuRef : null;
    }
    out.set(g.name, rows);
  }
  return out;
}

/** The one-shot groups: `program` is the bundle's entry; `baseline` another checkout for before rows. */
export function oneShotGroups(o: {
  tree10k: string;
  tree100k: string;
  program: string;
  baseline?: string;
}): ShotGroup[] {
  const node = process.execPath;
  const rg = which('rg');
  const fd = which('fd') || which('fdfind');
  const npx = which('npx');
  const ours = (label: string, args: string[], cwd: string): Shot[] => [
    { name: `mewcode ${label}`, cmd: node, args: [o.program, ...args], cwd },
    ...(o.baseline
      ? [
          {
            name: `before: mewcode ${label}`,
            cmd: node,
            args: [path.join(o.baseline, 'dist/mewcode.mjs'), ...args],
            cwd,
          },
        ]
      : []),
  ];
  // Node's floor (bench/node_floor.mjs): the same walk with nothing but node:fs, no ignore rules.
  const floor = (label: string, args: string[], cwd: string): Shot[] =>
    (['checked', 'paths'] as const).map((how) => ({
      name: `  node floor, ${how === 'checked' ? 'checked walk' : 'plain paths'}: ${label}`,
      cmd: node,
      args: [path.join(repo, 'bench/node_floor.mjs'), how, ...args],
      cwd,
    }));
  const groups: ShotGroup[] = [
    {
      name: 'start',
      shots: [
        { name: 'node -e 0', cmd: node, args: ['-e', '0'], cwd: repo },
        ...ours('--version', ['--version'], repo),
        ...ours('--help', ['--help'], repo),
      ],
    },
  ];
  for (const [label, tree] of [
    ['10k', o.tree10k],
    ['100k', o.tree100k],
  ] as const) {
    if (rg)
      groups.push({
        name: `grep -l TODO, ${label} files`,
        shots: [
          { name: 'rg -l TODO', cmd: rg, args: ['-l', 'TODO'], cwd: tree },
          ...ours('grep TODO -l', ['grep', 'TODO', '-l', '--head-limit', '0'], tree),
          ...floor('grep TODO', ['grep', 'TODO'], tree),
        ],
      });
  }
  if (fd)
    groups.push({
      name: 'glob **/*.ts, 10k files',
      shots: [
        { name: `${path.basename(fd)} -g '*.ts'`, cmd: fd, args: ['-t', 'f', '-g', '*.ts'], cwd: o.tree10k },
        ...ours("glob '**/*.ts'", ['glob', '**/*.ts', '--limit', '100000'], o.tree10k),
        ...floor('glob .ts', ['glob', '.ts'], o.tree10k),
      ],
    });
  if (rg)
    groups.push({
      name: 'first 100 matching lines of TODO, 100k files',
      shots: [
        { name: 'rg -n TODO | head -100', cmd: 'sh', args: ['-c', `${rg} -n TODO | head -100`], cwd: o.tree100k },
        ...ours('grep TODO (head_limit 100)', ['grep', 'TODO', '--head-limit', '100'], o.tree100k),
      ],
    });
  if (npx) {
    const tsxShot = (name: string, root: string, env?: Record<string, string>): Shot => ({
      name,
      cmd: npx,
      args: ['tsx', path.join(root, 'mewcode.ts'), '--root', o.tree10k, 'grep', 'TODO', '-l', '--head-limit', '0'],
      cwd: root,
      ...(env ? { env } : {}),
    });
    groups.push({
      name: 'npx tsx, 10k files',
      shots: [
        { name: 'npx tsx -e 0', cmd: npx, args: ['tsx', '-e', '0'], cwd: repo },
        tsxShot('npx tsx mewcode.ts grep TODO -l', repo),
        tsxShot('  same, from source (MEWCODE_FROM_SOURCE=1)', repo, { MEWCODE_FROM_SOURCE: '1' }),
        ...(o.baseline ? [tsxShot('before: npx tsx mewcode.ts grep TODO -l', o.baseline)] : []),
      ],
    });
  }
  return groups;
}

export function formatShots(results: Map<string, ShotRow[]>): string {
  const out = [
    'one-shot (a new process per search; medians, ratios to the first row of each group; CPU = user + system):',
    `    ${'command'.padEnd(48)} ${'wall'.padStart(9)} ${'ratio'.padStart(7)} ${'CPU'.padStart(9)} ${'ratio'.padStart(7)} ${'items'.padStart(7)}`,
  ];
  for (const [name, rows] of results) {
    out.push(`  ${name}`);
    for (const r of rows) {
      const ms = r.medianMs === null ? '—' : `${r.medianMs.toFixed(0)} ms`;
      const ratio = r.ratio === null ? '' : `${r.ratio.toFixed(2)}×`;
      const cpuMs = r.cpuMs === null || Number.isNaN(r.cpuMs) ? '—' : `${r.cpuMs.toFixed(0)} ms`;
      const cpuRatio = r.cpuRatio === null || !Number.isFinite(r.cpuRatio) ? '' : `${r.cpuRatio.toFixed(2)}×`;
      out.push(
        `    ${r.name.padEnd(48)} ${ms.padStart(9)} ${ratio.padStart(7)} ${cpuMs.padStart(9)} ${cpuRatio.padStart(7)} ${String(r.items).padStart(7)}${r.note ? `  ${r.note}` : ''}`,
      );
    }
  }
  return `${out.join('\n')}\n`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { reps: { type: 'string' }, baseline: { type: 'string' }, only: { type: 'string' } },
  });
  const [tree10k, tree100k] = positionals.map((p) => path.resolve(p));
  if (!tree10k || !tree100k)
    throw new Error('usage: bench/oneshot.ts <10k tree> <100k tree> [--reps N] [--baseline DIR]');
  const groups = oneShotGroups({
    tree10k,
    tree100k,
    program: path.join(repo, 'dist/mewcode.mjs'),
    ...(values.baseline ? { baseline: path.resolve(values.baseline) } : {}),
  }).filter((g) => !values.only || g.name.includes(values.only));
  const log = (s: string) => process.stderr.write(`${s}\n`);
  process.stdout.write(formatShots(runShots(groups, Number(values.reps ?? 9), log)));
}

/** For `npm run bench`: builds dist/ (so the bundle and tsx's hand-over to it are current), times, formats. */
export function oneShotReport(tree100k: string, tree10k: string, reps: number, log: (s: string) => void): string {
  spawnSync(process.execPath, ['--import', 'tsx', path.join(repo, 'scripts/build.ts')], { cwd: repo, stdio: 'ignore' });
  const groups = oneShotGroups({ tree10k, tree100k, program: path.join(repo, 'dist/mewcode.mjs') });
  return formatShots(runShots(groups, Math.max(reps, 5), log));
}
