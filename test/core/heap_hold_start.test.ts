/**
 * The heap hold gives back what the process was started with (core/heap_hold.ts startValue): a V8
 * flag's value read from node's flags or NODE_OPTIONS, in every form node takes.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startSwitch, startValue } from '../../lib/core/heap_hold.ts';

test('heap hold: a flag the process started with, as --name=V, with underscores or one dash; the last one given', () => {
  assert.equal(startValue('heap-growing-percent', ['--import', 'tsx']), undefined);
  assert.equal(startValue('heap-growing-percent', ['--heap-growing-percent=10']), '10');
  assert.equal(startValue('heap-growing-percent', ['--heap_growing_percent=15']), '15');
  // Node hands V8 a flag with one dash too (`node -max-old-space-size=100` sets the limit).
  assert.equal(startValue('heap-growing-percent', ['-heap_growing-percent=20']), '20');
  // The value is as given: only the name's underscores are dashes.
  assert.equal(startValue('heap-growing-percent', ['--heap-growing-percent=a_b']), 'a_b');
  assert.equal(
    startValue('semi-space-growth-factor', ['--semi-space-growth-factor=3', '--semi_space_growth_factor=4']),
    '4',
  );
  // A flag with no value (node refuses one as the next argument: `illegal value`), or a longer
  // flag's prefix, is not one.
  assert.equal(startValue('heap-growing-percent', ['--heap-growing-percent', '10']), undefined);
  assert.equal(startValue('heap-growing-percent', ['--heap-growing-percentage=5']), undefined);
});

test('heap hold: a boolean flag the process started with, on or off, in every spelling V8 takes (one dash or two); the last one given', () => {
  const name = 'concurrent-recompilation';
  assert.equal(startSwitch(name, ['--import', 'tsx']), undefined);
  assert.equal(startSwitch(name, ['--concurrent-recompilation']), true);
  assert.equal(startSwitch(name, ['--no-concurrent-recompilation']), false);
  assert.equal(startSwitch(name, ['--no_concurrent_recompilation']), false);
  assert.equal(startSwitch(name, ['--noconcurrent-recompilation']), false);
  assert.equal(startSwitch(name, ['-no-concurrent-recompilation']), false);
  assert.equal(startSwitch(name, ['-concurrent_recompilation']), true);
  assert.equal(startSwitch(name, ['--concurrent_recompilation', '--no-concurrent-recompilation']), false);
  assert.equal(startSwitch(name, ['--no-concurrent-recompilation', '--concurrent-recompilation']), true);
  // A longer flag with the same start, or one with a value, is not this one.
  assert.equal(startSwitch(name, ['--concurrent-recompilation-queue-length=2']), undefined);
  assert.equal(startSwitch(name, ['--concurrent-recompilation-delay', '5']), undefined);
});
