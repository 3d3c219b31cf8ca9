/**
 * Budgets on real processes: a fork bomb ends with the pids limit named and nothing left, a program
 * allocating without end ends with the memory limit named, a busy loop with the CPU-time limit — by
 * the command's cgroup where its controllers are there, and by resource limits where not (forced
 * with the weakest containment) — with and without the sandbox. Where a mechanism is missing here
 * the test says so as a skip with the reason; a fork bomb only runs where the kernel holds a pids limit.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { type Limits, parseLimit } from '../../lib/core/limits.ts';
import type { ToolResult } from '../../lib/core/tool.ts';
import { OutputCollector } from '../../lib/exec/output.ts';
import { supervise } from '../../lib/exec/supervise.ts';
import { runtimeAt } from '../helpers/runtime.ts';
import { tempDir } from '../helpers/temp.ts';
import { killAll, survivors, uniqueMarker } from './procs.ts';

const root = tempDir();
const hasBwrap = spawnSync('sh', ['-c', 'command -v bwrap']).status === 0;
const MEMORY_HOG = `node -e "const a=[];for(;;)a.push(Buffer.alloc(1e7,1))"`;
const at = (limits: Record<string, string>, sandbox = false) =>
  runtimeAt(root, { workers: 0, permissions: { allow: { run: true } }, limits, sandbox });

/** How this machine holds each limit, from a harmless command's answer. */
async function heldHere(sandbox = false): Promise<Record<string, string>> {
  const r = await at({ memory: '1G', pids: '256', cpu: '60s' }, sandbox).call('bash', { command: 'true' });
  return (r.meta?.limits ?? {}) as Record<string, string>;
}

const kernelHoldsPids = (held: string | undefined) =>
  held === 'cgroup' || held === 'cgroup-v1' || (held === 'rlimit' && process.getuid?.() !== 0);

for (const sandbox of [false, true]) {
  const label = sandbox ? 'in the sandbox' : 'without the sandbox';

  test(`limits ${label}: a fork bomb ends with the pids limit named, and nothing of it is left`, async (t) => {
    if (sandbox && !hasBwrap) return t.skip('bubblewrap is not installed');
    const held = (await heldHere(sandbox)).pids;
    // Never run a fork bomb that nothing in the kernel would stop: the machine is shared.
    if (!kernelHoldsPids(held))
      return t.skip(`no pids limit holds here (${held ?? 'unknown'}): root without a pids controller`);
    const marker = uniqueMarker();
    const r = await at({ pids: '64' }, sandbox).call('bash', {
      // The runtime's own timeout is only the safety net; `sleep` keeps the shell there to be stopped.
      command: `# ${marker}\nbomb(){ bomb | bomb & }; bomb; sleep 120`,
      timeout: 60_000,
    });
    const left = survivors(marker);
    killAll(left);
    assert.deepEqual(left, [], 'processes of the fork bomb outlived the call');
    assert.equal(r.meta?.limitHit?.limit, 'pids', JSON.stringify(r.meta));
    assert.match(r.content, /pids limit \(64\) (probably )?reached: fork failed/);
  });

  test(`limits ${label}: a program allocating without end ends with the memory limit named`, async (t) => {
    if (sandbox && !hasBwrap) return t.skip('bubblewrap is not installed');
    const r = await at({ memory: '512M' }, sandbox).call('bash', { command: MEMORY_HOG, timeout: 120_000 });
    assert.equal(r.meta?.limitHit?.limit, 'memory', JSON.stringify({ content: r.content, meta: r.meta }));
    assert.match(r.content, /memory limit \(512 MiB\) (probably )?reached/);
  });

  test(`limits ${label}: a busy loop ends with the CPU time limit named`, async (t) => {
    if (sandbox && !hasBwrap) return t.skip('bubblewrap is not installed');
    const r = await at({ cpu: '1s' }, sandbox).call('bash', { command: 'while :; do :; done', timeout: 120_000 });
    assert.equal(r.meta?.limitHit?.limit, 'cpu', JSON.stringify({ content: r.content, meta: r.meta }));
    assert.match(r.content, /CPU time limit \(1 s\) (probably )?reached/);
  });
}

test('limits: the cgroup v2 memory limit holds where the command cgroup has the memory controller', async (t) => {
  const held = (await heldHere()).memory;
  // A cgroup2 mounted in a private mount namespace is the same hierarchy with the same controllers,
  // so on a hybrid machine (memory and pids bound to cgroup v1) it cannot be made to hold one.
  if (held !== 'cgroup') return t.skip(`memory is held by ${held} here: no cgroup v2 memory controller`);
  const r = await at({ memory: '512M' }).call('bash', { command: MEMORY_HOG, timeout: 120_000 });
  assert.deepEqual(r.meta?.limitHit && { ...r.meta.limitHit, times: 0 }, {
    limit: 'memory',
    value: 512 * 1024 ** 2,
    by: 'cgroup',
    certain: true,
    effect: 'killed',
    times: 0,
  });
  assert.match(r.content, /killed: memory limit \(512 MiB\) reached/);
});

/** One command under resource limits alone: no cgroup, no namespace (the weakest containment). */
async function underRlimits(command: string, limits: Partial<Limits>) {
  const all: Limits = { memory: null, pids: null, cpu: null, ...limits };
  const out = new OutputCollector(() => ({ ok: false, error: 'no spill in this test' }));
  const o = await supervise(
    {
      argv: ['/bin/bash', '-c', `exec 2>&1\n${command}`],
      cwd: root,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
      timeoutMs: 120_000,
      signal: new AbortController().signal,
      containment: { kind: 'group', notes: [] },
      limits: all,
    },
    out,
  );
  return { o, text: out.finish().text };
}

test('limits: with no cgroup, resource limits end a memory hog and a busy loop, and name them', async () => {
  const { limitHitOf } = await import('../../lib/exec/limits.ts');
  const memory = (parseLimit('memory', '512M') as { value: number }).value;
  const hog = await underRlimits(MEMORY_HOG, { memory });
  assert.equal(hog.o.limits?.held.memory, 'rlimit');
  assert.equal(limitHitOf(hog.o, { memory, pids: null, cpu: null }, hog.text)?.limit, 'memory', hog.text);
  const busy = await underRlimits('while :; do :; done', { cpu: 1 });
  assert.equal(busy.o.limits?.held.cpu, 'rlimit');
  assert.equal(busy.o.signal ?? busy.o.exitCode, busy.o.signal ? 'SIGXCPU' : 152);
  assert.equal(limitHitOf(busy.o, { memory: null, pids: null, cpu: 1 }, busy.text)?.limit, 'cpu');
});

test('limits: a command within its budget answers as before, saying how each limit held', async () => {
  const r: ToolResult = await at({}).call('bash', { command: 'echo fine' });
  assert.equal(r.content, 'exit_code: 0\nfine\n');
  assert.equal(r.meta?.limitHit, undefined);
  assert.ok(r.meta?.limits?.memory && r.meta.limits.pids, JSON.stringify(r.meta));
});
