/**
 * While a runtime holds the heap (core/heap_hold.ts compileOnOwnThread), the workers its pool sets
 * up optimise their hot code on their own thread, not on V8's compiler threads; a host's worker set
 * up while the runtime is open but starting no worker, or after it closed, compiles in the background
 * as before; and a process started with `--concurrent-recompilation` keeps it for all (the host's
 * choice stands). Read off V8's `--trace-opt` lines in a child process of its own
 * (test/fixtures/compile_hold.ts): V8's flags are the process's.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { REPO, TSX } from '../helpers/repo.ts';
import { tempDir } from '../helpers/temp.ts';

interface Compiled {
  answer: { isError: boolean; text: string };
  /** How each function V8 optimised was compiled, by name: 'kSynchronous' or 'kConcurrent'. */
  modes: Map<string, Set<string>>;
}

function run(root: string, nodeFlags: string[] = []): Compiled {
  const r = spawnSync(
    process.execPath,
    [...nodeFlags, '--import', TSX, path.join(REPO, 'test/fixtures/compile_hold.ts'), root],
    { encoding: 'utf8', maxBuffer: 1 << 26 },
  );
  assert.equal(r.status, 0, r.stderr);
  const lines = r.stdout.split('\n');
  const json = lines.find((l) => l.startsWith('{"isError"'));
  assert.ok(json, `no answer in: ${r.stdout.slice(-500)}`);
  const modes = new Map<string, Set<string>>();
  // [compiling method 0x… <JSFunction NAME (sfi = 0x…)> (target TURBOFAN), mode: ConcurrencyMode::kSynchronous]
  // (an anonymous function prints no name: `<JSFunction (sfi = …)>`, left out)
  for (const l of lines) {
    const m = /^\[compiling method \S+ <JSFunction ([^\s(]\S*) .*mode: ConcurrencyMode::(\w+)\]/.exec(l);
    if (m) modes.set(m[1] as string, (modes.get(m[1] as string) ?? new Set()).add(m[2] as string));
  }
  return { answer: JSON.parse(json) as Compiled['answer'], modes };
}

const synchronous = (c: Compiled) => [...c.modes].filter(([, m]) => m.has('kSynchronous')).map(([name]) => name);

test('compile hold: pool workers compile on their own thread; a host worker set up while the runtime is open or after it closed, or any when the process was started with the flag, in the background', {
  timeout: 180_000,
}, () => {
  const root = tempDir();
  const lines = Array.from({ length: 200_000 }, (_, i) => `line ${i} TODO ${i} x\n`);
  writeFileSync(path.join(root, 'big.txt'), lines.join(''));

  const held = run(root);
  assert.equal(held.answer.isError, false, held.answer.text);
  assert.equal(held.answer.text, 'big.txt:200000');
  // Only the pool's worker was set up with the gate open: the host's and the main thread's named
  // functions compiled in the background.
  const pools = synchronous(held);
  assert.ok(pools.length > 0, `no function compiled on its own thread: ${[...held.modes.keys()]}`);
  assert.ok(!pools.some((name) => name.startsWith('hot')), `the host's worker did: ${pools}`);
  assert.deepEqual([...(held.modes.get('hotWhileOpen') ?? [])], ['kConcurrent']);
  assert.deepEqual([...(held.modes.get('hotAfterClose') ?? [])], ['kConcurrent']);

  const hostsChoice = run(root, ['--concurrent-recompilation']);
  assert.equal(hostsChoice.answer.text, 'big.txt:200000');
  assert.deepEqual([...(hostsChoice.modes.get('hotWhileOpen') ?? [])], ['kConcurrent']);
  assert.deepEqual(synchronous(hostsChoice), []);
});
