import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { parseCli, UsageError } from '../../lib/cli/args.ts';
import { runtimeOptions } from '../../lib/cli/main.ts';
import { DEFAULT_LIMITS } from '../../lib/core/limits.ts';
import { createRuntime } from '../../lib/runtime/runtime.ts';
import { limitsOf } from '../../lib/settings/limits_setting.ts';
import { readSettingsFiles } from '../../lib/settings/settings_file.ts';
import { tempDir } from '../helpers/temp.ts';

test('limits: the flags parse strictly; a bad value is a usage error naming the flag', () => {
  const opts = runtimeOptions(
    parseCli(['call', 'bash', '{}', '--limit-memory=1G', '--limit-pids=256', '--limit-cpu=60s']),
  );
  assert.deepEqual(opts.limits, { memory: 1024 ** 3, pids: 256, cpu: 60 });
  assert.deepEqual(runtimeOptions(parseCli(['call', 'bash', '{}', '--limit-cpu=none'])).limits, { cpu: null });
  for (const bad of ['--limit-memory=1g', '--limit-memory=1024', '--limit-pids=0', '--limit-cpu=60'])
    assert.throws(
      () => runtimeOptions(parseCli(['call', 'bash', '{}', bad])),
      (e) => {
        assert.ok(e instanceof UsageError && e.message.startsWith(bad.split('=')[0] as string), String(e));
        return true;
      },
    );
});

test('limits: the user file sets them, a project file only tightens them, the option overrides both', () => {
  const root = tempDir();
  const home = tempDir();
  mkdirSync(path.join(root, '.mewcode'));
  mkdirSync(path.join(home, '.mewcode'));
  writeFileSync(path.join(home, '.mewcode', 'settings.json'), JSON.stringify({ limits: { memory: '8G', cpu: '10m' } }));
  writeFileSync(
    path.join(root, '.mewcode', 'settings.json'),
    JSON.stringify({ limits: { memory: '16G', pids: 'none', cpu: '60s' } }),
  );
  const files = readSettingsFiles(root, home);
  assert.ok(files.ok);
  assert.deepEqual(limitsOf(files.value), { memory: 8 * 1024 ** 3, pids: DEFAULT_LIMITS.pids, cpu: 60 });
  writeFileSync(path.join(root, '.mewcode', 'settings.json'), JSON.stringify({ limits: { memory: '4g' } }));
  const bad = createRuntime({ root, home, workers: 0 });
  assert.ok(!bad.ok && bad.error.includes('memory limit must be'), JSON.stringify(bad));
  const badOption = createRuntime({ root: tempDir(), home: null, workers: 0, limits: { pids: 3 } });
  assert.ok(!badOption.ok && badOption.error.includes('limits.pids'), JSON.stringify(badOption));
});
