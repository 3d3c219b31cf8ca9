/**
 * The OS sandbox for bash (--sandbox): bubblewrap. What the command sees is sandbox_view.ts (the
 * system read-only, the root read-write, private /tmp and $HOME, credentials masked); the protected
 * locations stay read-only whether they exist or not (sandbox_protect.ts); the seccomp filter refuses
 * Unix-domain sockets and io_uring (seccomp.ts); no network of its own: all of it with --allow-net
 * without hosts, else only the runtime's filtering proxy when hosts are named (proxy_launch.ts); a
 * fresh PID namespace that dies with us; no capabilities even as root (without --unshare-user
 * --cap-drop ALL a root command could remount / read-write); no nested user namespaces; only the
 * environment we pass. It is probed once when the runtime starts; when it cannot start, sandboxed
 * commands fail closed — never a silent unsandboxed retry. Write lane, main thread.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { errValue, okValue, type Result } from '../core/result.ts';
import type { DenySpec } from '../search/denied.ts';
import { protectRoot, releaseUse } from './protect.ts';
import { behindHelper, proxyEnv } from './proxy_launch.ts';
import { unixSocketFilter } from './seccomp.ts';
import { sandboxStateDir } from './state.ts';
import { releaseWhenGone, sandboxGone, type Use } from './status.ts';
import { sandboxView } from './view.ts';

export interface SandboxConfig {
  bwrap: string;
  root: string;
  /** The whole network (--allow-net without hosts). */
  allowNet: boolean;
  /** The network filtered by host: every connection goes to the runtime's proxy (proxy_launch.ts). */
  proxyNet?: boolean;
  /** --deny-read paths, absolute: masked in the sandbox. */
  denyRead?: readonly string[];
  /** Deny rules of the read tools (relative to the root): what they match is masked in the sandbox. */
  denyRules?: DenySpec;
}

/**
 * The launcher bash.ts runs: it opens the seccomp program on fd 3 and the status file on fd 4, writes
 * its pid there, and becomes bubblewrap (same pid, same process group). `$1` and `$2` are those files.
 */
const LAUNCH = `exec 3<"$1" 4>>"$2" || exit 126
printf '{ "shell-pid": %s }\\n' "$$" >&4
shift 2
exec "$@"`;

interface Sandboxed {
  argv: string[];
  use: Use;
  release: () => void;
}

function build(c: SandboxConfig, cwd: string, env: Record<string, string>, argv: readonly string[]) {
  const dir = sandboxStateDir(c.root);
  if (!dir.ok) return dir;
  const filter = filterFile(dir.value);
  if (!filter.ok) return filter;
  const view = sandboxView(c, env);
  const prot = protectRoot(c.root, dir.value); // last: from here on the use must be launched or released
  if (!prot.ok) return prot;
  const args = ['--unshare-user', '--cap-drop', 'ALL', '--disable-userns', '--unshare-pid', '--unshare-ipc'];
  args.push('--unshare-uts');
  if (!c.allowNet) args.push('--unshare-net');
  args.push('--new-session', '--die-with-parent', ...view.base, '--bind', c.root, c.root);
  args.push(...prot.value.args, ...view.masks, '--seccomp', '3', '--json-status-fd', '4', '--clearenv');
  const all = c.proxyNet ? { ...env, ...proxyEnv() } : env;
  for (const [k, v] of Object.entries(all)) args.push('--setenv', k, v);
  args.push('--chdir', cwd, '--', ...(c.proxyNet ? behindHelper(argv) : argv));
  const use = prot.value.use;
  const sandboxed: Sandboxed = {
    argv: ['/bin/sh', '-c', LAUNCH, 'mewcode-sandbox', filter.value, use.status, c.bwrap, ...args],
    use,
    release: () => releaseUse(c.root, dir.value, use),
  };
  return okValue(sandboxed);
}

/**
 * The argv that runs `argv` in the sandbox, or why it cannot run there. The protected locations'
 * placeholders it makes are removed once the sandbox is gone (lib/sandbox/status.ts).
 */
export function sandboxCommand(
  c: SandboxConfig,
  cwd: string,
  env: Record<string, string>,
  argv: readonly string[],
): Result<string[], string> {
  const s = build(c, cwd, env, argv);
  if (!s.ok) return s;
  releaseWhenGone(s.value.use, s.value.release);
  return okValue(s.value.argv);
}

/** Writes the seccomp program once per content into the private state directory. */
function filterFile(dir: string): Result<string, string> {
  const bytes = unixSocketFilter();
  const file = path.join(
    dir,
    `unix-socket-filter-${createHash('sha256').update(bytes).digest('hex').slice(0, 16)}.bpf`,
  );
  try {
    if (readFileSync(file).equals(bytes)) return okValue(file);
  } catch {
    // not written yet
  }
  try {
    const tmp = `${file}.${process.pid}.tmp`;
    writeFileSync(tmp, bytes, { mode: 0o600 });
    renameSync(tmp, file);
    return okValue(file);
  } catch (e) {
    return errValue(`cannot write the seccomp filter to ${file}: ${(e as Error).message}`);
  }
}

/** Whether the sandbox can start here: finds bwrap and runs `true` inside it. The path of bwrap, or why not. */
export function probeSandbox(c: Omit<SandboxConfig, 'bwrap'>): Result<string, string> {
  const found = (spawnSync('/bin/sh', ['-c', 'command -v bwrap'], { encoding: 'utf8' }).stdout ?? '').trim();
  if (!found)
    return errValue(
      'bubblewrap (bwrap) is not installed; install it (apt-get install bubblewrap) or run without --sandbox',
    );
  // bwrap itself: the proxy's helper needs the channel only a supervised command has (net_session.ts).
  const s = build({ ...c, bwrap: found, proxyNet: false }, c.root, { PATH: '/usr/bin:/bin' }, ['true']);
  if (!s.ok) return s;
  const [cmd, ...args] = s.value.argv;
  const r = spawnSync(cmd as string, args, { encoding: 'utf8', timeout: 10_000, env: { PATH: '/usr/bin:/bin' } });
  if (sandboxGone(s.value.use)) s.value.release();
  else releaseWhenGone(s.value.use, s.value.release);
  if (r.status !== 0)
    return errValue(
      `bubblewrap could not start a sandbox here: ${(r.stderr || r.error?.message || `exit ${r.status}`).trim()}`,
    );
  return okValue(found);
}
