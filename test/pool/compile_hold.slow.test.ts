/**
 * While a runtime holds the heap (core/heap_hold.ts), isolates set up in the process (its pool's
 * workers, a host's own worker) optimise their hot code on their own thread, not on V8's compiler
 * threads; once it closes, new isolates compile in the background again; a process started with
 * `--concurrent-recompilation` keeps it (the host's choice stands). Read off V8's `--trace-opt` lines
 * in a child process of its own (test/fixtures/compile_hold.ts): V8's flags are the process's.
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
  for (const l of lines) {
    const m = /^\[compiling method \S+ <JSFunction (\S*) .*mode: ConcurrencyMode::(\w+)\]/.exec(l);
    if (m) modes.set(m[1] as string, (modes.get(m[1] as string) ?? new Set()).add(m[2] as string));
  }
  return { answer: JSON.parse(json) as Compiled['answer'], modes };
}

const synchronous = (c: Compiled) => [...c.modes].filter(([, m]) => m.has('kSynchronous')).map(([name]) => name);

test('compile hold: workers set up while a runtime is open compile on their own thread; after it closes, or when the process was started with the flag, in the background', {
  timeout: 180_000,
}, () => {
  const root = tempDir();
  const lines = Array.from({ length: 200_000 }, (_, i) => `line ${i} TODO ${i} x\n`);
  writeFileSync(path.join(root, 'big.txt'), lines.join(''));

  const held = run(root);
  assert.equal(held.answer.isError, false, held.answer.text);
  assert.equal(held.answer.text, 'big.txt:200000');
  assert.deepEqual([...(held.modes.get('hotWhileHeld') ?? [])], ['kSynchronous']);
  assert.deepEqual([...(held.modes.get('hotAfterClose') ?? [])], ['kConcurrent']);
  // The pool's worker, set up while held, compiled its hot search code on its own thread too.
  const others = synchronous(held).filter((name) => !name.startsWith('hot'));
  assert.ok(others.length > 0, `no function but the host's compiled on its own thread: ${[...held.modes.keys()]}`);

  const hostsChoice = run(root, ['--concurrent-recompilation']);
  assert.equal(hostsChoice.answer.text, 'big.txt:200000');
  assert.deepEqual([...(hostsChoice.modes.get('hotWhileHeld') ?? [])], ['kConcurrent']);
  assert.deepEqual(synchronous(hostsChoice), []);
});
