/**
 * Rule files: `.mewcode/settings.local.json` (local), `.mewcode/settings.json` (project) and
 * `~/.mewcode/settings.json` (user). Each may hold `permissions.allow|ask|deny` rule lists, a `mode`
 * and `hooks.PreToolUse`. A rule is `tool` or `tool(pattern)`; the tool may be `*`. The pattern is
 * matched against what each access touches: a path (relative to the root) as a glob — a plain path
 * also covers everything below it —, each command of a command line as a prefix of whole words
 * (run_match.ts: an allow must cover every command of a line, a deny or ask any one), a host or
 * variable by name (a host as the --allow-net flag reads it: any port unless one is named, `*.domain`
 * its subdomains; the tool `net` speaks to every connection of every tool); `=x` is exact, `~re` a regular expression, and a leading `!` negates. Which
 * list wins is decided in check.ts (deny > ask > allow, whatever file or depth). The files are read and checked in
 * settings_file.ts; what a project's files may widen is decided by folder trust (trust.ts).
 */
import picomatch from 'picomatch';
import type { Limits } from '../core/limits.ts';
import type { Mode } from '../core/modes.ts';
import { errValue, okValue, type Result } from '../core/result.ts';
import type { CheckedAccess } from '../core/tool.ts';
import { limitsOf } from '../settings/limits_setting.ts';
import { type Level, type McpServerConfig, readSettingsFiles, type SettingsFile } from '../settings/settings_file.ts';
import { settleTrust, type TrustOption } from '../settings/trust.ts';
import { hostCovers, hostPatternError, sameHost } from './permissions.ts';
import { runRuleTest, SEVERAL } from './run_match.ts';

export { LEVELS, type Level, type McpServerConfig, settingsFiles } from '../settings/settings_file.ts';
export type RuleList = 'allow' | 'ask' | 'deny';

export interface Rule {
  text: string;
  list: RuleList;
  level: Level;
  tool: string;
  /** The pattern as written (without parentheses); absent: every access of the tool. */
  pattern?: string;
  test?: (t: CheckedAccess, rel: (p: string) => string) => boolean;
  /**
   * The pattern names hosts one by one (a plain or `=` host, no wildcard, no negation): only such a
   * rule lets a call reach a loopback, private or metadata address (NetAccess.local).
   */
  namesHost?: boolean;
}

export interface Hook {
  command: string;
  /** Regex on the tool name; absent: every tool. */
  matcher?: RegExp;
  timeoutMs: number;
  level: Level;
}

export interface LoadedSettings {
  rules: Rule[];
  hooks: Hook[];
  /** By name; the closest file's definition of a name wins. */
  mcpServers: Record<string, McpServerConfig>;
  mode?: Mode;
  /** The closest file's `model`. */
  model?: string;
  /** The closest file's `toolSearch`: when the agent defers MCP tools (false: never). */
  toolSearch?: false | { share?: number; maxTools?: number };
  /** Command limits: the user file's, tightened by the project and local files' (lib/settings/limits_setting.ts). */
  limits: Limits;
  files: string[];
  /** One line naming what an untrusted project's settings would have widened, and was ignored. */
  notice?: string;
}

/**
 * Loads every settings file that exists, the project and local ones only as far as folder trust
 * allows (trust.ts); any problem is an error naming the file and what is wrong.
 */
export function loadSettings(
  root: string,
  home: string | undefined,
  toolNames: readonly string[],
  trust?: TrustOption,
): Result<LoadedSettings, string> {
  const read = readSettingsFiles(root, home);
  if (!read.ok) return read;
  // Every file is checked whole, what trust ignores included: a bad file is an error either way.
  const whole = compile(read.value, toolNames);
  if (!whole.ok) return whole;
  const settled = settleTrust(root, home, read.value, trust);
  if (!settled.ok) return settled;
  const { files, notice } = settled.value;
  if (!notice) return whole;
  const applied = compile(files, toolNames);
  return applied.ok ? okValue({ ...applied.value, notice }) : applied;
}

function compile(files: readonly SettingsFile[], toolNames: readonly string[]): Result<LoadedSettings, string> {
  const out: LoadedSettings = { rules: [], hooks: [], mcpServers: {}, files: [], limits: limitsOf(files) };
  for (const { level, file, settings: s } of files) {
    out.files.push(file);
    // The closest file's mode wins (local > project > user).
    if (s.mode && out.mode === undefined) out.mode = s.mode;
    if (s.model && out.model === undefined) out.model = s.model;
    if (s.toolSearch !== undefined && out.toolSearch === undefined) out.toolSearch = s.toolSearch;
    for (const list of ['deny', 'ask', 'allow'] as const) {
      for (const text of s.permissions?.[list] ?? []) {
        const r = parseRule(text, list, level, toolNames);
        if (!r.ok) return errValue(`${file}: ${r.error}`);
        out.rules.push(r.value);
      }
    }
    for (const [name, server] of Object.entries(s.mcpServers ?? {})) out.mcpServers[name] ??= server;
    for (const h of s.hooks?.PreToolUse ?? []) {
      let matcher: RegExp | undefined;
      try {
        matcher = h.matcher ? new RegExp(h.matcher) : undefined;
      } catch (e) {
        return errValue(
          `${file}: hook matcher ${JSON.stringify(h.matcher)} is not a valid regular expression: ${(e as Error).message}`,
        );
      }
      out.hooks.push({ command: h.command, ...(matcher ? { matcher } : {}), timeoutMs: h.timeout ?? 30_000, level });
    }
  }
  return okValue(out);
}

/** The rule tool that speaks to every connection, whichever tool makes it: `net(*.npmjs.org)`. */
export const NET_RULE = 'net';
/** Tools whose only accesses are connections: their plain patterns must be host patterns. */
const HOST_RULE_TOOLS = [NET_RULE, 'web_fetch', 'install_skill'];

const RULE = /^(\*|[A-Za-z][A-Za-z0-9_]*|mcp__[A-Za-z0-9_-]+__[A-Za-z0-9_-]+)(?:\((.*)\))?$/s;

export function parseRule(
  text: string,
  list: RuleList,
  level: Level,
  toolNames: readonly string[],
): Result<Rule, string> {
  const m = RULE.exec(text.trim());
  if (!m) return errValue(`rule ${JSON.stringify(text)} is not "tool" or "tool(pattern)"`);
  const [, tool = '', inner] = m;
  if (tool !== '*' && tool !== NET_RULE && !tool.startsWith('mcp__') && !toolNames.includes(tool)) {
    const near = toolNames.find((n) => n.toLowerCase() === tool.toLowerCase().replace(/-/g, '_'));
    return errValue(
      `rule ${JSON.stringify(text)} names no tool${near ? ` (did you mean ${near}?)` : ''}; the tools are ${toolNames.join(', ')} (or * for all, ${NET_RULE}(host) for every connection)`,
    );
  }
  if (inner === undefined) return okValue({ text, list, level, tool });
  let p = inner;
  const negate = p.startsWith('!');
  if (negate) p = p.slice(1);
  if (p === '') return errValue(`rule ${JSON.stringify(text)} has an empty pattern; write "${tool}" for every call`);
  let match: (s: string, isPath: boolean) => boolean;
  let re: RegExp | undefined;
  if (p.startsWith('=')) {
    const exact = p.slice(1);
    match = (s) => s === exact;
  } else if (p.startsWith('~')) {
    try {
      re = new RegExp(p.slice(1));
    } catch (e) {
      return errValue(`rule ${JSON.stringify(text)}: invalid regular expression: ${(e as Error).message}`);
    }
    const r = re;
    match = (s) => r.test(s);
  } else {
    if (tool === 'bash' && SEVERAL.test(p))
      return errValue(
        `rule ${JSON.stringify(text)} names several commands; a rule is matched against each command on its own (an allow must cover every one), so write one rule per command`,
      );
    const glob = picomatch(p, { dot: true });
    const base = p.replace(/\/+$/, '');
    match = (s, isPath) =>
      isPath
        ? glob(s) || s === base || s.startsWith(`${base}/`)
        : s === p || s.startsWith(`${p} `) || s.startsWith(`${p}\t`);
  }
  // A command is matched command by command (run_match.ts): an allow covers every one, a deny or ask any.
  const badHost = HOST_RULE_TOOLS.includes(tool) && !re && !p.startsWith('=') ? hostPatternError(p) : undefined;
  if (badHost) return errValue(`rule ${JSON.stringify(text)}: ${badHost}`);
  const run = runRuleTest(p, negate, list, re, tool === '*');
  const net = netRuleTest(p, re);
  const test = (t: CheckedAccess, rel: (p: string) => string) => {
    if (t.kind === 'run') return run(t.command);
    const hit = t.kind === 'net' ? net(t.host) : match(subjectOf(t, rel), t.kind === 'read' || t.kind === 'write');
    return negate ? !hit : hit;
  };
  const namesHost = !negate && !re && !p.includes('*');
  return okValue({ text, list, level, tool, pattern: inner, test, ...(namesHost ? { namesHost } : {}) });
}

/**
 * A rule's host pattern as the flags read theirs (hostCovers): lower case, no trailing dot, a host
 * without a port covering all its ports, `*.domain` its subdomains; `=host:port` exactly that, in
 * any case; `~re` the host as written.
 */
function netRuleTest(p: string, re: RegExp | undefined): (host: string) => boolean {
  if (re) return (h) => re.test(h);
  // `=host` is that name and no pattern (a `*` in it is a character): on any port unless it names one.
  if (p.startsWith('=')) return (h) => sameHost(p.slice(1), h);
  return (h) => hostCovers(p, h);
}

/** What a rule pattern is matched against for one access. */
export function subjectOf(t: CheckedAccess, rel: (p: string) => string): string {
  switch (t.kind) {
    case 'read':
    case 'write':
      return rel(t.path);
    case 'run':
      return t.command.trim();
    case 'net':
      return t.host;
    case 'env':
      return t.name;
  }
}
