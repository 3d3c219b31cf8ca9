/**
 * Running one command to completion under supervision, so that nothing it starts outlives it: it runs
 * in its own process group inside the strongest containment this machine allows (a cgroup of its own,
 * else a PID namespace, else the process group alone: lib/exec/containment.ts). On timeout or cancel,
 * SIGTERM to all of it and SIGKILL after a grace. The call completes on the process's exit: then
 * whatever is left is killed and, for a cgroup, waited for until the kernel reports it empty — never
 * on pipe EOF alone, which a backgrounded grandchild holding stdout would delay to the timeout.
 * Write lane, main thread.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import type { LimitHit, Limits } from '../core/limits.ts';
import { errValue, okValue, type Result } from '../core/result.ts';
import {
  type Cgroup,
  createCommandCgroup,
  ENTER_SCRIPT,
  killAndRemove,
  killAndRemoveSync,
  killNow,
  signalAll,
} from './cgroup.ts';
import { type Containment, type ContainmentKind, containment } from './containment.ts';
import { type Held, kernelHit, type LimitSetup, setUpLimits, watchLimits } from './limits.ts';
import { track } from './live.ts';
import type { OutputCollector } from './output.ts';
import { removeV1Pids } from './pids_v1.ts';
import { childrenOf, signalEach, withDescendants } from './proctree.ts';

/** Between SIGTERM and SIGKILL. */
const KILL_GRACE_MS = 2000;
/** How long output keeps being read after the process exited, when escaped processes may hold the pipes. */
const DRAIN_MS = 250;

interface Supervised {
  argv: readonly string[];
  cwd: string;
  env: Record<string, string>;
  timeoutMs: number;
  signal: AbortSignal;
  /**
   * The command makes its own PID namespace that dies with it (bwrap --unshare-pid --die-with-parent):
   * without a cgroup, signals go to that namespace's init, not to the wrapper.
   */
  ownPidNamespace?: boolean;
  /** Overrides the probed containment (tests of the weaker kinds). */
  containment?: Containment;
  /** Memory, processes and CPU time (lib/exec/limits.ts); absent: none. */
  limits?: Limits;
  /**
   * Given: the command's stdin is a pipe handed to it once spawned (a background job's write_stdin);
   * otherwise stdin is closed.
   */
  onStdin?: (stdin: Writable) => void;
  /**
   * Given: a Node IPC channel at descriptor `fd` of the spawned process (the sandbox's network
   * listener comes back through it, lib/sandbox/net_session.ts), `onSpawn` told the child.
   */
  ipc?: { fd: number; onSpawn: (child: ChildProcess) => void };
}

type Ending = 'exit' | 'timeout' | 'cancelled' | 'spawn_error' | 'limit';

export interface Outcome {
  ending: Ending;
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  error?: string;
  ms: number;
  /** What held the command's processes together. */
  contained: ContainmentKind;
  /** Set when processes of the command could not be confirmed gone (stuck in the kernel). */
  leftover?: string;
  /** How each limit was held, and why one could not be. */
  limits?: { held: Held; notes: string[] };
  /** A limit the kernel reports hit (a cgroup's counters), or the CPU time the runtime stopped it at. */
  limitHit?: LimitHit;
}

/** Where the output goes: the call's bounded collector, or a background job's file (lib/exec/job_output.ts). */
export type OutputSink = Pick<OutputCollector, 'push'>;

export async function supervise(s: Supervised, out: OutputSink): Promise<Outcome> {
  const started = Date.now();
  const how = s.containment ?? containment();
  const base = { exitCode: null, signal: null, contained: how.kind } as const;
  const prepared = prepare(s, how);
  if (!prepared.ok) return { ...base, ending: 'spawn_error', error: prepared.error, ms: 0 };
  const { argv, cgroup, budget } = prepared.value;
  const child = start(s, argv, cgroup !== undefined);
  let entered = cgroup === undefined;
  (child.stdio[3] as Readable | undefined)?.on('data', () => {
    entered = true;
  });
  child.stdout?.on('data', (c: Buffer) => out.push(c));
  child.stderr?.on('data', (c: Buffer) => out.push(c));

  const killGroup = (sig: NodeJS.Signals) => {
    if (child.pid === undefined) return;
    try {
      process.kill(-child.pid, sig);
    } catch {
      // the group is already gone
    }
  };
  // Held by a PID namespace alone: signal what runs inside it, never the wrapper we spawned (unshare,
  // bwrap), which would exit before the kernel has emptied the namespace (lib/exec/proctree.ts).
  const inNamespace = cgroup === undefined && (s.ownPidNamespace === true || how.kind === 'pidns');
  const signalCommand = (sig: NodeJS.Signals) => {
    const inits = inNamespace && child.pid !== undefined ? childrenOf(child.pid) : [];
    if (inits.length > 0) return signalEach(sig === 'SIGKILL' ? inits : withDescendants(inits), sig);
    killGroup(sig);
    if (cgroup && sig === 'SIGKILL') killNow(cgroup);
    else if (cgroup) signalAll(cgroup, sig);
  };
  const hardKill = () => signalCommand('SIGKILL');
  let ending: Ending = 'exit';
  let grace: NodeJS.Timeout | undefined;
  const terminate = (why: Ending) => {
    if (ending !== 'exit' || exited) return;
    ending = why;
    signalCommand('SIGTERM');
    grace = setTimeout(hardKill, KILL_GRACE_MS);
  };
  let exited = false;
  child.once('exit', () => {
    exited = true; // from here on, a timeout or cancel has nothing left to stop but leftovers, killed anyway
  });
  // A background job may run without a wall-time limit (Infinity): a dev server runs until stopped.
  const timer = Number.isFinite(s.timeoutMs) ? setTimeout(() => terminate('timeout'), s.timeoutMs) : undefined;
  let limitHit: LimitHit | undefined;
  const stopWatch =
    s.limits && budget
      ? watchLimits(s.limits, budget, cgroup, (hit) => {
          limitHit = hit;
          terminate('limit');
          if (hit.limit === 'pids') hardKill(); // a fork bomb answers SIGTERM with more forks
        })
      : undefined;
  const onAbort = () => terminate('cancelled');
  if (s.signal.aborted) onAbort();
  else s.signal.addEventListener('abort', onAbort, { once: true });

  // The kernel's counters are read once the command has exited, before its cgroup is removed.
  const readHit = () => {
    if (s.limits && budget) limitHit ??= kernelHit(s.limits, budget, cgroup);
  };
  const ended = waitForEnd(child, cgroup, readHit);
  const killNowAndWait = () => {
    hardKill();
    if (cgroup) killAndRemoveSync(cgroup);
  };
  const forget = track({ terminate: onAbort, killNow: killNowAndWait, ended });
  const end = await ended;
  if (budget?.v1Pids) await removeV1Pids(budget.v1Pids);
  forget();
  clearTimeout(timer);
  stopWatch?.();
  if (grace) clearTimeout(grace);
  s.signal.removeEventListener('abort', onAbort);
  const ms = Date.now() - started;
  const leftover = {
    ...(end.leftover ? { leftover: end.leftover } : {}),
    ...(budget ? { limits: { held: budget.held, notes: budget.notes } } : {}),
    ...(limitHit ? { limitHit } : {}),
  };
  if (end.error !== undefined) return { ...base, ending: 'spawn_error', error: end.error, ms, ...leftover };
  // Stopped before it got in, it never ran the command: that is the timeout or cancel, not a failure.
  if (!entered && ending === 'exit')
    return { ...base, ending: 'spawn_error', error: 'it could not be placed in its own cgroup', ms, ...leftover };
  return { ...base, ending, exitCode: end.exitCode, signal: end.signal, ms, ...leftover };
}

/**
 * The argv that runs the command in its containment and within its limits: its cgroup made and its
 * limit files written, resource limits as a prefix every process inherits — all before anything runs.
 */
function prepare(
  s: Supervised,
  how: Containment,
): Result<{ argv: string[]; cgroup: string | undefined; budget: LimitSetup | undefined }, string> {
  let made: Cgroup | undefined;
  if (how.kind === 'cgroup' && how.parent) {
    const m = createCommandCgroup(how.parent);
    if (!m.ok) return errValue(`it could not be contained: ${m.error}`);
    made = m.value;
  }
  const where = made && how.parent ? { dir: made.dir, parentDir: how.parent.dir } : undefined;
  const budget = s.limits ? setUpLimits(s.limits, where) : undefined;
  let argv = [...(budget?.prefix ?? []), ...s.argv];
  if (made) argv = ['/bin/sh', '-c', ENTER_SCRIPT, 'sh', made.dir, made.path, ...argv];
  // Around bwrap too: bwrap reports the command's exit before its own namespace is empty, unshare
  // only after (its init's exit waits for the namespace, nested ones included).
  else if (how.kind === 'pidns' && how.prefix) argv = [...how.prefix, ...argv];
  return okValue({ argv, cgroup: made?.dir, budget });
}

/** Spawns the prepared argv in a process group of its own; stdin a pipe for a background job, else closed. */
function start(s: Supervised, argv: readonly string[], cgroup: boolean): ChildProcess {
  const [cmd, ...args] = argv;
  const stdin = s.onStdin ? 'pipe' : 'ignore';
  const stdio: ('pipe' | 'ignore' | 'ipc')[] = cgroup ? [stdin, 'pipe', 'pipe', 'pipe'] : [stdin, 'pipe', 'pipe'];
  if (s.ipc) {
    while (stdio.length < s.ipc.fd) stdio.push('ignore');
    stdio.push('ipc');
  }
  const child = spawn(cmd as string, args, {
    cwd: s.cwd,
    env: s.env,
    detached: true, // its own process group, which a terminal's Ctrl-C does not reach: we decide
    stdio,
  });
  s.ipc?.onSpawn(child);
  if (s.onStdin && child.stdin) {
    // Writing to a command that has exited or closed its stdin fails with EPIPE: the writer learns it
    // from the write's callback, and the process must not crash on the stream's 'error' event.
    child.stdin.on('error', () => {});
    s.onStdin(child.stdin);
  }
  return child;
}

interface End {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  error?: string;
  leftover?: string;
}

/**
 * The process's exit, then nothing left: the cgroup killed and empty (then its pipes reach EOF at
 * once), or the process group killed and the pipes drained for at most DRAIN_MS — an escaped process
 * may hold them for hours.
 */
function waitForEnd(child: ChildProcess, cgroup: string | undefined, beforeKill: () => void): Promise<End> {
  return new Promise((resolve) => {
    let settled = false;
    const settle = (e: End) => {
      if (settled) return;
      settled = true;
      resolve(e);
    };
    child.on('error', (e) => {
      if (cgroup) void killAndRemove(cgroup);
      settle({ exitCode: null, signal: null, error: e.message });
    });
    child.on('exit', async (exitCode, signal) => {
      beforeKill();
      let leftover: string | undefined;
      if (cgroup && !(await killAndRemove(cgroup)))
        leftover = `processes in ${cgroup} did not exit after SIGKILL; they are left to the kernel`;
      const pipes = [child.stdout, child.stderr, child.stdio[3] as Readable | undefined].filter(
        (p): p is Readable => p !== undefined && p !== null,
      );
      const done = () => {
        if (child.pid !== undefined) {
          try {
            process.kill(-child.pid, 'SIGKILL'); // leftovers of the group (background jobs)
          } catch {
            // already gone
          }
        }
        for (const p of pipes) p.destroy();
        child.stdin?.destroy();
        settle({ exitCode, signal, ...(leftover ? { leftover } : {}) });
      };
      let open = pipes.length;
      const drain = setTimeout(done, DRAIN_MS);
      const closed = () => {
        if (--open === 0) {
          clearTimeout(drain);
          done();
        }
      };
      for (const p of pipes) {
        if (p.readableEnded) closed();
        else p.once('end', closed);
      }
    });
  });
}
