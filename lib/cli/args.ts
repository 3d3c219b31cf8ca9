/**
 * Command-line parsing: one table of flags, `node:util` parseArgs in strict mode, then a check that
 * each flag belongs to the command it was given with. Every mistake becomes a `UsageError` (exit 2)
 * whose message says what was wrong and what is accepted. Main thread, no tool imports.
 */
import { parseArgs } from 'node:util';

export const COMMANDS = ['call', 'batch', 'read', 'grep', 'glob', 'tools', 'mcp', 'bench'] as const;
/** `agent` is what runs when the first word is not a command: the words are the task. */
export type Command = (typeof COMMANDS)[number] | 'agent';

const FLAGS = {
  root: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean', short: 'V' },
  'allow-read': { type: 'string' },
  'allow-write': { type: 'string' },
  'allow-run': { type: 'string' },
  'allow-net': { type: 'string' },
  'allow-env': { type: 'string' },
  'deny-read': { type: 'string' },
  'deny-write': { type: 'string' },
  'deny-run': { type: 'string' },
  'deny-net': { type: 'string' },
  'deny-env': { type: 'string' },
  'allow-all': { type: 'boolean', short: 'A' },
  mode: { type: 'string' },
  sandbox: { type: 'boolean' },
  trust: { type: 'boolean' },
  verbose: { type: 'boolean', short: 'v' },
  offset: { type: 'string' },
  limit: { type: 'string' },
  format: { type: 'string' },
  workers: { type: 'string' },
  'ignore-case': { type: 'boolean', short: 'i' },
  'fixed-strings': { type: 'boolean', short: 'F' },
  multiline: { type: 'boolean', short: 'U' },
  glob: { type: 'string' },
  'output-mode': { type: 'string' },
  'files-with-matches': { type: 'boolean', short: 'l' },
  count: { type: 'boolean', short: 'c' },
  context: { type: 'string', short: 'C' },
  before: { type: 'string', short: 'B' },
  after: { type: 'string', short: 'A' },
  'head-limit': { type: 'string' },
  'include-ignored': { type: 'boolean' },
  sort: { type: 'string' },
  provider: { type: 'string' },
  model: { type: 'string' },
  'base-url': { type: 'string' },
  'max-turns': { type: 'string' },
  quick: { type: 'boolean' },
  reps: { type: 'string' },
  files: { type: 'string' },
  out: { type: 'string' },
} as const;
type Flag = keyof typeof FLAGS;

/** The Deno-style permission flags; bare forms grant everything of their kind. */
export const PERMISSION_FLAGS = [
  'allow-read',
  'allow-write',
  'allow-run',
  'allow-net',
  'allow-env',
  'deny-read',
  'deny-write',
  'deny-run',
  'deny-net',
  'deny-env',
] as const;

const GLOBAL_FLAGS: readonly Flag[] = [
  'root',
  'json',
  'help',
  'version',
  'workers',
  'allow-all',
  'mode',
  'sandbox',
  'trust',
  'verbose',
  ...PERMISSION_FLAGS,
];
const COMMAND_FLAGS: Record<Command, readonly Flag[]> = {
  call: [],
  batch: [],
  read: ['offset', 'limit'],
  grep: [
    'ignore-case',
    'fixed-strings',
    'multiline',
    'glob',
    'output-mode',
    'files-with-matches',
    'count',
    'context',
    'before',
    'after',
    'head-limit',
    'include-ignored',
  ],
  glob: ['sort', 'limit', 'include-ignored'],
  tools: ['format'],
  bench: ['quick', 'reps', 'files', 'out'],
  mcp: [],
  agent: ['provider', 'model', 'base-url', 'max-turns'],
};

export class UsageError extends Error {}

export interface ParsedArgs {
  command: Command | undefined;
  positionals: string[];
  values: { [K in Flag]?: (typeof FLAGS)[K]['type'] extends 'string' ? string : boolean };
}

export function parseCli(argv: readonly string[]): ParsedArgs {
  let parsed: ReturnType<typeof parseArgs<{ options: typeof FLAGS; allowPositionals: true; strict: true }>>;
  try {
    // Deno-style: a bare --allow-write grants the whole root, --allow-write=a,b only those paths.
    const args = argv.map((a) =>
      (PERMISSION_FLAGS as readonly string[]).includes(a.slice(2)) && a.startsWith('--') ? `${a}=*` : a,
    );
    parsed = parseArgs({ args, options: FLAGS, allowPositionals: true, strict: true });
  } catch (e) {
    throw new UsageError(
      `${(e as Error).message.replace(/\. To specify a positional argument.*$/s, '')}. See mewcode --help.`,
    );
  }
  const [first, ...rest] = parsed.positionals;
  const agentFlags = (['provider', 'model', 'base-url', 'max-turns'] as const).some(
    (f) => parsed.values[f] !== undefined,
  );
  // Anything that is not a command is a task for the agent (as is piped stdin with no words at all).
  const isCommand = first !== undefined && (COMMANDS as readonly string[]).includes(first);
  const command: Command | undefined = isCommand
    ? (first as Command)
    : first !== undefined || agentFlags
      ? 'agent'
      : undefined;
  const positionals = command === 'agent' ? parsed.positionals : rest;
  const allowed = new Set<Flag>([...GLOBAL_FLAGS, ...(command ? COMMAND_FLAGS[command] : [])]);
  for (const key of Object.keys(parsed.values) as Flag[]) {
    if (!allowed.has(key)) {
      throw new UsageError(
        `The flag --${key} does not apply to ${command ? `"${command}"` : 'this invocation'}. See mewcode --help.`,
      );
    }
  }
  return { command, positionals, values: parsed.values as ParsedArgs['values'] };
}

/** A flag value that must be a positive integer (or, with `zero`, a non-negative one). */
export function positiveInt(flag: string, value: string | undefined, zero = false): number | undefined {
  if (value === undefined) return undefined;
  if (!(zero ? /^(0|[1-9][0-9]*)$/ : /^[1-9][0-9]*$/).test(value) || !Number.isSafeInteger(Number(value))) {
    throw new UsageError(`--${flag} must be a ${zero ? 'non-negative' : 'positive'} integer, not "${value}".`);
  }
  return Number(value);
}

export const HELP = `mewcode — the tools a coding agent uses, as a runtime and a CLI

Usage:
  mewcode [--provider anthropic|openai] [--model M] [--base-url URL] [--max-turns N] "<task>"
                                            run the agent on a task (or pipe the task on stdin);
                                            keys from ANTHROPIC_API_KEY / OPENAI_API_KEY
  mewcode call <tool> '<json>'              run any tool; '-' reads the JSON from stdin
  mewcode batch [file|-]                    a JSON array or JSONL of {"name","input"}: reads together,
                                            writes one by one, results as a JSON array in request order
  mewcode read <file> [--offset N] [--limit N]
  mewcode grep <pattern> [path] [-i] [-F] [-U] [--glob G] [-l | -c | --output-mode M]
               [-A N] [-B N] [-C N] [--head-limit N (0: all)] [--include-ignored]
  mewcode glob <pattern> [path] [--sort path|mtime] [--limit N (0: all)] [--include-ignored]
  mewcode tools [--format anthropic|openai|openai-strict]
  mewcode mcp                               serve the tools to an MCP client over stdio
  mewcode bench [path] [--quick] [--reps N] [--files N] [--out DIR]
               grep/glob throughput against rg, fd, grep, find and JS libraries

Options:
  --root DIR       the directory tools work in (default: the current directory)
  --workers N      read-lane worker threads (default: available cores; 0 runs inline)
  --json           print the whole result object as JSON
  --allow-read[=PATH,...]  --allow-write[=PATH,...]  --allow-run[=PROGRAM,...]
  --allow-net[=HOST,...]   --allow-env[=VAR,...]      grant without asking (bare: all of that kind)
  --deny-read=… --deny-write=… --deny-run=… --deny-net=… --deny-env=…   refuse (deny wins)
  -A, --allow-all  grant everything (the sandbox, the blacklist and denials still apply)
  --mode M         default | acceptEdits | plan | bypass
  --sandbox        run bash inside bubblewrap (fails when it cannot start; never falls back)
  --trust          trust this folder's .mewcode settings (hooks, allow rules, mode bypass/acceptEdits,
                   MCP servers), recorded in ~/.mewcode/trusted.json until they change; untrusted,
                   they are ignored (on a terminal you are asked once)
  -v, --verbose    print every permission decision on stderr
                   .git/ and .mewcode/settings*.json are written only when an --allow-write path names them
  -h, --help       show this help
  -V, --version    show the version

Exit status: 0 success, 1 the tool returned an error (or the agent stopped on a failure), 2 a usage
error, 130 interrupted.
grep and glob exit like ripgrep: 0 found, 1 nothing found, 2 an error.
`;
