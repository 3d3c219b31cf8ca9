/**
 * The CLI commands: argv → runtime → print. Results go to stdout, problems with the invocation to
 * stderr with exit 2; a tool's own error result prints like any result and exits 1. Main thread.
 */
import { readFileSync } from 'node:fs';
import type { ToolResult } from '../core/tool.ts';
import { createRuntime, DEFINITION_FORMATS, type DefinitionFormat, type Runtime } from '../runtime.ts';
import { type ParsedArgs, positiveInt, UsageError } from './args.ts';

export async function runCommand(args: ParsedArgs): Promise<number> {
  const made = createRuntime({ root: args.values.root, allowWrite: args.values['allow-write'] ?? false });
  if (!made.ok) throw new UsageError(made.error);
  const runtime = made.value;
  try {
    switch (args.command) {
      case 'call':
        return await call(runtime, args);
      case 'read':
        return await read(runtime, args);
      case 'tools':
        return tools(runtime, args);
      default:
        throw new UsageError('No command given. See mewcode --help.');
    }
  } finally {
    await runtime.close();
  }
}

async function call(runtime: Runtime, args: ParsedArgs): Promise<number> {
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
  return print(await runtime.call(name, input), args);
}

async function read(runtime: Runtime, args: ParsedArgs): Promise<number> {
  const [file, ...extra] = args.positionals;
  if (file === undefined) throw new UsageError('read needs a file path.');
  if (extra.length) throw new UsageError(`read takes one file; unexpected "${extra[0]}".`);
  const input: Record<string, unknown> = { file_path: file };
  const offset = positiveInt('offset', args.values.offset);
  const limit = positiveInt('limit', args.values.limit);
  if (offset !== undefined) input.offset = offset;
  if (limit !== undefined) input.limit = limit;
  return print(await runtime.call('read_file', input), args);
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

function print(result: ToolResult, args: ParsedArgs): number {
  const text = args.values.json ? JSON.stringify(result, null, 2) : result.content;
  process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
  return result.isError ? 1 : 0;
}
