/**
 * What holds a command's processes together so none outlives it, strongest first:
 * - `cgroup`: a cgroup v2 of its own (lib/exec/cgroup.ts) where the hierarchy is writable — every
 *   descendant, whatever it does with sessions and process groups, is killed with `cgroup.kill`.
 * - `pidns`: `unshare --pid --fork --kill-child` where the runtime may create PID namespaces (root or
 *   CAP_SYS_ADMIN): the command is the namespace's init, and when it or unshare dies the kernel kills
 *   every process in the namespace.
 * - `group`: the command's process group only (the weakest): a process that calls `setsid` or
 *   `setpgid` (setsid, nohup in a new session, daemons) escapes the kill.
 * Probed once per process. Main thread.
 */
import { spawnSync } from 'node:child_process';
import { type Cgroup, probeCgroups } from './cgroup.ts';

export type ContainmentKind = 'cgroup' | 'pidns' | 'group';

export interface Containment {
  kind: ContainmentKind;
  /** For `cgroup`: the runtime's own cgroup (as probed), parent of the command cgroups. */
  parent?: Cgroup;
  /** For `pidns`: the argv prefix that makes the command the init of a PID namespace of its own. */
  prefix?: string[];
  /** Why the stronger kinds are not available here (for --verbose and the docs). */
  notes: string[];
}

let probed: Containment | undefined;

/** The strongest containment this process can use (probed on first use, then remembered). */
export function containment(): Containment {
  if (probed) return probed;
  const notes: string[] = [];
  const cg = probeCgroups();
  if (cg.ok) {
    probed = { kind: 'cgroup', parent: cg.value, notes };
    return probed;
  }
  notes.push(`no cgroup per command: ${cg.error}`);
  const prefix = pidNamespacePrefix();
  if (prefix) probed = { kind: 'pidns', prefix, notes };
  else {
    notes.push('no PID namespace per command: unshare --pid is not permitted here');
    probed = { kind: 'group', notes };
  }
  return probed;
}

/** `unshare` by its absolute path (a command's PATH may differ from ours), if it works here. */
export function pidNamespacePrefix(): string[] | undefined {
  const found = (spawnSync('/bin/sh', ['-c', 'command -v unshare'], { encoding: 'utf8' }).stdout ?? '').trim();
  if (!found.startsWith('/')) return undefined;
  const prefix = [found, '--pid', '--fork', '--kill-child'];
  const r = spawnSync(found, [...prefix.slice(1), 'true'], { stdio: 'ignore', timeout: 10_000 });
  return r.status === 0 ? prefix : undefined;
}
