/**
 * A record cut short by a full disk (a tiny tmpfs, mounted as root) does not swallow the next one: the
 * first record written after space comes back starts on a line of its own.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { openAuditLog } from '../../lib/audit/log_file.ts';
import { tempDir } from '../helpers/temp.ts';

const root = process.getuid?.() === 0;

test('after a full disk the first record written again is whole on its own line', {
  skip: !root && 'needs root to mount a tmpfs',
}, () => {
  const mnt = path.join(tempDir(), 'full');
  mkdirSync(mnt);
  execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', mnt]);
  try {
    const filler = path.join(mnt, 'filler');
    writeFileSync(filler, Buffer.alloc(60 * 1024 - 300));
    const warns: string[] = [];
    const log = openAuditLog(path.join(mnt, 'log', 'audit.jsonl'), { warn: (l) => warns.push(l) });
    assert.ok(log.ok);
    const rec = (i: number) =>
      log.value.sink({
        type: 'session',
        time: 't',
        session: `s${i}`,
        root: 'r'.repeat(200),
        pid: 1,
        mode: 'default',
        sandbox: false,
      });
    for (let i = 0; i < 50; i++) rec(i);
    assert.equal(warns.length, 1, 'the full disk is said once');
    rmSync(filler);
    rec(50);
    log.value.close();
    const lines = readFileSync(path.join(mnt, 'log', 'audit.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean);
    const sessions = lines.flatMap((l) => {
      try {
        return [(JSON.parse(l) as { session: string }).session];
      } catch {
        return [];
      }
    });
    assert.ok(
      sessions.includes('s50'),
      `the record written after space came back is lost: ${lines.at(-1)?.slice(0, 120)}`,
    );
  } finally {
    execFileSync('umount', [mnt]);
  }
});
