/**
 * Deno-style permission flags: for each kind (read, write, run, net, env) an allow and a deny grant,
 * each `false`, `true` (everything) or a list (paths, command names, hosts, variable names). Deny
 * wins. What a grant covers: paths by containment (resolved like every other path), commands by
 * their program name (a bare `git` grant never covers `./git`; a `git` deny also covers
 * `/usr/bin/git`), hosts and variables by name (`AWS_*` style prefixes for variables).
 */
import path from 'node:path';
import { inside } from '../core/paths.ts';
import type { CheckedAccess } from '../core/tool.ts';

export const KINDS = ['read', 'write', 'run', 'net', 'env'] as const;
export type Kind = (typeof KINDS)[number];

export type Grant = boolean | readonly string[];

export interface PermissionFlags {
  allow?: Partial<Record<Kind, Grant>>;
  deny?: Partial<Record<Kind, Grant>>;
}

/** Flags with both sides present, as the policy uses them. */
export type Flags = Required<PermissionFlags>;

/** Whether a grant covers an access. `resolve` turns a granted path into an absolute real path. */
export function covers(
  grant: Grant | undefined,
  t: CheckedAccess,
  resolve: (p: string) => string,
  asDeny: boolean,
): boolean {
  if (grant === undefined || grant === false) return false;
  if (grant === true) return true;
  switch (t.kind) {
    case 'read':
    case 'write':
      return grant.some((g) => inside(t.path, resolve(g)));
    case 'run':
      return runCovered(grant, t.command, asDeny);
    case 'net':
      return grant.some((g) => g === t.host || (g.startsWith('*.') && t.host.endsWith(g.slice(1))));
    case 'env':
      return grant.some((g) => (g.endsWith('*') ? t.name.startsWith(g.slice(0, -1)) : g === t.name));
  }
}

/**
 * A command is covered by an allow-list of programs only when every simple command in it is: a
 * construct we cannot see through (substitution, eval, a leading assignment such as PATH=…) is
 * never covered. A deny-list covers the command when any simple command runs a denied program, by
 * name or by path.
 */
function runCovered(programs: readonly string[], command: string, asDeny: boolean): boolean {
  const simple = splitCommands(command);
  if (asDeny)
    return simple.some((c) => programs.some((p) => c.program === p || path.basename(c.program) === path.basename(p)));
  if (/\$\(|`|<\(|>\(/.test(command)) return false;
  return simple.length > 0 && simple.every((c) => !c.assigns && c.program !== 'eval' && programs.includes(c.program));
}

export interface SimpleCommand {
  program: string;
  /** The command starts with variable assignments (FOO=bar cmd), which can change what runs. */
  assigns: boolean;
}

/** The simple commands of a command line, split on ; & && || | and newlines (quotes respected). */
export function splitCommands(command: string): SimpleCommand[] {
  const parts: string[] = [];
  let cur = '';
  let quote: string | undefined;
  for (let i = 0; i < command.length; i++) {
    const c = command[i] as string;
    if (quote) {
      cur += c;
      if (c === quote) quote = undefined;
      else if (c === '\\' && quote === '"') cur += command[++i] ?? '';
      continue;
    }
    if (c === "'" || c === '"') {
      quote = c;
      cur += c;
    } else if (c === '\\') {
      cur += c + (command[++i] ?? '');
    } else if (c === ';' || c === '&' || c === '|' || c === '\n' || c === '(' || c === ')' || c === '{' || c === '}') {
      parts.push(cur);
      cur = '';
    } else {
      cur += c;
    }
  }
  parts.push(cur);
  const out: SimpleCommand[] = [];
  for (const p of parts) {
    const words = p.trim().split(/\s+/).filter(Boolean);
    let assigns = false;
    while (words.length && /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[0] as string)) {
      assigns = true;
      words.shift();
    }
    const program = (words[0] ?? '').replace(/^['"]|['"]$/g, '');
    if (program && !['then', 'do', 'else', 'fi', 'done', 'esac', '!'].includes(program)) out.push({ program, assigns });
  }
  return out;
}

/** Parses a flag value: bare flag (`*` or empty) → everything; otherwise a comma list. */
export function grantOf(value: string | undefined): Grant | undefined {
  if (value === undefined) return undefined;
  if (value === '' || value === '*') return true;
  return value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}
