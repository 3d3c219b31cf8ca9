/**
 * The settings files as written: `.mewcode/settings.local.json` (local), `.mewcode/settings.json`
 * (project) and `~/.mewcode/settings.json` (user), each read once, parsed and checked against one
 * schema. What they mean (rules, hooks, mode, servers) and whether a project's may widen anything is
 * decided by rules.ts and trust.ts from this one reading. Main thread.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import * as v from 'valibot';
import { type LimitName, parseLimit } from '../core/limits.ts';
import { MODES } from '../core/modes.ts';
import { errValue, okValue, type Result } from '../core/result.ts';

export const LEVELS = ['local', 'project', 'user'] as const;
export type Level = (typeof LEVELS)[number];

/**
 * An MCP server: started over stdio (`command`) or reached over Streamable HTTP (`url`, with
 * `headers` such as `Authorization`; `${NAME}` in a header takes the environment variable NAME).
 */
const McpServer = v.pipe(
  v.strictObject({
    command: v.optional(v.pipe(v.string(), v.minLength(1))),
    args: v.optional(v.array(v.string())),
    env: v.optional(v.record(v.string(), v.string())),
    url: v.optional(
      v.pipe(
        v.string(),
        v.url('an MCP server url is an absolute http:// or https:// address'),
        v.regex(/^https?:\/\//i, 'an MCP server url is http:// or https://'),
      ),
    ),
    headers: v.optional(v.record(v.string(), v.string())),
    /** Believe the server's readOnlyHint annotations (its tools are otherwise never read-only). */
    trustReadOnlyHints: v.optional(v.boolean()),
  }),
  v.check(
    (s) => (s.command === undefined) !== (s.url === undefined),
    'an MCP server has exactly one of "command" (started over stdio) or "url" (Streamable HTTP)',
  ),
  v.check(
    (s) => s.url !== undefined || s.headers === undefined,
    '"headers" are for a server with a "url"; a "command" server takes "env"',
  ),
  v.check(
    (s) => s.command !== undefined || (s.args === undefined && s.env === undefined),
    '"args" and "env" are for a server with a "command"; a "url" server takes "headers"',
  ),
);

const HookEntry = v.strictObject({
  command: v.pipe(v.string(), v.minLength(1)),
  matcher: v.optional(v.string()),
  timeout: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1))),
});

/** One limit as the flags spell it (`4G`, `1024`, `60s`, `none`); pids may be a number too. */
const limit = (name: LimitName) =>
  v.pipe(
    name === 'pids' ? v.union([v.string(), v.number()]) : v.string(),
    v.rawCheck(({ dataset, addIssue }) => {
      if (!dataset.typed) return;
      const r = parseLimit(name, String(dataset.value));
      if (!r.ok) addIssue({ message: r.error });
    }),
  );

const Settings = v.strictObject({
  permissions: v.optional(
    v.strictObject({
      allow: v.optional(v.array(v.string())),
      ask: v.optional(v.array(v.string())),
      deny: v.optional(v.array(v.string())),
    }),
  ),
  mode: v.optional(v.picklist(MODES)),
  /** The agent's model (MEWCODE_MODEL and --model come first). */
  model: v.optional(v.pipe(v.string(), v.minLength(1))),
  /** When the agent defers MCP tools behind tool_search (false: never); the closest file's wins. */
  toolSearch: v.optional(
    v.union([
      v.literal(false),
      v.strictObject({
        share: v.optional(v.pipe(v.number(), v.minValue(0), v.maxValue(1))),
        maxTools: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0))),
      }),
    ]),
  ),
  /** Each bash command's budget (lib/core/limits.ts); a project's or local file may only tighten it. */
  limits: v.optional(
    v.strictObject({
      memory: v.optional(limit('memory')),
      pids: v.optional(limit('pids')),
      cpu: v.optional(limit('cpu')),
    }),
  ),
  hooks: v.optional(v.strictObject({ PreToolUse: v.optional(v.array(HookEntry)) })),
  mcpServers: v.optional(
    v.record(
      v.pipe(v.string(), v.regex(/^[A-Za-z0-9_-]+$/, 'an MCP server name is letters, digits, _ or -')),
      McpServer,
    ),
  ),
});

type Settings = v.InferOutput<typeof Settings>;
export type HookEntry = v.InferOutput<typeof HookEntry>;
/** An external MCP server from the settings: started over stdio or reached over HTTP by lib/mcp/client.ts. */
export type McpServerConfig = v.InferOutput<typeof McpServer>;

export interface SettingsFile {
  level: Level;
  /** Absolute path of the file. */
  file: string;
  /** The file relative to the root for project and local files (`.mewcode/settings.json`), else absolute. */
  shown: string;
  settings: Settings;
}

export function settingsFiles(root: string, home: string | undefined): [Level, string][] {
  const files: [Level, string][] = [
    ['local', path.join(root, '.mewcode', 'settings.local.json')],
    ['project', path.join(root, '.mewcode', 'settings.json')],
  ];
  if (home) files.push(['user', path.join(home, '.mewcode', 'settings.json')]);
  return files;
}

/** Reads every settings file that exists, closest first; any problem is an error naming the file. */
export function readSettingsFiles(root: string, home: string | undefined): Result<SettingsFile[], string> {
  const out: SettingsFile[] = [];
  for (const [level, file] of settingsFiles(root, home)) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') continue;
      return errValue(`Cannot read ${file}: ${(e as NodeJS.ErrnoException).code}`);
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (e) {
      return errValue(`${file} is not valid JSON: ${(e as Error).message}`);
    }
    const parsed = v.safeParse(Settings, json);
    if (!parsed.success) return errValue(`${file} is not a valid settings file:\n${v.summarize(parsed.issues)}`);
    const shown = level === 'user' ? file : path.relative(root, file);
    out.push({ level, file, shown, settings: parsed.output });
  }
  return okValue(out);
}
