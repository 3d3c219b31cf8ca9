/**
 * What searches must skip: --deny-read paths, and deny rules with path patterns for the read tools.
 * glob and grep apply this before listing or reading anything, so nothing under a denied path comes
 * back, not even its name.
 */
import { type DenySpec, pathGlobs } from '../search/denied.ts';
import type { PathGate } from './path_gate.ts';
import type { Flags } from './permissions.ts';
import type { Rule } from './rules.ts';

export function readDenyOf(flags: Flags, rules: readonly Rule[], gate: PathGate): DenySpec | undefined {
  const spec: DenySpec = { globs: [], regexes: [] };
  const denied = flags.deny.read;
  if (denied === true) spec.globs.push('**');
  else
    for (const p of denied || []) {
      const c = gate.check(p, 'read');
      if (c.ok) spec.globs.push(...pathGlobs(gate.display(c.value)));
    }
  for (const r of rules) {
    if (r.list !== 'deny' || !['*', 'read_file', 'grep', 'glob'].includes(r.tool)) continue;
    const p = r.pattern;
    if (p === undefined) {
      if (r.tool !== 'read_file') spec.globs.push('**');
    } else if (p.startsWith('~')) spec.regexes.push(p.slice(1));
    else if (p.startsWith('=')) spec.regexes.push(`^${p.slice(1).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`);
    else if (!p.startsWith('!')) spec.globs.push(p, ...pathGlobs(p.replace(/\/+$/, '')));
  }
  return spec.globs.length || spec.regexes.length ? spec : undefined;
}
