/**
 * Deno-style permission flags: for each kind (read, write, run, net, env) an allow and a deny grant,
 * each `false`, `true` (everything) or a list (paths, command names, hosts, variable names). Deny
 * wins. What a grant covers: paths by containment (resolved like every other path), commands by
 * the program name of every command in the line (a bare `git` grant never covers `./git`, nor git
 * running code it is given; a `git` deny also covers `/usr/bin/git`), hosts and variables by name
 * (`AWS_*` style prefixes for variables).
 */
import { domainToASCII } from 'node:url';
import { inside } from '../core/paths.ts';
import { KINDS, type Kind } from '../core/permission_kinds.ts';
import type { CheckedAccess } from '../core/tool.ts';
import { analyseCommand } from '../shell/commands.ts';
import { programsCover, programsDeny } from './run_match.ts';

export { KINDS, type Kind } from '../core/permission_kinds.ts';

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
  // A blanket allow does not reach a local address (NetAccess.local); a blanket deny does.
  if (grant === true) return asDeny || t.kind !== 'net' || !t.local;
  switch (t.kind) {
    case 'read':
    case 'write':
      return grant.some((g) => inside(t.path, resolve(g)));
    case 'run':
      // Through the command's analysis (shell.ts): an allow list must name the program of every
      // command, a deny list any one (by name or path); see run_match.ts.
      return asDeny ? programsDeny(grant, analyseCommand(t.command)) : programsCover(grant, analyseCommand(t.command));
    case 'net':
      // A local address is allowed only by an entry naming it: `*` and `*.domain` do not reach it.
      return grant.some((g) => hostCovers(g, t.host) && (asDeny || !t.local || !g.includes('*')));
    case 'env':
      return grant.some((g) => (g.endsWith('*') ? t.name.startsWith(g.slice(0, -1)) : g === t.name));
  }
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

const RULE_LIKE = /^(\*|[A-Za-z][A-Za-z0-9_]*)\((.*)\)$/s;

/**
 * createRuntime's `permissions` option, checked: `{ allow?, deny? }`, each `{ [kind]: true | false |
 * string[] }`. A caller's mistake is an error naming where it is, never a grant that silently covers
 * nothing: an unknown key or kind, a value of the wrong type, and a rule string (`bash(git status)`,
 * the settings files' syntax) where a list of paths, programs, hosts or variables belongs.
 */
export function checkPermissions(p: unknown, toolNames: readonly string[]): string | undefined {
  if (p === undefined) return undefined;
  const shape = `{ allow: { read: ['src'], run: ['git'] }, deny: { write: ['dist'] } }`;
  if (typeof p !== 'object' || p === null || Array.isArray(p))
    return `the permissions option must be an object such as ${shape}`;
  for (const [side, grants] of Object.entries(p)) {
    if (side !== 'allow' && side !== 'deny')
      return `permissions.${side} is not an option: permissions has allow and deny, each by kind (${KINDS_LIST})${side === 'ask' ? '; ask rules go in a settings file (.mewcode/settings.json)' : ''}`;
    if (Array.isArray(grants) && grants.some((g) => typeof g === 'string' && RULE_LIKE.test(g)))
      return `permissions.${side} is a list of rules; rules such as ${JSON.stringify(grants[0])} go in a settings file's permissions.${side} (.mewcode/settings.json). The option takes grants by kind: ${shape}`;
    if (typeof grants !== 'object' || grants === null || Array.isArray(grants))
      return `permissions.${side} must be an object of grants by kind (${KINDS_LIST}), such as ${shape}`;
    for (const [kind, grant] of Object.entries(grants)) {
      const where = `permissions.${side}.${kind}`;
      if (!(KINDS as readonly string[]).includes(kind))
        return `${where}: there is no kind ${JSON.stringify(kind)}; the kinds are ${KINDS_LIST}`;
      if (grant === undefined || typeof grant === 'boolean') continue;
      if (!Array.isArray(grant) || grant.some((g) => typeof g !== 'string' || g === ''))
        return `${where} must be true, false or a list of non-empty strings, not ${JSON.stringify(grant)}`;
      const rule = grant.find(
        (g) => (RULE_LIKE.test(g) && toolNames.includes(RULE_LIKE.exec(g)?.[1] ?? '')) || /^\*\(/.test(g),
      );
      if (rule !== undefined)
        return `${where} lists ${JSON.stringify(rule)}, which is a rule, not ${SUBJECTS[kind as Kind]}; rules go in a settings file's permissions.${side} (.mewcode/settings.json)`;
      const badHost = kind === 'net' ? grant.map(hostPatternError).find(Boolean) : undefined;
      if (badHost) return `${where}: ${badHost}`;
    }
  }
  return undefined;
}

const KINDS_LIST = KINDS.join(', ');
const SUBJECTS: Record<Kind, string> = {
  read: 'a path',
  write: 'a path',
  run: 'a program name',
  net: 'a host',
  env: 'a variable name',
};

/**
 * A host as `name` (lower case, no trailing dot, IPv6 in brackets, an international name in its
 * ASCII form as URLs and resolvers carry it) and the port it names, if any.
 */
function hostAndPort(h: string): { name: string; port?: string } {
  const m = /^(\[[^\]]*\]|[^:]*)(?::(\d*))?$/.exec(h.trim().toLowerCase());
  const name = asciiName((m?.[1] ?? h.trim().toLowerCase()).replace(/\.$/, ''));
  return m?.[2] ? { name, port: m[2] } : { name };
}

function asciiName(name: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the ASCII range is what is tested
  if (/^[\x00-\x7f]*$/.test(name)) return name;
  const wild = name.startsWith('*.');
  const ascii = domainToASCII(wild ? name.slice(2) : name);
  return ascii === '' ? name : wild ? `*.${ascii}` : ascii;
}

/**
 * What is wrong with a host pattern (a flag's entry, a rule's plain pattern), if anything: it is
 * `host`, `host:port`, `*.domain`, `*` (every host), each with an optional port, or an IPv6 address
 * in brackets. A wildcard anywhere else would match nothing and so deny nothing.
 */
export function hostPatternError(p: string): string | undefined {
  const m = /^(\[[0-9a-fA-F:.]+\]|[^:[\]]+)(?::(\d+))?$/.exec(p.trim());
  const name = m?.[1] ?? '';
  const port = m?.[2] === undefined ? undefined : Number(m[2]);
  const okName = name === '*' || /^(\*\.)?[^*\s/@?#]+$/.test(name);
  if (m && okName && (port === undefined || (port >= 1 && port <= 65535))) return undefined;
  return `${JSON.stringify(p)} is not a host pattern: write host, host:port, *.domain (its subdomains) or * (every host), with :port if one port`;
}

/**
 * Whether the granted host `g` (`name`, `name:port`, `*.domain`, `*.domain:port`) covers the host a
 * call reaches (`host[:port]`): the names compared in lower case and without a trailing dot, a grant
 * without a port covering every port (as Deno's `--allow-net=host` does) — so a deny of `evil.com`
 * also covers `evil.com:8080`, `EVIL.com` and `evil.com.`.
 */
/** Whether `host` is the one `exact` names, no wildcard read in it: on any port unless it names one. */
export function sameHost(exact: string, host: string): boolean {
  const want = hostAndPort(exact);
  const have = hostAndPort(host);
  return want.name === have.name && (want.port === undefined || want.port === have.port);
}

export function hostCovers(g: string, host: string): boolean {
  const want = hostAndPort(g);
  const have = hostAndPort(host);
  if (want.port !== undefined && want.port !== have.port) return false;
  if (want.name === have.name || want.name === '*') return true;
  return want.name.startsWith('*.') && have.name.endsWith(want.name.slice(1));
}
