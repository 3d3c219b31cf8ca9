/**
 * The line a bash answer gives the limit that ended its command, as the model and a person read it:
 * `killed: memory limit (1 GiB) reached`, `pids limit (256) reached: fork failed`, `killed: CPU time
 * limit (60 s) reached`; a guess (a resource limit, which the kernel does not report) says "probably".
 */
import { type LimitHit, showLimit } from '../core/limits.ts';

const NAMES = { memory: 'memory limit', pids: 'pids limit', cpu: 'CPU time limit' } as const;

export function limitLine(h: LimitHit): string {
  const what = `${NAMES[h.limit]} (${showLimit(h.limit, h.value)}) ${h.certain ? 'reached' : 'probably reached'}`;
  const times = h.times && h.times > 1 ? ` (${h.times} times)` : '';
  const how = h.by === 'rlimit' ? '; the limit is a resource limit on each process (see meta.limits)' : '';
  if (h.effect === 'killed') return `killed: ${what}${times}${how}`;
  return `${what}: ${h.effect}${times}${how}`;
}
