/**
 * bash: runs a command with `bash -c` (`sh -c` where bash is absent) contained so that nothing it starts
 * outlives it (lib/exec/supervise.ts), with an honest timeout, the environment allowlist, stdin closed,
 * and stdout and stderr merged in order into bounded memory (the whole output spilled to the root's
 * spill directory when it is long). Optionally inside the bubblewrap sandbox. Write lane (main thread,
 * one call at a time).
 */
import { randomBytes } from 'node:crypto';
import { statSync } from 'node:fs';
import path from 'node:path';
import * as v from 'valibot';
import { fmtInt } from '../core/budget.ts';
import { displayPath } from '../core/paths.ts';
import { spillDirFor } from '../core/spill_dir.ts';
import { quote } from '../core/text.ts';
import { defineTool, fail, ok, type ToolResult } from '../core/tool.ts';
import type { ContainmentKind } from '../exec/containment.ts';
import { ENV_PASSED_SHOWN } from '../exec/env.ts';
import { limitHitOf } from '../exec/limits.ts';
import { OutputCollector } from '../exec/output.ts';
import { supervise } from '../exec/supervise.ts';
import type { WriteContext } from '../lanes/write_context.ts';
import { PROTECTED_LOCATIONS } from '../policy/protected.ts';
import { sandboxCommand } from '../sandbox/bwrap.ts';
import { hostPort, refusedText } from '../sandbox/net_session.ts';
import { limitLine } from './_limit_text.ts';
import { networkMeta, sandboxNetFor } from './_sandbox_net.ts';
import { JOB_NOT_JOURNALED, notRecordedText, startShellJournal } from './_shell_journal.ts';

const DEFAULT_TIMEOUT_MS = 120_000;
const PROTECTED_NAMES = PROTECTED_LOCATIONS.map((l) => l.name);
const MAX_TIMEOUT_MS = 600_000;

const SHELL = (() => {
  for (const s of ['/bin/bash', '/usr/bin/bash', '/bin/sh']) {
    try {
      if (statSync(s).isFile()) return s;
    } catch {
      // not here
    }
  }
  return 'sh';
})();

/**
 * The longest command one `bash -c` argument can carry: Linux refuses any single argument of
 * MAX_ARG_STRLEN (32 pages, 128 KiB) or more, its terminating NUL included, with E2BIG; the script
 * is `exec 2>&1` and a newline, then the command.
 */
const SCRIPT_HEAD = 'exec 2>&1\n';
export const MAX_COMMAND_BYTES = 128 * 1024 - 1 - SCRIPT_HEAD.length;

const params = v.strictObject({
  command: v.pipe(
    v.string(),
    v.minLength(1, 'command is empty'),
    v.check(
      (c) => !c.includes('\0'),
      "command holds a NUL byte, which no command line can carry (each argument ends at its first NUL): write the byte with printf '\\0' in the command",
    ),
    v.check(
      (c) => Buffer.byteLength(c) <= MAX_COMMAND_BYTES,
      (i) =>
        `command is ${fmtInt(Buffer.byteLength(String(i.input)))} bytes, more than the ${fmtInt(MAX_COMMAND_BYTES)} one command line can carry (the system's limit on one argument, 128 KiB): write the script to a file with write_file and run that file`,
    ),
    v.description('The command line, run with bash -c'),
  ),
  timeout: v.optional(
    v.pipe(
      v.number(),
      v.integer(),
      v.minValue(1),
      v.maxValue(MAX_TIMEOUT_MS),
      v.description(`Time limit in ms (default ${DEFAULT_TIMEOUT_MS}, at most ${MAX_TIMEOUT_MS})`),
    ),
  ),
  workdir: v.optional(
    v.pipe(v.string(), v.minLength(1), v.description('Directory to run in, inside the root (default: the root)')),
  ),
  description: v.optional(
    v.pipe(
      v.string(),
      v.maxLength(200),
      v.description('A few words on what the command does, shown in the activity log'),
    ),
  ),
  run_in_background: v.optional(
    v.pipe(
      v.boolean(),
      v.description(
        'Start the command as a background job and answer at once with its id (a dev server, a watcher, a long test run); read its output with bash_output, send it input with write_stdin, stop it with kill_bash. No timeout unless `timeout` is given.',
      ),
    ),
  ),
});

export const bash = defineTool({
  name: 'bash',
  lane: 'write',
  openWorld: true,
  params,
  maxOutputBytes: 64 * 1024,
  description:
    `Runs \`command\` with bash -c in \`workdir\` (default: the root) and returns "exit_code: N" followed by stdout and stderr ` +
    `merged in order. A non-zero exit is not an error. \`timeout\` is in ms (default ${DEFAULT_TIMEOUT_MS}, max ${MAX_TIMEOUT_MS}) and ` +
    `is exactly the limit: past it every process the command started gets SIGTERM, then SIGKILL, and the answer is a timeout error with the ` +
    `output so far. The call ends when the command exits; processes it left running (cmd &) are killed then: start servers and watchers ` +
    `with run_in_background: true instead. stdin is closed (a background job's is a pipe, see write_stdin) and there is no terminal: interactive programs get EOF. Long output keeps its first and last 16 KiB and the ` +
    `whole output goes to a file the answer names. Only harmless environment variables pass (${ENV_PASSED_SHOWN}) ` +
    `plus those granted to the runtime; PAGER=cat. Each command runs within memory, process-count and CPU-time budgets set by the ` +
    `user; a command a budget stopped says which limit it reached. In a sandbox that allows only some hosts, programs reach them through ` +
    `the proxy variables (http_proxy, https_proxy, all_proxy; curl, git, pip and npm use them): a program that ignores them has no network, ` +
    `and a refused host is named at the end of the answer.`,
  access: (a) => [
    { kind: 'run', command: a.command },
    { kind: 'read', path: a.workdir ?? '.' },
  ],
  async run(a, ctx: WriteContext): Promise<ToolResult> {
    const cwd = ctx.paths[0];
    const exec = ctx.exec;
    if (cwd === undefined) return fail('internal', 'bash received no checked path');
    const shownDir = displayPath(ctx.root, cwd);
    try {
      if (!statSync(cwd).isDirectory()) return fail('invalid_args', `workdir ${quote(shownDir)} is not a directory.`);
    } catch {
      return fail(
        'not_found',
        `workdir ${quote(shownDir)} does not exist; create it first or run in an existing directory.`,
      );
    }
    const timeoutMs = a.timeout ?? DEFAULT_TIMEOUT_MS;
    // stderr joins stdout inside the shell, so the two arrive in the order they were written.
    const script = `${SCRIPT_HEAD}${a.command}`;
    // --norc: a job's stdin is a socket pair (how Node makes pipes), which bash takes for a remote
    // shell's connection and then runs ~/.bashrc first (measured here: a pyenv init in it blocked a
    // job for a minute). A command runs the same with any stdin, with no startup file of the user's.
    const shellArgv = SHELL.endsWith('bash') ? [SHELL, '--norc', '-c', script] : [SHELL, '-c', script];
    let argv = shellArgv;
    if (exec.sandbox) {
      const boxed = sandboxCommand(exec.sandbox, cwd, exec.env, shellArgv);
      if (!boxed.ok) return fail('permission_denied', `The sandbox refused the command: ${boxed.error}.`);
      argv = boxed.value;
    }
    const env = exec.sandbox ? { PATH: process.env.PATH ?? '/usr/bin:/bin' } : exec.env;
    if (a.run_in_background) return startJob(a, ctx, { argv, cwd, env, shownDir });
    const net = sandboxNetFor(ctx);
    if (net && 'error' in net) return fail('internal', `The sandbox refused the command: ${net.error}.`);
    // The protected locations are not compared: git's and MewCode's own (the walk never enters .git), read-only
    // in the sandbox, where their empty placeholders come and go with sandboxes — which an undo must never remove.
    const scope = ctx.shellScope && { ...ctx.shellScope, skipTop: PROTECTED_NAMES };
    const journal = await startShellJournal(ctx.root, ctx.changes, scope);
    const out = new OutputCollector(() => spillDirFor(ctx.root));
    const o = await supervise(
      {
        argv,
        cwd,
        env,
        timeoutMs,
        signal: ctx.signal,
        ownPidNamespace: Boolean(exec.sandbox), // bwrap --unshare-pid --die-with-parent
        ...(exec.limits ? { limits: exec.limits } : {}),
        ...(net ? { ipc: net.ipc } : {}),
      },
      out,
    );
    net?.session.end();
    const finished = out.finish();
    const { spillPath, total } = finished;
    const hit = limitHitOf(o, exec.limits, finished.text);
    // What the command changed is recorded whatever ended it: a timeout or a cancel may have written too.
    const missed = journal && o.ending !== 'spawn_error' ? await journal.finish() : [];
    const trailer = notRecordedText(missed) + (net ? refusedText(net.session) : '');
    const text = finished.text + trailer;
    const meta = {
      exitCode: o.exitCode,
      ms: o.ms,
      bytes: total,
      ...(spillPath ? { spillPath } : {}),
      ...(a.description ? { description: a.description } : {}),
      sandboxed: Boolean(exec.sandbox),
      contained: o.contained,
      ...(o.leftover ? { leftover: o.leftover } : {}),
      ...(o.limits ? { limits: o.limits.held } : {}),
      ...(hit ? { limitHit: hit } : {}),
      ...(missed.length > 0 ? { notRecorded: missed } : {}),
      ...(net ? { network: networkMeta(net.session) } : {}),
    };
    if (o.ending === 'spawn_error') return fail('io', `Cannot start ${SHELL}: ${o.error}`, meta);
    if (o.ending === 'timeout') {
      return fail(
        'timeout',
        `The command ran past its timeout of ${fmtInt(timeoutMs)} ms and was stopped (${stopped(o.contained)}). Output so far:\n${text}`,
        meta,
      );
    }
    if (o.ending === 'cancelled')
      return fail('cancelled', `The command was cancelled (${stopped(o.contained)}). Output so far:\n${text}`, meta);
    const exit = o.exitCode !== null ? `exit_code: ${o.exitCode}` : `exit_code: killed by ${o.signal}`;
    const status = hit ? `${exit}\n${limitLine(hit)}` : exit;
    const shown = finished.text === '' ? `(no output)${trailer}` : text;
    return ok(`${status}\n${shown}`, meta);
  },
});

/** Starts the command as a background job of the runtime (lib/exec/jobs.ts) and answers with its id. */
function startJob(
  a: v.InferOutput<typeof params>,
  ctx: WriteContext,
  run: { argv: string[]; cwd: string; env: Record<string, string>; shownDir: string },
): ToolResult {
  const jobs = ctx.exec.jobs;
  if (!jobs) return fail('invalid_args', BACKGROUND_REFUSED);
  const dir = spillDirFor(ctx.root);
  if (!dir.ok) return fail('io', `A background job needs a file for its output and there is none: ${dir.error}.`);
  let id: string | undefined;
  const noted = new Set<string>();
  const net = sandboxNetFor(ctx, (r) => {
    const where = hostPort(r.host, r.port);
    if (r.allowed || !id || noted.has(where)) return;
    noted.add(where); // once per host: a retrying client would fill the output with the same line
    jobs.note(id, `network: refused ${where}${r.why ? `: ${r.why}` : ''}`);
  });
  if (net && 'error' in net) return fail('internal', `The sandbox refused the command: ${net.error}.`);
  let started: ReturnType<typeof jobs.start>;
  try {
    started = jobs.start({
      command: a.command,
      ...(a.description ? { description: a.description } : {}),
      argv: run.argv,
      cwd: run.cwd,
      env: run.env,
      timeoutMs: a.timeout ?? Number.POSITIVE_INFINITY,
      ownPidNamespace: Boolean(ctx.exec.sandbox),
      outputFile: path.join(dir.value, `job-${Date.now()}-${randomBytes(4).toString('hex')}.txt`),
      ...(ctx.exec.limits ? { limits: ctx.exec.limits } : {}),
      ...(net ? { ipc: net.ipc } : {}),
    });
  } catch (e) {
    return fail('io', `The job's output file cannot be created: ${(e as Error).message}.`);
  }
  if ('refused' in started) return fail('invalid_args', `Not started: ${started.refused}.`);
  id = started.id;
  const limit = a.timeout ? ` It is stopped after ${fmtInt(a.timeout)} ms.` : '';
  return ok(
    `Started background job ${started.id} in ${quote(run.shownDir)}.${limit} Read its output with bash_output {"bash_id": "${started.id}"} ` +
      `(add "wait_ms" to wait for output), send input with write_stdin, stop it with kill_bash. Its whole output goes to ${quote(started.outputFile)}.${ctx.changes ? JOB_NOT_JOURNALED : ''}`,
    { bashId: started.id, spillPath: started.outputFile, sandboxed: Boolean(ctx.exec.sandbox) },
  );
}

/** Why a runtime without a job table (a one-shot `mewcode call`) cannot start a background job. */
export const BACKGROUND_REFUSED =
  'run_in_background needs a runtime that outlives the call (the agent, the MCP server, the library); this one ends with the call, so nothing would be left to read or stop the job: run the command in the foreground';

/** What the kill reached, as the containment guarantees it. */
const stopped = (kind: ContainmentKind) =>
  kind === 'group'
    ? 'its process group was killed; processes that left the group may still run'
    : 'every process it started was killed';
