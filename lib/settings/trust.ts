/**
 * Folder trust. A cloned repository's `.mewcode/settings.json` and `.mewcode/settings.local.json`
 * are the repository's, not the user's: what in them widens MewCode's power — PreToolUse hooks
 * (commands run on the host), allow rules, mode bypass or acceptEdits, MCP servers (commands
 * started on the host) — takes effect only for a root the user trusted. Trust is given once (the
 * CLI's question or --trust; the runtime option `trust`) and recorded in trust_store.ts with the
 * root's real path and the sha256 of a canonical form of exactly those widening parts, so any change
 * to them needs trust again. Everything else in those files narrows and always applies: deny and ask
 * rules, mode plan or default. The user's own `~/.mewcode/settings.json` always applies.
 *
 * Allow rules MewCode itself wrote into settings.local.json when the user answered "always" are
 * recorded as granted in the same store and count as the user's own: they apply untrusted and are
 * left out of the digest, so the user's "always" neither un-trusts a root nor trusts anything else
 * the repository ships. Main thread.
 */
import { createHash } from 'node:crypto';
import { realpathSync } from 'node:fs';
import { errValue, okValue, type Result } from '../core/result.ts';
import { escapeControl } from '../core/text.ts';
import { type HookEntry, type McpServerConfig, readSettingsFiles, type SettingsFile } from './settings_file.ts';
import { readTrustStore, type TrustStore, updateTrustStore } from './trust_store.ts';

/** `true`: trust the root's settings as they are now; a digest from `inspectTrust`: only if they still match. */
export type TrustOption = true | string;

/** What one project or local file would widen. */
interface Widening {
  file: SettingsFile;
  hooks: HookEntry[];
  allow: string[];
  mode?: 'bypass' | 'acceptEdits';
  mcpServers: Record<string, McpServerConfig>;
}

export interface TrustView {
  /** The root's real path: the key of the record. */
  root: string;
  /** none: nothing to trust; trusted: recorded with this digest; untrusted: never trusted; changed: trusted with another digest. */
  state: 'none' | 'trusted' | 'untrusted' | 'changed';
  digest: string;
  /** One line per widening item, for the question: `.mewcode/settings.json: hook: ./x.sh`. */
  items: string[];
  widening: Widening[];
  granted: ReadonlySet<string>;
}

/** The trust state of a root without changing anything (the CLI asks its question from this). */
export function inspectTrust(root: string, home: string | undefined): Result<TrustView, string> {
  let real: string;
  try {
    real = realpathSync.native(root);
  } catch (e) {
    return errValue(`The root ${JSON.stringify(root)} cannot be opened (${(e as NodeJS.ErrnoException).code})`);
  }
  const files = readSettingsFiles(real, home);
  if (!files.ok) return files;
  return viewOf(real, home, files.value);
}

/**
 * The settings files to apply: unchanged when the root is trusted (recording it first when `trust`
 * trusts it now), else the project and local files without what widens, with the one line to tell
 * the user what was ignored.
 */
export function settleTrust(
  root: string,
  home: string | undefined,
  files: readonly SettingsFile[],
  trust: TrustOption | undefined,
): Result<{ files: SettingsFile[]; notice?: string }, string> {
  const view = viewOf(root, home, files);
  if (!view.ok) return view;
  const v = view.value;
  if (v.state === 'none' || v.state === 'trusted') return okValue({ files: [...files] });
  if (trust === true || trust === v.digest) {
    if (!home) return okValue({ files: [...files] });
    const recorded = updateTrustStore(home, root, (e) => ({ ...e, digest: v.digest }));
    return okValue({
      files: [...files],
      ...(recorded.ok ? {} : { notice: `mewcode: trusted for this run only: ${recorded.error}` }),
    });
  }
  return okValue({
    files: files.map((f) => (f.level === 'user' ? f : narrowed(f, v.granted))),
    notice: noticeOf(v),
  });
}

/** Records allow rules the user granted by answering "always" (before MewCode writes them to settings.local.json). */
export function recordGranted(home: string, root: string, rules: readonly string[]): Result<void, string> {
  return updateTrustStore(home, root, (e) => ({ ...e, granted: [...new Set([...(e.granted ?? []), ...rules])] }));
}

function viewOf(root: string, home: string | undefined, files: readonly SettingsFile[]): Result<TrustView, string> {
  const none: TrustView = { root, state: 'none', digest: '', items: [], widening: [], granted: new Set() };
  // The project and local files of the home directory itself are the user's own.
  if (home && sameDir(root, home)) return okValue(none);
  const ordered = ['project', 'local'].flatMap((l) => files.filter((f) => f.level === l));
  if (ordered.every((f) => isEmpty(wideningOf(f, new Set())))) return okValue(none);
  const store = home ? readTrustStore(home) : okValue<TrustStore>({});
  if (!store.ok) return store;
  const entry = store.value[root] ?? {};
  const granted = new Set<string>(entry.granted ?? []);
  const widening = ordered.map((f) => wideningOf(f, granted)).filter((w) => !isEmpty(w));
  if (widening.length === 0) return okValue({ ...none, granted });
  const digest = digestOf(widening);
  const state = entry.digest === digest ? 'trusted' : entry.digest ? 'changed' : 'untrusted';
  return okValue({ root, state, digest, items: widening.flatMap(itemsOf), widening, granted });
}

function wideningOf(f: SettingsFile, granted: ReadonlySet<string>): Widening {
  const s = f.settings;
  const mode = s.mode === 'bypass' || s.mode === 'acceptEdits' ? s.mode : undefined;
  return {
    file: f,
    hooks: s.hooks?.PreToolUse ?? [],
    allow: (s.permissions?.allow ?? []).filter((r) => !(f.level === 'local' && granted.has(r))),
    ...(mode ? { mode } : {}),
    mcpServers: s.mcpServers ?? {},
  };
}

const isEmpty = (w: Widening) =>
  w.hooks.length === 0 && w.allow.length === 0 && !w.mode && Object.keys(w.mcpServers).length === 0;

/** The file without what widens; the allow rules the user granted in the local file stay. */
function narrowed(f: SettingsFile, granted: ReadonlySet<string>): SettingsFile {
  const { hooks: _h, mcpServers: _m, mode, permissions, ...rest } = f.settings;
  const allow = f.level === 'local' ? (permissions?.allow ?? []).filter((r) => granted.has(r)) : [];
  return {
    ...f,
    settings: {
      ...rest,
      ...(mode === 'plan' || mode === 'default' ? { mode } : {}),
      ...(permissions ? { permissions: { ...permissions, allow } } : {}),
    },
  };
}

/** sha256 of the widening parts as canonical JSON (keys sorted, the order of lists kept). */
function digestOf(widening: readonly Widening[]): string {
  const form = widening.map((w) => ({
    level: w.file.level,
    hooks: w.hooks,
    allow: w.allow,
    mode: w.mode ?? null,
    mcpServers: w.mcpServers,
  }));
  return createHash('sha256').update(canonical(form)).digest('hex');
}

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object')
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  return JSON.stringify(value) ?? 'null';
}

function itemsOf(w: Widening): string[] {
  const at = `${w.file.shown}: `;
  return [
    ...w.hooks.map((h) => `${at}hook${h.matcher ? ` (tools matching ${h.matcher})` : ''}: ${h.command}`),
    ...w.allow.map((r) => `${at}allow rule: ${r}`),
    ...(w.mode ? [`${at}mode: ${w.mode}`] : []),
    ...Object.entries(w.mcpServers).map(
      ([name, s]) =>
        `${at}MCP server ${name}: ${s.url ?? [s.command, ...(s.args ?? [])].join(' ')}${sentVariables(s.headers)}${s.trustReadOnlyHints ? ' (its read-only hints believed)' : ''}`,
    ),
  ].map(escapeControl);
}

const count = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`;

/** `a`, `a and b`, `a, b and c`. */
const listed = (parts: readonly string[]) =>
  parts.length <= 1 ? (parts[0] ?? '') : `${parts.slice(0, -1).join(', ')} and ${parts.at(-1)}`;

function noticeOf(v: TrustView): string {
  const perFile = v.widening.map((w) => {
    const servers = Object.keys(w.mcpServers);
    const parts = [
      ...(w.hooks.length ? [count(w.hooks.length, 'hook')] : []),
      ...(w.allow.length ? [count(w.allow.length, 'allow rule')] : []),
      ...(w.mode ? [`mode ${w.mode}`] : []),
      ...(servers.length ? [`the MCP server${servers.length === 1 ? '' : 's'} ${servers.join(', ')}`] : []),
    ];
    return `${listed(parts)} (${w.file.shown})`;
  });
  const why =
    v.state === 'changed'
      ? 'changed since you trusted them; run with --trust to trust them again'
      : 'not trusted; run with --trust to trust them';
  return escapeControl(`mewcode: ignored ${perFile.join(' and ')} in ${v.root}: ${why}`);
}

function sameDir(a: string, b: string): boolean {
  try {
    return realpathSync.native(a) === realpathSync.native(b);
  } catch {
    return false;
  }
}

/** The environment variables a url server's headers send it (`${NAME}`), for the trust question. */
function sentVariables(headers: Readonly<Record<string, string>> | undefined): string {
  const names = new Set<string>();
  for (const value of Object.values(headers ?? {}))
    for (const m of value.matchAll(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g)) names.add(m[1] as string);
  return names.size ? ` (sent the environment's ${[...names].join(', ')})` : '';
}
