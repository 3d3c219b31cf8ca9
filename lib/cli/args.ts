/**
 * Command-line parsing: one table of flags, `node:util` parseArgs in strict mode, then a check that
 * each flag belongs to the command it was given with. Every mistake becomes a `UsageError` (exit 2)
 * whose message says what was wrong and what is accepted. Main thread, no tool imports.
 */
import { parseArgs } from 'node:util';

export const COMMANDS = ['call', 'read', 'tools'] as const;
export type Command = (typeof COMMANDS)[number];

const FLAGS = {
  root: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean', short: 'V' },
  'allow-write': { type: 'boolean' },
  offset: { type: 'string' },
  limit: { type: 'string' },
  format: { type: 'string' },
} as const;
type Flag = keyof typeof FLAGS;

const GLOBAL_FLAGS: readonly Flag[] = ['root', 'json', 'help', 'version', 'allow-write'];
const COMMAND_FLAGS: Record<Command, readonly Flag[]> = {
  call: [],
  read: ['offset', 'limit'],
  tools: ['format'],
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
    parsed = parseArgs({ args: [...argv], options: FLAGS, allowPositionals: true, strict: true });
  } catch (e) {
    throw new UsageError(
      `${(e as Error).message.replace(/\. To specify a positional argument.*$/s, '')}. See mewcode --help.`,
    );
  }
  const [first, ...rest] = parsed.positionals;
  if (first !== undefined && !(COMMANDS as readonly string[]).includes(first)) {
    throw new UsageError(`Unknown command "${first}". Commands: ${COMMANDS.join(', ')}. See mewcode --help.`);
  }
  const command = first as Command | undefined;
  const allowed = new Set<Flag>([...GLOBAL_FLAGS, ...(command ? COMMAND_FLAGS[command] : [])]);
  for (const key of Object.keys(parsed.values) as Flag[]) {
    if (!allowed.has(key)) {
      throw new UsageError(
        `The flag --${key} does not apply to ${command ? `"${command}"` : 'this invocation'}. See mewcode --help.`,
      );
    }
  }
  return { command, positionals: rest, values: parsed.values as ParsedArgs['values'] };
}

/** A flag value that must be a positive integer. */
export function positiveInt(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^[1-9][0-9]*$/.test(value) || !Number.isSafeInteger(Number(value))) {
    throw new UsageError(`--${flag} must be a positive integer, not "${value}".`);
  }
  return Number(value);
}

export const HELP = `mewcode — the tools a coding agent uses, as a runtime and a CLI

Usage:
  mewcode call <tool> '<json>'              run any tool; '-' reads the JSON from stdin
  mewcode read <file> [--offset N] [--limit N]
  mewcode tools [--format anthropic|openai|openai-strict]

Options:
  --root DIR       the directory tools work in (default: the current directory)
  --json           print the whole result object as JSON
  --allow-write    let write tools change files inside the root
  -h, --help       show this help
  -V, --version    show the version

Exit status: 0 success, 1 the tool returned an error, 2 a usage error.
`;
