/**
 * The cross-process lock directory is the user's own: per user, made 0700, and refused with a clear
 * error when what stands at its name is a symbolic link, another user's, or writable by others —
 * a write then fails and says how to mend it, and nothing is written. Real child processes, each
 * with its own temp dir (TMPDIR), so the planted directory is the one they use.
 */
import assert from 'node:assert/strict';
import { chmodSync, chownSync, existsSync, mkdirSync, statSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { runCli } from '../helpers/cli.ts';
import { tempDir } from '../helpers/temp.ts';

const uid = process.geteuid?.() ?? 0;
const write = (root: string, tmp: string) =>
  runCli(
    ['call', 'write_file', JSON.stringify({ file_path: 'a.txt', content: 'x\n' }), '--root', root, '--allow-write'],
    {
      env: { ...process.env, TMPDIR: tmp },
    },
  );

test('lock directory: made per user and 0700; a planted link, a foreign or an open one is refused and nothing is written', async () => {
  const root = tempDir();
  const fresh = tempDir();
  const ok = await write(root, fresh);
  assert.equal(ok.code, 0, ok.err);
  const made = statSync(path.join(fresh, `mewcode-locks-${uid}`));
  assert.equal(made.mode & 0o777, 0o700);
  const plants: [string, (dir: string) => void, RegExp][] = [
    ['link', (dir) => symlinkSync(tempDir(), dir), /is a symbolic link/],
    ['open', (dir) => chmodSync(dir, 0o777), /is writable by others \(mode 777\)/],
    ['foreign', (dir) => chownSync(dir, uid + 1, uid + 1), new RegExp(`belongs to uid ${uid + 1}, not to you`)],
  ];
  for (const [what, plant, says] of plants) {
    const tmp = tempDir();
    const dir = path.join(tmp, `mewcode-locks-${uid}`);
    if (what !== 'link') mkdirSync(dir, { mode: 0o700 });
    plant(dir);
    const other = tempDir();
    const r = await write(other, tmp);
    assert.notEqual(r.code, 0, `${what}: ${r.out}`);
    assert.match(`${r.out}${r.err}`, says, what);
    assert.match(`${r.out}${r.err}`, /remove it \(rm -r /, what);
    assert.equal(existsSync(path.join(other, 'a.txt')), false, `${what}: nothing written`);
  }
});
