/**
 * The CLI commands: argv → runtime → print. Results go to stdout; problems with the invocation go to
 * stderr with exit 2, and a tool's own error result to stderr with exit 1. Main thread.
 */
import { readFileSync } from 'node:fs';
import { IN_BUNDLE, version } from '../core/build_info.ts';
import { LIMIT_NAMES, parseLimit } from '../core/limits.ts';
import { isMode, MODES } from '../core/modes.ts';
import type { ToolResult } from '../core/tool.ts';
import { cliWorkers } from '../lanes/pool.ts';
import { PROVIDERS, type ProviderName } from '../llm/providers.ts';
import { type Flags, grantOf, KINDS } from '../policy/permissions.ts';
import {
  createRuntime,
  DEFINITION_FORMATS,
  type DefinitionFormat,
  type LimitsOption,
  type Runtime,
  type RuntimeOptions,
} from '../runtime/runtime.ts';
import { outputFormat, runAgentCli } from './agent.ts';
import { indexUseOf, type ParsedArgs, PERMISSION_FLAGS, positiveInt, UsageError } from './args.ts';
import { auditOf } from './audit_sinks.ts';
import { batch } from './batch.ts';
import { edit } from './edit.ts';
import { grepCommand } from './grep_command.ts';
import { printError, printRead } from './output.ts';
import { glob } from './search.ts';
import { watchStopSignals } from './signals.ts';
import { askTrust } from './trust_question.ts';
import { CALL_WORDING, CLI_MODEL_WORDING, CLI_WORDING } from './wording.ts';

export async function runCommand(args: ParsedArgs): Promise<number> {
  if (args.command === 'bench') return bench(args);
  // Serving MCP, stdin is the protocol: nothing may be asked on it.
  const options: RuntimeOptions = {
    ...runtimeOptions(args),
    ...(args.command === 'mcp' ? { prompt: 'none' as const } : {}),
    // A one-shot command ends with its process: a background job would die unread.
    ...(args.command === 'mcp' || args.command === 'agent' ? {} : { backgroundJobs: false }),
  };
  if (args.command !== 'mcp' && options.trust === undefined) {
    const digest = await askTrust(options);
    if (digest) options.trust = digest;
  }
  const audit = args.command === 'agent' || args.command === 'mcp' ? await auditOf(args) : undefined;
  if (audit) Object.assign(options, { audit: audit.sinks, auditInputs: args.values['audit-inputs'] === true });
  const made = createRuntime(options);
  if (!made.ok) {
    await audit?.close();
    throw new UsageError(made.error);
  }
  const runtime = made.value;
  // SIGINT, SIGTERM, SIGHUP stop every running command; then the exit code is 128 + the signal's number.
  const stop = watchStopSignals();
  const { signal } = stop;
  const exit = (code: number) => stop.exitCode() ?? code;
  try {
    switch (args.command) {
      case 'call':
        return exit(await call(runtime, args, signal));
      case 'read':
        return exit(await read(runtime, args, signal));
      case 'batch':
        return exit(await batch(runtime, args, signal));
      case 'edit':
        return exit(print(await edit(runtime, args, signal), args));
      case 'agent':
        return exit(await agent(runtime, args, signal));
      case 'mcp': {
        if (args.positionals.length)
          throw new UsageError(`mcp takes no arguments; unexpected "${args.positionals[0]}".`);
        const { checkStdioFlags, serveHttpCli } = await import('./mcp_http.ts');
        // Over HTTP the server drains on a signal itself: running calls may finish within a grace.
        if (args.values.http) {
          stop.dispose();
          return await serveHttpCli(runtime, args);
        }
        checkStdioFlags(args);
        const { serveMcp } = await import('../mcp/server.ts');
        // The server waits on stdin: a signal ends it, once its running commands are gone.
        const code = await Promise.race([serveMcp(runtime, version()).then(() => 0), stop.stopped]);
        if (stop.exitCode() !== undefined) {
          await runtime.close();
          await audit?.close();
          process.exit(code);
        }
        return code;
      }
      case 'tools':
        return tools(runtime, args);
      case 'grep':
        return exit(await grepCommand(runtime, args, signal));
      case 'glob':
        return exit(await glob(runtime, args, signal));
      default:
        throw new UsageError('No command given. See mewcode --help.');
    }
  } finally {
    await runtime.close();
    await audit?.close();
    stop.dispose();
  }
}

async function call(runtime: Runtime, args: ParsedArgs, signal: AbortSignal): Promise<number> {
  const [name, json, ...extra] = args.positionals;
  if (name === undefined)
    throw new UsageError(`call needs a tool name. Tools: ${runtime.registry.names().join(', ')}.`);
  if (extra.length)
    throw new UsageError(`call takes a tool name and one JSON argument; unexpected "${extra[0]}". Quote the JSON.`);
  let input: unknown;
  if (json !== undefined) {
    const text = json === '-' ? readFileSync(0, 'utf8') : json;
    try {
      input = JSON.parse(text);
    } catch (e) {
      throw new UsageError(`The arguments for ${name} are not valid JSON: ${(e as Error).message}.`);
    }
  }
  return print(await runtime.call(name, input, { signal, wording: CALL_WORDING }), args);
}

async function read(runtime: Runtime, args: ParsedArgs, signal: AbortSignal): Promise<number> {
  const [file, ...extra] = args.positionals;
  if (file === undefined) throw new UsageError('read needs a file path.');
  if (extra.length) throw new UsageError(`read takes one file; unexpected "${extra[0]}".`);
  const input: Record<string, unknown> = { file_path: file };
  const offset = positiveInt('offset', args.values.offset);
  const limit = positiveInt('limit', args.values.limit);
  if (offset !== undefined) input.offset = offset;
  if (limit !== undefined) input.limit = limit;
  if (args.values.json) return print(await runtime.call('read_file', input, { signal }), args);
  const result = await runtime.call('read_file', input, { signal, form: 'data', wording: CLI_WORDING });
  if (result.isError || result.data?.tool !== 'read_file') printError(result);
  else printRead(result.data);
  return result.isError ? 1 : 0;
}

/** The runtime the flags describe: root, workers, permissions, mode, sandbox, trust, prompt, verbosity. */
export function runtimeOptions(args: ParsedArgs): RuntimeOptions {
  const f = args.values;
  const permissions: Flags = { allow: {}, deny: {} };
  for (const flag of PERMISSION_FLAGS) {
    const grant = grantOf(f[flag]);
    if (grant === undefined) continue;
    const [side, kind] = flag.split('-') as ['allow' | 'deny', (typeof KINDS)[number]];
    permissions[side][kind] = grant;
  }
  if (f['allow-all']) for (const k of KINDS) permissions.allow[k] ??= true;
  if (f.mode !== undefined && !isMode(f.mode))
    throw new UsageError(`--mode must be one of ${MODES.join(', ')}, not "${f.mode}".`);
  return {
    ...(f.root !== undefined ? { root: f.root } : {}),
    workers: workersOf(args),
    permissions,
    index: indexUseOf(args),
    ...(f.mode !== undefined ? { mode: f.mode as RuntimeOptions['mode'] & string } : {}),
    ...(f.sandbox ? { sandbox: true } : {}),
    ...limitFlags(args),
    ...(f.trust ? { trust: true as const } : {}),
    prompt: 'terminal',
    wording: CLI_MODEL_WORDING,
    ...(f.verbose ? { log: (line: string) => process.stderr.write(`${line}\n`) } : {}),
  };
}

/** --limit-memory, --limit-pids, --limit-cpu, checked strictly here so a bad value is a usage error. */
function limitFlags(args: ParsedArgs): { limits?: LimitsOption } {
  const limits: LimitsOption = {};
  for (const name of LIMIT_NAMES) {
    const text = args.values[`limit-${name}`];
    if (text === undefined) continue;
    const r = parseLimit(name, text);
    if (!r.ok) throw new UsageError(`--limit-${name}: ${r.error}.`);
    limits[name] = r.value;
  }
  return Object.keys(limits).length ? { limits } : {};
}

/** --workers N, or rg's -j N (0: the default, as rg's automatic choice). */
function workersOf(args: ParsedArgs): number | undefined {
  const f = args.values;
  if (f.workers !== undefined) return positiveInt('workers', f.workers, true) as number;
  const threads = positiveInt('threads', f.threads, true);
  return threads || cliWorkers(args.command);
}

async function agent(runtime: Runtime, args: ParsedArgs, signal: AbortSignal): Promise<number> {
  const f = args.values;
  const task = args.positionals.join(' ').trim();
  if (!task)
    throw new UsageError('Give the agent a task: mewcode "fix the failing test in src/a.ts" (or pipe it on stdin).');
  const provider = f.provider ?? 'anthropic';
  if (!(PROVIDERS as readonly string[]).includes(provider))
    throw new UsageError(`--provider must be one of ${PROVIDERS.join(', ')}, not "${provider}".`);
  const maxTurns = positiveInt('max-turns', f['max-turns']);
  // External MCP servers from the settings join the tools for this run.
  const connections = [];
  for (const [name, server] of Object.entries(runtime.mcpServers)) {
    try {
      const { connectMcpServer } = await import('../mcp/client.ts');
      const c = await connectMcpServer(runtime, name, server);
      connections.push(c);
      if (f.verbose) for (const w of c.warnings) process.stderr.write(`mcp: ${w}\n`);
    } catch (e) {
      process.stderr.write(`mewcode: the MCP server "${name}" did not start: ${(e as Error).message}\n`);
    }
  }
  try {
    return await runAgentCli(runtime, {
      task,
      provider: provider as ProviderName,
      ...(f.model ? { model: f.model } : {}),
      ...(f['base-url'] !== undefined ? { baseURL: f['base-url'] } : {}),
      ...(maxTurns ? { maxTurns } : {}),
      format: outputFormat(f['output-format'], f.json),
      signal,
    });
  } finally {
    for (const c of connections) await c.close();
  }
}

/** The benchmark lives in bench/ (not shipped in the library); it is loaded only for this command. */
async function bench(args: ParsedArgs): Promise<number> {
  const f = args.values;
  const argv = [...args.positionals];
  if (args.positionals.length > 1) throw new UsageError(`bench takes one path; unexpected "${args.positionals[1]}".`);
  if (f.quick) argv.push('--quick');
  for (const k of ['reps', 'files'] as const) {
    const n = positiveInt(k, f[k]);
    if (n !== undefined) argv.push(`--${k}`, String(n));
  }
  if (f.out !== undefined) argv.push('--out', f.out);
  if (f.workers !== undefined) argv.push('--workers', String(positiveInt('workers', f.workers)));
  if (IN_BUNDLE)
    throw new UsageError('The benchmark runs from a source checkout: npm run bench (the bundle does not carry it).');
  // A computed specifier, so the bundler leaves the benchmark (and its contenders' libraries) out.
  const bench = '../../bench/search.bench.ts';
  const { runBench } = (await import(bench)) as typeof import('../../bench/search.bench.ts');
  return runBench(argv);
}

function tools(runtime: Runtime, args: ParsedArgs): number {
  if (args.positionals.length) throw new UsageError(`tools takes no arguments; unexpected "${args.positionals[0]}".`);
  const format = args.values.format;
  if (format !== undefined && !(DEFINITION_FORMATS as readonly string[]).includes(format)) {
    throw new UsageError(`--format must be one of ${DEFINITION_FORMATS.join(', ')}, not "${format}".`);
  }
  if (format !== undefined || args.values.json) {
    process.stdout.write(
      `${JSON.stringify(runtime.definitions((format ?? 'anthropic') as DefinitionFormat), null, 2)}\n`,
    );
    return 0;
  }
  const defs = runtime.registry.definitions();
  const width = Math.max(...defs.map((d) => d.name.length));
  for (const d of defs) {
    const summary = d.description.split(/(?<=\.)\s/)[0] ?? '';
    process.stdout.write(`${d.name.padEnd(width)}  ${d.readOnly ? 'read ' : 'write'}  ${summary}\n`);
  }
  return 0;
}

/**
 * A tool's answer: its text on stdout, or on stderr when it is an error (as every command's errors
 * are), so a pipe never takes a refusal for a result; `--json` asked for the whole result object as
 * the output, error or not, so that goes to stdout.
 */
function print(result: ToolResult, args: ParsedArgs): number {
  const text = args.values.json ? JSON.stringify(result, null, 2) : result.content;
  const line = text.endsWith('\n') ? text : `${text}\n`;
  if (result.isError && !args.values.json) process.stderr.write(line);
  else process.stdout.write(line);
  return result.isError ? 1 : 0;
}
