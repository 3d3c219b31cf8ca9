/**
 * One cgroup v2 per command, so that everything a command starts — `setsid`, double forks, `nohup`,
 * `disown` included — can be found and killed: a process cannot leave its cgroup without write access
 * to another cgroup's `cgroup.procs`. Command cgroups are children of the runtime's own cgroup, named
 * `mewcode-<pid>-<start time>-<n>` after the runtime that made them, so the next runtime can tell
 * those of a runtime that was SIGKILLed (its pid gone or reused) and sweep them. Main thread.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { errValue, okValue, type Result } from '../core/result.ts';

const PREFIX = 'mewcode-';
/** How long a kill waits for the kernel to report the cgroup empty before leaving it to the sweep. */
const EMPTY_WAIT_MS = 10_000;

/** A cgroup: its directory, and its name as /proc/<pid>/cgroup shows it (`0::<path>`). */
export interface Cgroup {
  dir: string;
  path: string;
}

/** This process's own cgroup in the cgroup v2 hierarchy, or why there is none. */
export function ownCgroup(): Result<Cgroup, string> {
  let mountinfo: string;
  let membership: string;
  try {
    mountinfo = readFileSync('/proc/self/mountinfo', 'utf8');
    membership = readFileSync('/proc/self/cgroup', 'utf8');
  } catch {
    return errValue('/proc is not readable');
  }
  const own = membership
    .split('\n')
    .find((l) => l.startsWith('0::'))
    ?.slice(3);
  if (own === undefined) return errValue('this process is in no cgroup v2 hierarchy');
  for (const line of mountinfo.split('\n')) {
    const [left, right] = line.split(' - ');
    if (right?.split(' ')[0] !== 'cgroup2') continue;
    const fields = (left ?? '').split(' ');
    const mountRoot = unescapeMount(fields[3] ?? '');
    const mountPoint = unescapeMount(fields[4] ?? '');
    // A mount of a subtree (a container's view) covers our cgroup only when it is below that subtree.
    const rel = path.posix.relative(mountRoot, own);
    if (rel.startsWith('..') || path.isAbsolute(rel)) continue;
    return okValue({ dir: path.join(mountPoint, rel), path: own });
  }
  return errValue('no cgroup v2 hierarchy is mounted (see /proc/self/mountinfo)');
}

/** mountinfo escapes space, tab, newline and backslash as octal. */
const unescapeMount = (s: string) => s.replace(/\\([0-7]{3})/g, (_, o: string) => String.fromCharCode(parseInt(o, 8)));

/** Field 22 of /proc/<pid>/stat: with the pid, it names one process for the life of the system. */
function startTime(pid: number | 'self'): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

let seq = 0;
let ownTag: string | undefined;

/** Creates a fresh command cgroup under `parent`. */
export function createCommandCgroup(parent: Cgroup): Result<Cgroup, string> {
  ownTag ??= `${PREFIX}${process.pid}-${startTime('self') ?? '0'}`;
  const name = `${ownTag}-${++seq}`;
  const dir = path.join(parent.dir, name);
  try {
    mkdirSync(dir);
    return okValue({ dir, path: path.posix.join(parent.path, name) });
  } catch (e) {
    return errValue(`cannot create the cgroup ${dir}: ${(e as NodeJS.ErrnoException).code ?? e}`);
  }
}

/**
 * The shell text that moves its own shell into the cgroup "$1", checks that it is there, says so on
 * fd 3, and only then runs "$@" (after shift): nothing the command starts can be outside the cgroup.
 * The check reads the kernel's answer, not the write's success.
 */
export const ENTER_SCRIPT = [
  'cg="$1"; want="$2"; shift 2',
  'echo 0 > "$cg/cgroup.procs" || exit 125',
  'in=; while IFS= read -r l; do [ "$l" = "0::$want" ] && in=1; done < /proc/self/cgroup',
  '[ -n "$in" ] || { echo "mewcode: the command did not land in its cgroup" >&2; exit 125; }',
  'echo in >&3; exec 3>&-',
  'exec "$@"',
].join('\n');

/**
 * Whether commands can be put in cgroups here: a real process is moved into a probe cgroup, which is
 * then killed and removed. Run once per process; a read-only or undelegated hierarchy says why not.
 */
export function probeCgroups(): Result<Cgroup, string> {
  const own = ownCgroup();
  if (!own.ok) return own;
  const made = createCommandCgroup(own.value);
  if (!made.ok) return made;
  const { dir } = made.value;
  try {
    const r = spawnSync('/bin/sh', ['-c', ENTER_SCRIPT, 'sh', dir, made.value.path, 'true'], {
      stdio: ['ignore', 'ignore', 'pipe', 'pipe'],
      encoding: 'utf8',
      timeout: 10_000,
    });
    if (r.status !== 0 || !String(r.output[3] ?? '').includes('in'))
      return errValue(`a process could not be moved into ${dir}: ${(r.stderr || `exit ${r.status}`).trim()}`);
    return okValue(own.value);
  } finally {
    removeTree(dir);
  }
}

/** Every process of the cgroup and of the cgroups below it. */
function pidsIn(dir: string): number[] {
  const pids: number[] = [];
  try {
    for (const p of readFileSync(path.join(dir, 'cgroup.procs'), 'utf8').split('\n')) if (p) pids.push(Number(p));
    for (const e of readdirSync(dir, { withFileTypes: true }))
      if (e.isDirectory()) pids.push(...pidsIn(path.join(dir, e.name)));
  } catch {
    // removed meanwhile
  }
  return pids;
}

/** Sends a signal to every process in the cgroup tree (for the polite SIGTERM before the kill). */
export function signalAll(dir: string, sig: NodeJS.Signals): void {
  for (const pid of pidsIn(dir)) {
    try {
      process.kill(pid, sig);
    } catch {
      // exited meanwhile
    }
  }
}

/** SIGKILL to the whole tree at once; `cgroup.kill` cannot miss a process that forks meanwhile. */
export function killNow(dir: string): void {
  try {
    writeFileSync(path.join(dir, 'cgroup.kill'), '1');
  } catch {
    signalAll(dir, 'SIGKILL'); // kernels before 5.14: repeated by `killAndRemove` until empty
  }
}

const populated = (dir: string) => {
  try {
    return !/^populated 0$/m.test(readFileSync(path.join(dir, 'cgroup.events'), 'utf8'));
  } catch {
    return false; // gone
  }
};

/**
 * Kills everything in the cgroup, waits until the kernel reports it empty, and removes it. Resolves
 * with whether it is gone; after EMPTY_WAIT_MS (a process stuck in the kernel) it is left to the sweep.
 */
export async function killAndRemove(dir: string): Promise<boolean> {
  const started = Date.now();
  let pause = 1;
  killNow(dir);
  while (populated(dir)) {
    if (Date.now() - started > EMPTY_WAIT_MS) return false;
    await new Promise((r) => setTimeout(r, pause));
    pause = Math.min(pause * 2, 50);
    signalAll(dir, 'SIGKILL'); // only finds anyone without cgroup.kill, or a fork that raced the write
  }
  return removeTree(dir);
}

/**
 * The same, synchronously, for a process that is exiting and cannot wait on timers: sleeps in 1 ms
 * steps for at most EMPTY_WAIT_MS. Whatever is not gone by then is the sweep's.
 */
export function killAndRemoveSync(dir: string): boolean {
  const nap = new Int32Array(new SharedArrayBuffer(4));
  killNow(dir);
  for (let waited = 0; populated(dir); waited++) {
    if (waited > EMPTY_WAIT_MS) return false;
    Atomics.wait(nap, 0, 0, 1);
    signalAll(dir, 'SIGKILL');
  }
  return removeTree(dir);
}

/** rmdir, deepest first (a runtime run by a command makes its command cgroups inside ours). */
export function removeTree(dir: string): boolean {
  try {
    for (const e of readdirSync(dir, { withFileTypes: true })) if (e.isDirectory()) removeTree(path.join(dir, e.name));
    rmdirSync(dir);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'ENOENT';
  }
}

/**
 * Kills and removes the command cgroups under our own cgroup whose runtime is gone (SIGKILLed, or
 * crashed before it could clean up). A live runtime's cgroups are never touched.
 */
export async function sweepStaleCgroups(parent?: Cgroup): Promise<number> {
  const own = parent ? okValue(parent) : ownCgroup();
  if (!own.ok) return 0;
  let names: string[];
  try {
    names = readdirSync(own.value.dir).filter((n) => n.startsWith(PREFIX));
  } catch {
    return 0;
  }
  let swept = 0;
  for (const name of names) {
    const [pid, start] = name.slice(PREFIX.length).split('-');
    if (!pid || !start || startTime(Number(pid)) === start) continue; // its runtime still runs
    const dir = path.join(own.value.dir, name);
    try {
      if (!statSync(dir).isDirectory()) continue;
    } catch {
      continue;
    }
    if (await killAndRemove(dir)) swept++;
  }
  return swept;
}
