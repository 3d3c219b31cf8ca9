/**
 * The contenders of the search benchmark. Each runs one search and returns its result set as
 * normalised items ("path:count" for grep, paths for glob) so the harness can compare every result
 * set with every other before any timing is believed. Spawned tools are timed as an agent runs them:
 * spawn, read all output, wait for exit.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Runtime } from '../lib/runtime/runtime.ts';
import { naiveGrepCounts } from './naive.ts';

export interface GrepCase {
  kind: 'grep';
  name: string;
  pattern: string;
  ignoreCase: boolean;
  /** Apply ignore files and skip hidden entries (false = rg -uu). */
  ignore: boolean;
}
export interface GlobCase {
  kind: 'glob';
  name: string;
  pattern: string;
  /** fd/rg/find spelling of the same pattern, matched on the file name. */
  namePattern: string;
  ignore: boolean;
}
export type BenchCase = GrepCase | GlobCase;

export interface Contender {
  name: string;
  /** Why it cannot run here, if it cannot. */
  missing?: string;
  run(root: string): Promise<string[]>;
}

const require = createRequire(import.meta.url);
const repo = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');

function exec(cmd: string, args: string[], cwd: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    const chunks: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => chunks.push(c));
    child.stderr.resume();
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 || code === 1
        ? resolve(Buffer.concat(chunks).toString('utf8'))
        : reject(new Error(`${cmd} exited ${code}`)),
    );
  });
}

export const which = (cmd: string) => spawnSync('sh', ['-c', `command -v ${cmd}`], { encoding: 'utf8' }).stdout.trim();
const lines = (s: string) => s.split('\n').filter((l) => l !== '');
/** A MewCode answer's result lines, without its notes. */
const resultLines = (s: string) => lines(s).filter((l) => !l.startsWith('[') && !l.startsWith('No '));
const clean = (p: string) => (p.startsWith('./') ? p.slice(2) : p);
/** "path:count" lines without zero counts (GNU grep prints them). */
const counts = (s: string) =>
  lines(s)
    .map(clean)
    .filter((l) => !l.endsWith(':0'));

function rgBinaries(): { name: string; path: string }[] {
  const out: { name: string; path: string }[] = [];
  const system = which('rg');
  if (system) out.push({ name: `rg ${version(system)} (Debian)`, path: system });
  try {
    const npmRg = (require('@vscode/ripgrep') as { rgPath: string }).rgPath;
    if (existsSync(npmRg)) out.push({ name: `rg ${version(npmRg)} (@vscode/ripgrep)`, path: npmRg });
  } catch {
    // not installed: the table says so through its absence
  }
  return out;
}
const version = (bin: string) =>
  /(\d+\.\d+\.\d+)/.exec(spawnSync(bin, ['--version'], { encoding: 'utf8' }).stdout)?.[1] ?? '?';

/** MewCode called through a runtime kept open, as an agent loop or an MCP server calls it. */
export function mewcodeWarm(label: string, runtime: Runtime, c: BenchCase): Contender {
  return {
    name: label,
    async run() {
      const input =
        c.kind === 'grep'
          ? {
              pattern: c.pattern,
              output_mode: 'count',
              head_limit: 0,
              case_insensitive: c.ignoreCase,
              include_ignored: !c.ignore,
            }
          : { pattern: c.pattern, limit: 100_000, include_ignored: !c.ignore };
      const r = await runtime.call(c.kind, input);
      if (r.isError) throw new Error(r.content);
      // A result over the output budget is spilled whole to a file, as an agent would then read it.
      const spill = r.meta?.truncated?.spillPath;
      const text = spill ? readFileSync(spill, 'utf8') : r.content;
      if (spill) rmSync(spill, { force: true });
      return resultLines(text);
    },
  };
}

/** MewCode as a one-shot CLI process per call. */
function mewcodeCli(c: BenchCase): Contender {
  const tsx = path.join(repo, 'node_modules', '.bin', 'tsx');
  const args =
    c.kind === 'grep'
      ? ['grep', c.pattern, '-c', '--head-limit', '0', ...(c.ignoreCase ? ['-i'] : [])]
      : ['glob', c.pattern, '--limit', '100000'];
  if (!c.ignore) args.push('--include-ignored');
  return {
    name: 'mewcode CLI (tsx, one-shot)',
    run: async (root) => {
      const out = await exec(tsx, [path.join(repo, 'mewcode.ts'), '--root', root, ...args], root);
      // Over the output budget the answer names the file holding all of it.
      const spill = /the whole output is in "([^"]+)"/.exec(out)?.[1];
      const text = spill ? readFileSync(spill, 'utf8') : out;
      if (spill) rmSync(spill, { force: true });
      return resultLines(text);
    },
  };
}

export function grepContenders(c: GrepCase): Contender[] {
  const list: Contender[] = [mewcodeCli(c)];
  for (const rg of rgBinaries()) {
    const args = [
      '--no-config',
      '-c',
      ...(c.ignoreCase ? ['-i'] : []),
      ...(c.ignore ? [] : ['-uu', '-g', '!.git']),
      c.pattern,
      '.',
    ];
    list.push({ name: rg.name, run: async (root) => counts(await exec(rg.path, args, root)) });
  }
  const flags = `-rcIE${c.ignoreCase ? 'i' : ''}`;
  list.push(
    c.ignore
      ? { name: 'GNU grep -r', missing: 'no ignore-file support', run: async () => [] }
      : {
          name: 'GNU grep -r',
          run: async (root) => counts(await exec('grep', [flags, '--exclude-dir=.git', c.pattern, '.'], root)),
        },
  );
  const git = which('git');
  list.push(
    c.ignore && git
      ? {
          name: 'git grep --untracked',
          run: async (root) =>
            counts(
              await exec(
                'git',
                ['grep', '--untracked', '-c', '-I', '-E', ...(c.ignoreCase ? ['-i'] : []), c.pattern],
                root,
              ),
            ),
        }
      : {
          name: 'git grep --untracked',
          missing: git ? 'always applies ignore files' : 'git not installed',
          run: async () => [],
        },
  );
  list.push(
    c.ignore
      ? { name: 'naive serial JS (seed)', missing: 'no ignore-file support', run: async () => [] }
      : {
          name: 'naive serial JS (seed)',
          run: async (root) => naiveGrepCounts(root, new RegExp(c.pattern, c.ignoreCase ? 'i' : '')),
        },
  );
  return list;
}

export async function globContenders(c: GlobCase): Promise<Contender[]> {
  return [mewcodeCli(c), ...globTools(c), ...(await globLibraries(c))];
}

/** The command-line tools: fd, rg --files, and find when ignore files are off (find reads none). */
function globTools(c: GlobCase): Contender[] {
  const list: Contender[] = [];
  const fd = which('fdfind') || which('fd');
  if (fd) {
    const args = ['-t', 'f', '-t', 'l', '-g', c.namePattern, ...(c.ignore ? [] : ['-u', '-E', '.git'])];
    list.push({
      name: `${path.basename(fd)}${c.ignore ? '' : ' -u'}`,
      run: async (root) => lines(await exec(fd, args, root)).map(clean),
    });
  } else {
    list.push({ name: 'fd', missing: 'fd-find not installed', run: async () => [] });
  }
  const rg = rgBinaries()[0];
  if (rg) {
    const args = ['--no-config', '--files', '-g', c.namePattern, ...(c.ignore ? [] : ['-uu', '-g', '!.git'])];
    list.push({
      name: `rg --files (${rg.name.split(' ')[1]})`,
      run: async (root) => lines(await exec(rg.path, args, root)).map(clean),
    });
  }
  if (!c.ignore) {
    const names = c.namePattern.startsWith('*.{')
      ? c.namePattern
          .slice(3, -1)
          .split(',')
          .flatMap((e, i) => [...(i ? ['-o'] : []), '-name', `*.${e}`])
      : ['-name', c.namePattern];
    list.push({
      name: 'find',
      run: async (root) =>
        lines(
          await exec(
            'find',
            [
              '.',
              '-path',
              './.git',
              '-prune',
              '-o',
              '(',
              ...names,
              ')',
              '(',
              '-type',
              'f',
              '-o',
              '-type',
              'l',
              ')',
              '-print',
            ],
            root,
          ),
        ).map(clean),
    });
  }
  return list;
}

/** The JavaScript glob libraries, imported only when a glob case runs. */
async function globLibraries(c: GlobCase): Promise<Contender[]> {
  const list: Contender[] = [];
  const fg = (await import('fast-glob')).default;
  const { glob: tinyglobby } = await import('tinyglobby');
  const { fdir } = await import('fdir');
  const { globby } = await import('globby');
  const ignoreGit = ['**/.git/**'];
  if (!c.ignore) {
    list.push({
      name: 'fast-glob',
      run: (root) => fg(c.pattern, { cwd: root, dot: true, followSymbolicLinks: false, ignore: ignoreGit }),
    });
    list.push({
      name: 'tinyglobby',
      run: (root) =>
        tinyglobby(c.pattern, {
          cwd: root,
          dot: true,
          followSymbolicLinks: false,
          ignore: ignoreGit,
          expandDirectories: false,
        }),
    });
    list.push({
      name: 'fdir + picomatch',
      run: (root) =>
        new fdir()
          .withRelativePaths()
          .exclude((name) => name === '.git')
          .globWithOptions([c.pattern], { dot: true })
          .crawl(root)
          .withPromise(),
    });
    list.push({
      name: 'globby',
      run: (root) => globby(c.pattern, { cwd: root, dot: true, followSymbolicLinks: false, ignore: ignoreGit }),
    });
  } else {
    list.push({
      name: 'globby (gitignore)',
      run: (root) => globby(c.pattern, { cwd: root, gitignore: true, followSymbolicLinks: false }),
    });
  }
  return list;
}
