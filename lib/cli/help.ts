/**
 * Help text, built from the flag table (flags.ts) so that it lists exactly the flags the parser takes:
 * `mewcode --help` for the whole program, `mewcode help <command>` / `mewcode <command> --help` for one.
 */
import { KINDS, PERMISSION_KINDS } from '../core/permission_kinds.ts';
import { type Command, FLAGS, type Flag, type FlagSpec, GLOBAL_SHORTS, PERMISSION_FLAGS, shortsOf } from './flags.ts';

const USAGE: Record<Command, { usage: string; about: string; notes?: string }> = {
  agent: {
    usage: 'mewcode run <task…> | mewcode -p <task> | mewcode "<task with spaces>" | <task> | mewcode',
    about: 'run the agent on a task; keys from ANTHROPIC_API_KEY / OPENAI_API_KEY',
    notes: [
      'A single word that is not a command is a usage error, never a task: say run, or quote the task.',
      '--base-url (or ANTHROPIC_BASE_URL / OPENAI_BASE_URL): a proxy or an OpenAI-compatible server.',
      'Model: --model, MEWCODE_MODEL, settings "model", else claude-sonnet-5-5 / gpt-5.4.',
      'Failures (429, 5xx, 529, dropped connections, a stream silent for MEWCODE_STREAM_IDLE_MS, default',
      '120000) are retried 4 times with jittered backoff from MEWCODE_RETRY_BASE_MS (default 1000; 429/529',
      'wait 5x longer), shown on stderr. Context budget MEWCODE_CONTEXT_TOKENS (default: the model’s',
      'window): old tool results are cleared, applied large arguments summarized, then the model compacts',
      'the conversation and recent files are re-read. Calls cut by the output limit are never run; a cut',
      'or empty final answer exits 1.',
    ].join('\n'),
  },
  call: { usage: "mewcode call <tool> '<json>'", about: "run any tool; '-' reads the JSON from stdin" },
  batch: {
    usage: 'mewcode batch [file|-]',
    about:
      'a JSON array or JSONL of {"name","input"}: reads together, writes one by one, results as a JSON array in request order',
  },
  read: { usage: 'mewcode read <file>', about: 'print a file with line numbers' },
  edit: {
    usage: 'mewcode edit <file> --old TEXT --new TEXT [--old TEXT --new TEXT …] [--replace-all]',
    about: 'read then edit a file in one go, with edit_file’s checks (each --old must match exactly once)',
  },
  grep: {
    usage: 'mewcode grep [flags] <pattern> [path] | mewcode grep [flags] -e PAT [-e PAT…] [path]',
    about: 'search file contents like ripgrep, with its flags and its output',
    notes:
      'As rg: piped, path:text (-n adds line numbers); on a terminal, a heading per file and numbered lines;\n' +
      'one file searched, no path. Results go to stdout, notes and "no matches" to stderr.\n' +
      'Exit 0 found, 1 nothing found, 2 an error or no file searched. rg flags MewCode cannot honour are\n' +
      'refused saying why (docs/cli.md). Colour on a terminal as ripgrep does; --color never or NO_COLOR turn it off.',
  },
  glob: {
    usage: 'mewcode glob [flags] <pattern> [dir] | mewcode glob -e EXT [dir]',
    about: 'list files whose path matches a glob (** any depth), sorted by path',
    notes: 'Exit 0 found, 1 nothing found (like fd piped to grep), 2 an error.',
  },
  tools: { usage: 'mewcode tools', about: 'list the tools, or print their definitions for a provider' },
  mcp: {
    usage: 'mewcode mcp [--http [--listen HOST:PORT] [--token-file PATH]]',
    about: 'serve the tools to an MCP client over stdio, or over Streamable HTTP at /mcp',
  },
  index: {
    usage: 'mewcode index [path]',
    about: 'build or refresh the search index of a root (under the user cache directory)',
  },
  history: {
    usage: 'mewcode history [--json]',
    about: 'the journal of the write tools’ changes: id, time, tool, files (docs/undo.md)',
  },
  undo: {
    usage: 'mewcode undo [--to ID] [--force]',
    about: 'take back the last change in effect, or every change after entry ID',
    notes:
      'A file changed since the agent wrote it is left as it is and listed on stderr with a diff, unless\n' +
      '--force. Exit 0 done, 1 a file left as it was (a conflict) or not restored, 2 nothing to undo.',
  },
  redo: {
    usage: 'mewcode redo [--force]',
    about: 'take back the last undo (while no change came after it)',
    notes: 'Exit 0 done, 1 a conflict, 2 nothing to redo.',
  },
  stats: {
    usage: 'mewcode stats [LOG] [--json]',
    about: 'what the audit trail says: per tool success, parse failures, denials, latency; unknown and repeated calls',
    notes: 'LOG (default: the agent’s and MCP server’s audit log) is read with its rotated files (LOG.1 …).',
  },
  bench: { usage: 'mewcode bench [path]', about: 'grep/glob throughput against rg, fd, grep, find and JS libraries' },
};

function flagLine(flag: Flag, letter: string | undefined): string {
  const spec = FLAGS[flag] as FlagSpec;
  const name = `${letter ? `-${letter}, ` : '    '}--${flag}${spec.arg ? ` ${spec.arg}` : ''}`;
  return `  ${name.padEnd(30)} ${spec.help}`;
}

function letterOf(command: Command, flag: Flag): string | undefined {
  return Object.entries(shortsOf(command)).find(([, f]) => f === flag)?.[0];
}

/** One command's help: usage, its own flags, then the global ones it takes. */
export function commandHelp(command: Command): string {
  const u = USAGE[command];
  const own = (Object.keys(FLAGS) as Flag[]).filter((f) => (FLAGS[f] as FlagSpec).commands?.includes(command));
  const lines = [`${u.usage}`, `  ${u.about}`, ''];
  if (own.length) lines.push('Flags:', ...own.map((f) => flagLine(f, letterOf(command, f))), '');
  const redefined = Object.keys(GLOBAL_SHORTS).filter((l) => shortsOf(command)[l] !== GLOBAL_SHORTS[l]);
  lines.push('Global flags:', ...globalFlags().map((f) => flagLine(f, letterOf(command, f))));
  if (redefined.length)
    lines.push(
      `  (here ${redefined.map((l) => `-${l}`).join(' ')} mean the flags above; the global ones are spelled out)`,
    );
  if (u.notes) lines.push('', u.notes);
  return `${lines.join('\n')}\n`;
}

const globalFlags = () =>
  (Object.keys(FLAGS) as Flag[]).filter(
    (f) => (FLAGS[f] as FlagSpec).commands === undefined && !(PERMISSION_FLAGS as readonly string[]).includes(f),
  );

export const HELP = `mewcode — the tools a coding agent uses, as a runtime and a CLI

Usage:
${(Object.keys(USAGE) as Command[]).map((c) => `  ${USAGE[c].usage}\n      ${USAGE[c].about}`).join('\n')}
  mewcode help [command]
      this help, or one command's flags

Global flags:
${globalFlags()
  .map((f) => flagLine(f, letterOf('agent', f)))
  .join('\n')}
${permissionHelp()}
  .git/ and .mewcode/settings*.json are written only when an --allow-write path names them.

Exit status: 0 success, 1 the tool returned an error (or the agent stopped on a failure), 2 a usage
error, 130 interrupted (143 SIGTERM, 129 SIGHUP; running commands are killed with their process groups).
grep and glob exit like ripgrep: 0 found, 1 nothing found, 2 an error.
`;

/** The permission flags' lines, from the kinds' table (lib/core/permission_kinds.ts). */
function permissionHelp(): string {
  const allow = KINDS.map((k) => `--allow-${k}[=${PERMISSION_KINDS[k].subject},…]`);
  const deny = KINDS.map((k) => `--deny-${k}=…`);
  return [
    `  ${allow.slice(0, 4).join(' ')}`,
    `  ${allow.slice(4).join(' ').padEnd(26)} grant without asking (bare: all of that kind)`,
    `  ${deny.join(' ')}   refuse (deny wins)`,
  ].join('\n');
}
