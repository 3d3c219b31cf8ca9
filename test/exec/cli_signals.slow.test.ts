/**
 * The real CLI told to stop while a command runs: SIGINT, SIGTERM and SIGHUP kill the command and
 * everything it started, and the CLI exits 128 + the signal's number — for `mewcode call bash` and for
 * the agent. A runtime that is SIGKILLed cannot clean up; the next runtime sweeps what it left.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { test } from 'node:test';
import { containment } from '../../lib/exec/containment.ts';
import { startCli } from '../helpers/cli.ts';
import { startModel } from '../helpers/fake_model.ts';
import { REPO, TSX } from '../helpers/repo.ts';
import { runtimeAt } from '../helpers/runtime.ts';
import { tempDir } from '../helpers/temp.ts';
import { escapingCommand, exists, killAll, leftoverCgroups, survivors, uniqueMarker, waitFor } from './procs.ts';

const root = tempDir();
/** No model keys from the machine (startCli's environment): the agent talks to the fake model only. */
const cli = (args: string[]) => startCli(['--root', root, ...args], { keepStdin: true });

let n = 0;
/** A command that starts every escape, then says it is ready and sleeps on the marker. */
function escaping(): { command: string; marker: string; ready: string } {
  const dir = tempDir();
  const marker = uniqueMarker();
  const ready = path.join(dir, `ready-${++n}`);
  return { command: escapingCommand(dir, marker, `touch ${ready}; sleep ${marker}`), marker, ready };
}

const EXPECTED = { SIGINT: 130, SIGTERM: 143, SIGHUP: 129 } as const;

/** Sends `sig` once the command is `ready`; the CLI exits 128 + the signal and leaves nothing running. */
async function stopsEverything(
  run: ReturnType<typeof cli>,
  sig: keyof typeof EXPECTED,
  { marker, ready }: { marker: string; ready: string },
  what: string,
): Promise<void> {
  await waitFor(() => exists(ready), what);
  run.child.kill(sig);
  const { code, err } = await run.exit;
  assert.equal(code, EXPECTED[sig], err);
  const left = survivors(marker);
  killAll(left);
  assert.deepEqual(left, [], `survivors of ${sig}`);
}

for (const sig of Object.keys(EXPECTED) as (keyof typeof EXPECTED)[]) {
  test(`cli signals: ${sig} to \`mewcode call bash\` kills the command and all it started, exit ${EXPECTED[sig]}`, async () => {
    const { command, marker, ready } = escaping();
    const run = cli(['call', 'bash', JSON.stringify({ command }), '--allow-run']);
    try {
      await stopsEverything(run, sig, { marker, ready }, 'the command to start every escape');
      if (run.child.pid) assert.deepEqual(leftoverCgroups(run.child.pid), []);
    } finally {
      run.child.kill('SIGKILL');
    }
  });
}

for (const sig of ['SIGINT', 'SIGTERM'] as const) {
  test(`cli signals: ${sig} to the agent stops its running bash call and everything it started`, async () => {
    const { command, marker, ready } = escaping();
    const model = await startModel([{ calls: [{ name: 'bash', input: { command } }] }, { text: 'never asked' }]);
    const run = cli([...model.openaiFlags, '--model', 'm', '--allow-run', 'run', 'go']);
    try {
      await stopsEverything(run, sig, { marker, ready }, 'the agent to start the command');
      assert.equal(model.requests.length, 1, 'the stopped agent asks the model nothing more');
    } finally {
      run.child.kill('SIGKILL');
    }
  });
}

test('cli signals: SIGTERM to `mewcode mcp` during a bash call kills the command and exits 143', async () => {
  const { command, marker, ready } = escaping();
  const run = cli(['--allow-run', 'mcp']);
  const send = (m: object) => run.child.stdin?.write(`${JSON.stringify({ jsonrpc: '2.0', ...m })}\n`);
  try {
    send({
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    });
    send({ method: 'notifications/initialized' });
    send({ id: 2, method: 'tools/call', params: { name: 'bash', arguments: { command } } });
    await waitFor(() => exists(ready), 'the server to start the command');
    run.child.kill('SIGTERM');
    const { code, err } = await run.exit;
    assert.equal(code, 143, err);
    const left = survivors(marker);
    killAll(left);
    assert.deepEqual(left, []);
  } finally {
    run.child.kill('SIGKILL');
  }
});

test('cli signals: a command that ignores SIGTERM is killed all the same, also when a second SIGINT comes during the grace', async () => {
  const dir = tempDir();
  const marker = uniqueMarker();
  const ready = path.join(dir, 'ready');
  const command = escapingCommand(dir, marker, `trap '' TERM; touch ${ready}; sleep ${marker}; sleep ${marker}`);
  const run = cli(['call', 'bash', JSON.stringify({ command }), '--allow-run']);
  try {
    await waitFor(() => exists(ready), 'the command to start every escape');
    let noted = false;
    run.child.stderr.on('data', (c: string) => {
      noted ||= c.includes('SIGINT; stopping');
    });
    run.child.kill('SIGINT');
    await waitFor(() => noted, 'the first SIGINT to be handled');
    run.child.kill('SIGINT');
    const { code, err } = await run.exit;
    assert.equal(code, 130, err);
    const left = survivors(marker);
    killAll(left);
    assert.deepEqual(left, []);
    if (run.child.pid) assert.deepEqual(leftoverCgroups(run.child.pid), []);
  } finally {
    run.child.kill('SIGKILL');
  }
});

for (const how of ['exit', 'throw'] as const) {
  test(`cli signals: a runtime process that ends by ${how === 'exit' ? 'process.exit' : 'an uncaught exception'} mid-call takes its commands with it`, async () => {
    const dir = tempDir();
    const marker = uniqueMarker();
    const ready = path.join(dir, 'ready');
    const command = escapingCommand(dir, marker, `touch ${ready}; sleep ${marker}`);
    const child = spawn(
      process.execPath,
      ['--import', TSX, path.join(REPO, 'test/fixtures/exit_mid_call.ts'), root, command, ready, how],
      { stdio: 'ignore' },
    );
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    assert.equal(code, how === 'exit' ? 3 : 1);
    const left = survivors(marker);
    killAll(left);
    assert.deepEqual(left, []);
    if (child.pid) assert.deepEqual(leftoverCgroups(child.pid), []);
  });
}

test('cli signals: what a SIGKILLed runtime left running is swept by the next runtime', async () => {
  // CI runs as root with a writable cgroup v2, so this is asserted rather than skipped.
  assert.equal(containment().kind, 'cgroup', 'only cgroups can be swept: this machine has no writable cgroup v2');
  const { command, marker, ready } = escaping();
  const run = cli(['call', 'bash', JSON.stringify({ command }), '--allow-run']);
  try {
    await waitFor(() => exists(ready), 'the command to start every escape');
    run.child.kill('SIGKILL');
    await run.exit;
    const pid = run.child.pid ?? 0;
    assert.notDeepEqual(survivors(marker), [], 'a SIGKILLed runtime cannot clean up after itself');
    assert.equal(leftoverCgroups(pid).length, 1);
    runtimeAt(root, { workers: 0 }); // its start sweeps cgroups whose runtime is gone
    await waitFor(() => survivors(marker).length === 0 && leftoverCgroups(pid).length === 0, 'the sweep');
  } finally {
    killAll(survivors(marker));
  }
});

test('cli signals: the sweep leaves a live runtime’s commands alone', async () => {
  const { command, marker, ready } = escaping();
  const run = cli(['call', 'bash', JSON.stringify({ command }), '--allow-run']);
  try {
    await waitFor(() => exists(ready), 'the command to start every escape');
    runtimeAt(root, { workers: 0 });
    const { sweepStaleCgroups } = await import('../../lib/exec/cgroup.ts');
    await sweepStaleCgroups();
    assert.notDeepEqual(survivors(marker), [], 'the running command is not touched');
    run.child.kill('SIGTERM');
    assert.equal((await run.exit).code, 143);
    assert.deepEqual(survivors(marker), []);
  } finally {
    run.child.kill('SIGKILL');
    killAll(survivors(marker));
  }
});
