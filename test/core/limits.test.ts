import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DEFAULT_LIMITS, parseLimit, showLimit, tighter } from '../../lib/core/limits.ts';

test('limits: sizes, counts and durations parse strictly, with units', () => {
  assert.deepEqual(parseLimit('memory', '1G'), { ok: true, value: 1024 ** 3 });
  assert.deepEqual(parseLimit('memory', '512M'), { ok: true, value: 512 * 1024 ** 2 });
  assert.deepEqual(parseLimit('memory', '512MiB'), { ok: true, value: 512 * 1024 ** 2 });
  assert.deepEqual(parseLimit('memory', 'none'), { ok: true, value: null });
  assert.deepEqual(parseLimit('pids', '256'), { ok: true, value: 256 });
  assert.deepEqual(parseLimit('cpu', '60s'), { ok: true, value: 60 });
  assert.deepEqual(parseLimit('cpu', '2m'), { ok: true, value: 120 });
  for (const bad of ['1024', '1g', '1.5G', ' 1G', '1G ', '-1G', '0G', '1 G', '1GB ', 'lots', '', '1K'])
    assert.equal(parseLimit('memory', bad).ok, false, `memory ${JSON.stringify(bad)}`);
  for (const bad of ['0', '-5', '1e3', '256 ', '07', '4', 'unlimited', '99999999999999999999'])
    assert.equal(parseLimit('pids', bad).ok, false, `pids ${JSON.stringify(bad)}`);
  for (const bad of ['60', '1.5s', '60S', '0s', '1d', 's'])
    assert.equal(parseLimit('cpu', bad).ok, false, `cpu ${JSON.stringify(bad)}`);
  const r = parseLimit('memory', '1024');
  assert.ok(!r.ok && r.error.includes('512M'), 'the error says what is accepted');
});

test('limits: shown in the units they were given, and combined by the tighter value', () => {
  assert.equal(showLimit('memory', 1024 ** 3), '1 GiB');
  assert.equal(showLimit('memory', 1536 * 1024 ** 2), '1536 MiB');
  assert.equal(showLimit('pids', 256), '256');
  assert.equal(showLimit('cpu', 60), '60 s');
  assert.deepEqual(tighter(DEFAULT_LIMITS, { memory: 1024 ** 3, pids: null, cpu: 30 }), {
    memory: 1024 ** 3,
    pids: 1024,
    cpu: 30,
  });
  assert.deepEqual(tighter(DEFAULT_LIMITS, { memory: 8 * 1024 ** 3 }), DEFAULT_LIMITS);
});
