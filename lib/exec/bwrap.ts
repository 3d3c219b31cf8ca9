/**
 * The OS sandbox for bash (--sandbox): bubblewrap with a read-only view of the system, the root and a
 * private /tmp writable, .git and MewCode's settings read-only inside the root, no network unless
 * granted, a fresh PID namespace that dies with us, no capabilities even as root (without
 * --unshare-user --cap-drop ALL a root command could remount / read-write), no nested user
 * namespaces, and only the environment we pass. It is probed once; when it cannot start, sandboxed
 * commands fail closed — never a silent unsandboxed retry. Write lane, main thread.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { errValue, okValue, type Result } from '../core/result.ts';

export interface SandboxConfig {
  bwrap: string;
  root: string;
  allowNet: boolean;
}

/** Paths inside the root that stay read-only in the sandbox (only existing ones can be bound). */
const READ_ONLY_INSIDE = ['.git', '.mewcode/settings.json', '.mewcode/settings.local.json'];

export function bwrapArgv(
  c: SandboxConfig,
  cwd: string,
  env: Record<string, string>,
  argv: readonly string[],
): string[] {
  const args = [
    '--unshare-user',
    '--cap-drop',
    'ALL',
    '--disable-userns',
    '--unshare-pid',
    '--unshare-ipc',
    '--unshare-uts',
  ];
  if (!c.allowNet) args.push('--unshare-net');
  args.push(
    '--new-session',
    '--die-with-parent',
    '--ro-bind',
    '/',
    '/',
    '--dev',
    '/dev',
    '--proc',
    '/proc',
    '--tmpfs',
    '/tmp',
  );
  args.push('--bind', c.root, c.root);
  for (const rel of READ_ONLY_INSIDE) {
    const p = path.join(c.root, rel);
    if (existsSync(p)) args.push('--ro-bind', p, p);
  }
  args.push('--clearenv');
  for (const [k, v] of Object.entries(env)) args.push('--setenv', k, v);
  args.push('--chdir', cwd, '--', ...argv);
  return [c.bwrap, ...args];
}

/** Whether the sandbox can start here: finds bwrap and runs `true` inside it. The path of bwrap, or why not. */
export function probeSandbox(root: string, allowNet: boolean): Result<string, string> {
  const found = (spawnSync('/bin/sh', ['-c', 'command -v bwrap'], { encoding: 'utf8' }).stdout ?? '').trim();
  if (!found)
    return errValue(
      'bubblewrap (bwrap) is not installed; install it (apt-get install bubblewrap) or run without --sandbox',
    );
  const [cmd, ...args] = bwrapArgv({ bwrap: found, root, allowNet }, root, { PATH: '/usr/bin:/bin' }, ['true']);
  const r = spawnSync(cmd as string, args, { encoding: 'utf8', timeout: 10_000 });
  if (r.status !== 0)
    return errValue(
      `bubblewrap could not start a sandbox here: ${(r.stderr || r.error?.message || `exit ${r.status}`).trim()}`,
    );
  return okValue(found);
}
