/**
 * Nothing a command starts outlives its call: after it exits, after its timeout, after a cancel —
 * whatever its children did to leave its process group (setsid, double fork, nohup, disown) — in
 * each containment this machine offers (cgroup, PID namespace, the bubblewrap sandbox).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import { type Containment, containment, pidNamespacePrefix } from '../../lib/exec/containment.ts';
import { OutputCollector } from '../../lib/exec/output.ts';
import { supervise } from '../../lib/exec/supervise.ts';
import type { Runtime } from '../../lib/runtime/runtime.ts';
import { sandboxCommand } from '../../lib/sandbox/bwrap.ts';
import { runtimeAt } from '../helpers/runtime.ts';
import { tempDir } from '../helpers/temp.ts';
import { escapingCommand, exists, killAll, leftoverCgroups, survivors, uniqueMarker, waitFor } from './procs.ts';

const root = tempDir();
const rts: Runtime[] = [];
const at = (options: Parameters<typeof runtimeAt>[1] = {}) => {
  const rt = runtimeAt(root, { workers: 0, permissions: { allow: { run: true } }, ...options });
  rts.push(rt);
  return rt;
};
after(() => Promise.all(rts.map((r) => r.close())));
const hasBwrap = spawnSync('sh', ['-c', 'command -v bwrap']).status === 0;

let n = 0;
/** A fresh directory inside the root for one case's start files. */
function caseDir(): string {
  const dir = path.join(root, `case-${++n}`);
  mkdirSync(dir);
  return dir;
}

/**
 * Asserts that nothing with the marker runs, and removes it if something does. `eventually`: the
 * documented weaker guarantee of bubblewrap alone, whose namespace dies just after it reports the
 * exit — wait for that (the safety net of waitFor fails the test if they never die).
 */
async function assertNoSurvivors(marker: string, what: string, eventually = false): Promise<void> {
  if (eventually) await waitFor(() => survivors(marker).length === 0, `${what}: the namespace to die`).catch(() => {});
  const left = survivors(marker);
  killAll(left);
  assert.deepEqual(left, [], `${what}: processes outlived the call`);
}

type Call = (command: string, options: { timeout?: number; signal?: AbortSignal }) => Promise<{ code?: string }>;

/** The three ways a call ends, each with every escape running by then (or, for the timeout, maybe not yet). */
async function everyEnding(call: Call, label: string, eventually = false): Promise<void> {
  const exitDir = caseDir();
  const exitMarker = uniqueMarker();
  const exited = await call(escapingCommand(exitDir, exitMarker, 'echo started all'), {});
  assert.equal(exited.code, undefined, `${label}: ${JSON.stringify(exited)}`);
  await assertNoSurvivors(exitMarker, `${label}, after the command exited`, eventually);

  const abortDir = caseDir();
  const abortMarker = uniqueMarker();
  const controller = new AbortController();
  const ready = path.join(abortDir, 'ready');
  const cancelled = call(escapingCommand(abortDir, abortMarker, `touch ${ready}; sleep ${abortMarker}`), {
    signal: controller.signal,
  });
  await waitFor(() => exists(ready), 'the command to start every escape');
  controller.abort();
  assert.equal((await cancelled).code, 'cancelled');
  await assertNoSurvivors(abortMarker, `${label}, after a cancel`, eventually);

  // Whether the escapes run before the timeout depends on the machine's load; either way none may
  // survive it (an escape that starts late is still inside the containment).
  const timeoutDir = caseDir();
  const timeoutMarker = uniqueMarker();
  const timedOut = await call(escapingCommand(timeoutDir, timeoutMarker, `sleep ${timeoutMarker}`), {
    timeout: 1500,
  });
  assert.equal(timedOut.code, 'timeout');
  await assertNoSurvivors(timeoutMarker, `${label}, after the timeout`, eventually);
  assert.deepEqual(leftoverCgroups(), [], `${label}: command cgroups left behind`);
}

test('survivors: none after exit, cancel or timeout of a bash call, whatever the children did to escape', async () => {
  const rt = at();
  await everyEnding((command, o) => {
    const { signal, ...input } = o;
    return rt.call('bash', { command, ...input }, signal ? { signal } : {});
  }, `bash (${containment().kind})`);
});

test('survivors: none under the bubblewrap sandbox either', async () => {
  assert.ok(hasBwrap, 'bubblewrap must be installed (apt-get install bubblewrap)');
  const rt = at({ sandbox: true });
  await everyEnding((command, o) => {
    const { signal, ...input } = o;
    return rt.call('bash', { command, ...input }, signal ? { signal } : {});
  }, 'bash --sandbox');
});

/** The sandboxed argv of a command; the sandbox must take it. */
function boxed(bwrap: string, argv: readonly string[]): string[] {
  const s = sandboxCommand({ bwrap, root, allowNet: false }, root, { PATH: '/usr/bin:/bin' }, argv);
  assert.ok(s.ok, s.ok ? '' : s.error);
  return s.value;
}

test('survivors: with neither cgroup nor PID namespace of ours, the sandbox’s own namespace dies with the call (a moment after it returns)', async () => {
  assert.ok(hasBwrap, 'bubblewrap must be installed (apt-get install bubblewrap)');
  const bwrap = spawnSync('sh', ['-c', 'command -v bwrap'], { encoding: 'utf8' }).stdout.trim();
  await everyEnding(
    (command, o) => supervised(command, o, { kind: 'group', notes: [] }, (argv) => boxed(bwrap, argv)),
    'bwrap alone',
    true,
  );
});

const prefix = pidNamespacePrefix();
test('survivors: none in a PID namespace, the containment where no cgroup is writable', async () => {
  assert.ok(prefix, 'unshare --pid must be permitted here (util-linux unshare, run as root as CI does)');
  const forced = { kind: 'pidns' as const, prefix: prefix ?? [], notes: [] };
  await everyEnding((command, o) => supervised(command, o, forced), 'pidns');
  assert.ok(hasBwrap, 'bubblewrap must be installed (apt-get install bubblewrap)');
  // Around the sandbox too, where it makes bubblewrap's guarantee exact.
  const bwrap = spawnSync('sh', ['-c', 'command -v bwrap'], { encoding: 'utf8' }).stdout.trim();
  await everyEnding((command, o) => supervised(command, o, forced, (argv) => boxed(bwrap, argv)), 'pidns around bwrap');
});

/** supervise() itself, with a containment forced (the runtime would pick the strongest). */
async function supervised(
  command: string,
  o: { timeout?: number; signal?: AbortSignal },
  forced: Containment,
  sandbox?: (argv: string[]) => string[],
): Promise<{ code?: string }> {
  const argv = ['/bin/bash', '-c', command];
  const outcome = await supervise(
    {
      argv: sandbox ? sandbox(argv) : argv,
      cwd: root,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
      timeoutMs: o.timeout ?? 60_000,
      signal: o.signal ?? new AbortController().signal,
      containment: forced,
      ownPidNamespace: sandbox !== undefined,
    },
    new OutputCollector(() => ({ ok: false, error: 'no spill in this test' })),
  );
  assert.equal(outcome.contained, forced.kind);
  return outcome.ending === 'exit' ? {} : { code: outcome.ending === 'timeout' ? 'timeout' : 'cancelled' };
}

test('survivors: the command runs in a cgroup of its own, which is gone when the call returns', async () => {
  // CI runs as root with a writable cgroup v2, so this is asserted rather than skipped.
  assert.equal(containment().kind, 'cgroup', `no writable cgroup v2 here (${containment().notes.join('; ')})`);
  const rt = at();
  const r = await rt.call('bash', { command: 'cat /proc/self/cgroup | grep ^0::' });
  const where = /^0::(.*)$/m.exec(r.content)?.[1] ?? '';
  assert.match(path.basename(where), new RegExp(`^mewcode-${process.pid}-\\d+-\\d+$`), r.content);
  assert.equal(r.meta?.contained, 'cgroup');
  assert.deepEqual(leftoverCgroups(), []);
});

after(() => rmSync(root, { recursive: true, force: true }));
