/**
 * A runtime's background jobs: commands started by `bash` with run_in_background, each supervised and
 * contained as a foreground command is (lib/exec/supervise.ts), its output in a file of its own
 * (job_output.ts), read from a cursor per job, its stdin a pipe. A job ends when its command exits,
 * when kill_bash or the runtime's close stops it, or when the process stops (lib/exec/live.ts). Ids are
 * unique in the process (`bash_1`, `bash_2`…), so a job of one runtime is never mistaken for
 * another's. Main thread.
 */
import type { ChildProcess } from 'node:child_process';
import type { Writable } from 'node:stream';
import { type LimitHit, type Limits, showLimit } from '../core/limits.ts';
import { JobOutput, type OutputRead } from './job_output.ts';
import { limitHitOf } from './limits.ts';
import { type Outcome, supervise } from './supervise.ts';

/** Jobs running at once, per runtime: beyond it `bash` refuses to start another. */
export const MAX_RUNNING_JOBS = 64;
/** Ended jobs remembered (their state and unread output), oldest forgotten first. */
const MAX_ENDED_JOBS = 256;
/** The end of a job's output read to guess a resource limit's hit (a failed allocation's message). */
const TAIL_FOR_GUESS = 16 * 1024;
/** Input a job has not read yet, per job, beyond which write_stdin refuses more. */
export const MAX_QUEUED_INPUT = 1024 * 1024;

export interface JobSpec {
  command: string;
  description?: string;
  argv: readonly string[];
  cwd: string;
  env: Record<string, string>;
  /** Infinity: none. */
  timeoutMs: number;
  ownPidNamespace: boolean;
  /** The file the output goes to (created here, 0600). */
  outputFile: string;
  /** Memory, processes and CPU time, as a foreground command's (lib/exec/limits.ts). */
  limits?: Limits;
  /** A Node IPC channel for the sandbox's network listener (lib/exec/supervise.ts). */
  ipc?: { fd: number; onSpawn: (child: ChildProcess) => void };
}

/** A job as its readers see it. */
export interface JobInfo {
  id: string;
  command: string;
  description?: string;
  /** `running`, `exited N`, `killed by SIGNAL`, `stopped by kill_bash`, `timed out`, `failed to start: …` */
  state: string;
  running: boolean;
  exitCode: number | null;
  outputFile: string;
  /** Bytes the command wrote so far. */
  bytes: number;
  /** The limit that ended it, as a foreground command's answer names it (lib/exec/limits.ts). */
  limitHit?: LimitHit;
  /** Set when writing the output file failed (a full disk): what it holds, and why no more. */
  outputFailure?: string;
  startedAt: number;
  ms: number;
}

interface Job {
  info: Omit<JobInfo, 'state' | 'running' | 'bytes' | 'ms' | 'exitCode'>;
  output: JobOutput;
  cursor: number;
  outcome?: Outcome;
  killedByTool: boolean;
  limits?: Limits;
  /** The limit that ended it: the kernel's word, else a guess from its exit and last output. */
  hit?: LimitHit;
  abort: AbortController;
  stdin?: Writable;
  ended: Promise<void>;
  /** Called when output arrives or the job ends. */
  wake: Set<() => void>;
}

let nextId = 1;
/** Every job's command by id, process-wide: what write_stdin's permission check judges. */
const commands = new Map<string, string>();

/** The command of the job `id` in any runtime of this process. */
export const jobCommand = (id: string) => commands.get(id);

export class JobTable {
  readonly #jobs = new Map<string, Job>();
  readonly #ended = new Set<(j: JobInfo) => void>();
  #closed = false;

  /** Starts a job; throws only when its output file cannot be created. */
  start(spec: JobSpec): JobInfo | { refused: string } {
    if (this.#closed) return { refused: 'the runtime is closing' };
    const running = [...this.#jobs.values()].filter((j) => !j.outcome).length;
    if (running >= MAX_RUNNING_JOBS)
      return { refused: `${MAX_RUNNING_JOBS} background jobs are running already; stop one with kill_bash first` };
    const id = `bash_${nextId++}`;
    const output = new JobOutput(spec.outputFile);
    const abort = new AbortController();
    const job: Job = {
      info: {
        id,
        command: spec.command,
        ...(spec.description ? { description: spec.description } : {}),
        outputFile: output.path,
        startedAt: Date.now(),
      },
      output,
      cursor: 0,
      killedByTool: false,
      ...(spec.limits ? { limits: spec.limits } : {}),
      abort,
      ended: Promise.resolve(),
      wake: new Set(),
    };
    const sink = {
      push: (c: Buffer) => {
        output.push(c);
        this.#wakeAll(job);
      },
    };
    const supervised = supervise(
      {
        argv: spec.argv,
        cwd: spec.cwd,
        env: spec.env,
        timeoutMs: spec.timeoutMs,
        signal: abort.signal,
        ownPidNamespace: spec.ownPidNamespace,
        ...(spec.limits ? { limits: spec.limits } : {}),
        ...(spec.ipc ? { ipc: spec.ipc } : {}),
        onStdin: (s) => {
          job.stdin = s;
        },
      },
      sink,
    );
    job.ended = supervised.then((o) => this.#end(job, o));
    this.#jobs.set(id, job);
    commands.set(id, spec.command);
    return this.#info(job);
  }

  /** A line of MewCode's own in a running job's output (a connection the sandbox refused), read as the rest is. */
  note(id: string, text: string): void {
    const job = this.#jobs.get(id);
    if (!job || job.outcome) return;
    job.output.push(Buffer.from(`[mewcode] ${text}\n`));
    this.#wakeAll(job);
  }

  #end(job: Job, o: Outcome): void {
    job.outcome = o;
    job.output.close();
    // Where only a resource limit held (no cgroup counts), the guess reads the output's end, as bash's does.
    const hit = limitHitOf(o, job.limits, job.output.tail(TAIL_FOR_GUESS));
    if (hit) job.hit = hit;
    this.#wakeAll(job);
    const info = this.#info(job);
    for (const f of this.#ended) {
      try {
        f(info);
      } catch {
        // A listener's failure is its own: the job has ended all the same, for every other listener too.
      }
    }
    this.#forgetOldEnded();
  }

  #wakeAll(job: Job): void {
    for (const w of [...job.wake]) w();
  }

  #forgetOldEnded(): void {
    const ended = [...this.#jobs.values()].filter((j) => j.outcome);
    for (const j of ended.slice(0, Math.max(0, ended.length - MAX_ENDED_JOBS))) {
      this.#jobs.delete(j.info.id);
      commands.delete(j.info.id);
    }
  }

  /** Calls `f` with each job that ends, from now on; the returned function stops it. */
  onEnded(f: (j: JobInfo) => void): () => void {
    this.#ended.add(f);
    return () => this.#ended.delete(f);
  }

  get(id: string): JobInfo | undefined {
    const j = this.#jobs.get(id);
    return j ? this.#info(j) : undefined;
  }

  list(): JobInfo[] {
    return [...this.#jobs.values()].map((j) => this.#info(j));
  }

  /** The ids this table knows, for an error naming an unknown one. */
  ids(): string[] {
    return [...this.#jobs.keys()];
  }

  /**
   * The output since the previous read, after waiting up to `waitMs` for some to arrive or the job to
   * end (at once when there is unread output already); undefined for an unknown id. With `lines`,
   * whole lines, at most the last `lines` bytes of them (for a filter: job_output.ts `linesFrom`).
   */
  async read(
    id: string,
    waitMs: number,
    signal: AbortSignal,
    lines?: number,
  ): Promise<{ job: JobInfo; read: OutputRead } | undefined> {
    const job = this.#jobs.get(id);
    if (!job) return undefined;
    if (waitMs > 0 && !job.outcome && job.output.written <= job.cursor) await this.#waitFor(job, waitMs, signal);
    const ended = job.outcome !== undefined;
    const read =
      lines === undefined ? job.output.readFrom(job.cursor, ended) : job.output.linesFrom(job.cursor, ended, lines);
    job.cursor = read.to;
    return { job: this.#info(job), read };
  }

  #waitFor(job: Job, ms: number, signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        job.wake.delete(done);
        signal.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      job.wake.add(done);
      signal.addEventListener('abort', done, { once: true });
    });
  }

  /** Stops a job's whole process tree and waits until it has ended; false for an unknown id. */
  async kill(id: string): Promise<boolean> {
    const job = this.#jobs.get(id);
    if (!job) return false;
    if (!job.outcome) {
      job.killedByTool = true;
      job.abort.abort();
    }
    await job.ended;
    return true;
  }

  /**
   * Writes to a job's stdin, waiting up to `waitMs` for the job to take the bytes: a job that does not
   * read its stdin leaves them queued here once its pipe is full, and waiting for it would hold the
   * write lane (kill_bash included) until the job ends. `queued`: bytes it has not taken yet.
   */
  write(
    id: string,
    chars: string,
    waitMs: number,
    signal: AbortSignal,
  ): Promise<{ refused: string } | { queued: number }> {
    const job = this.#jobs.get(id);
    if (!job) return Promise.resolve({ refused: `no job ${id}` });
    if (job.outcome) return Promise.resolve({ refused: `job ${id} has ended (${this.#info(job).state})` });
    const stdin = job.stdin;
    if (!stdin || stdin.destroyed || stdin.writableEnded)
      return Promise.resolve({ refused: `job ${id} has closed its stdin` });
    // What the job has not read stays in the runtime's memory: bounded, so a job that never reads
    // cannot make it grow with every call.
    if (stdin.writableLength >= MAX_QUEUED_INPUT)
      return Promise.resolve({
        refused: `job ${id} has not read the ${stdin.writableLength} bytes sent to it before; it may not read its stdin`,
      });
    if (chars === '') return Promise.resolve({ queued: stdin.writableLength });
    return new Promise((resolve) => {
      let settled = false;
      const settle = (r: { refused: string } | { queued: number }) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        job.wake.delete(onEnd);
        signal.removeEventListener('abort', onWait);
        resolve(r);
      };
      const onWait = () => settle({ queued: stdin.writableLength });
      const onEnd = () => {
        if (job.outcome) onWait();
      };
      const timer = setTimeout(onWait, waitMs);
      job.wake.add(onEnd);
      signal.addEventListener('abort', onWait, { once: true });
      stdin.write(chars, (e) =>
        settle(e ? { refused: `job ${id} did not take the input: ${e.message}` } : { queued: 0 }),
      );
    });
  }

  /** Stops every job and waits for them all; later starts are refused. */
  async close(): Promise<void> {
    this.#closed = true;
    const jobs = [...this.#jobs.values()];
    for (const j of jobs) if (!j.outcome) j.abort.abort();
    await Promise.allSettled(jobs.map((j) => j.ended));
    for (const j of jobs) commands.delete(j.info.id);
  }

  #info(job: Job): JobInfo {
    const o = job.outcome;
    return {
      ...job.info,
      state: stateOf(o, job.killedByTool, job.hit),
      running: o === undefined,
      exitCode: o?.exitCode ?? null,
      bytes: job.output.total,
      ...(job.hit ? { limitHit: job.hit } : {}),
      ...(job.output.failure
        ? {
            outputFailure: `writing its file failed (${job.output.failure}) after ${job.output.written} bytes`,
          }
        : {}),
      ms: (o ? job.info.startedAt + o.ms : Date.now()) - job.info.startedAt,
    };
  }
}

/** A job's state in words. */
function stateOf(o: Outcome | undefined, killedByTool: boolean, hit: LimitHit | undefined): string {
  if (!o) return 'running';
  if (o.ending === 'spawn_error') return `failed to start: ${o.error}`;
  if (o.ending === 'timeout') return 'timed out';
  if (o.ending === 'cancelled') return killedByTool ? 'stopped by kill_bash' : 'stopped when the runtime closed';
  const exit = o.exitCode !== null ? `exited ${o.exitCode}` : `killed by ${o.signal}`;
  if (!hit) return exit;
  // As bash's answer says it (tools/_limit_text.ts); a resource limit's hit is a guess: "probably".
  const what = `${hit.limit === 'cpu' ? 'CPU time' : hit.limit} limit (${showLimit(hit.limit, hit.value)}) ${hit.certain ? 'reached' : 'probably reached'}`;
  const words = hit.effect === 'killed' ? `killed: ${what}` : `${what}: ${hit.effect}`;
  return o.ending === 'limit' ? words : `${exit}; ${words}`;
}
