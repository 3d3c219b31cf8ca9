/**
 * `mewcode index [path]` builds (or rebuilds) the n-gram index of a root, and which index mode each
 * command's runtime uses: the agent and the MCP server are warm (they build and watch); one-shot
 * calls use an index only when one exists; `--no-index` turns it off. Main thread.
 */
import type { Runtime, RuntimeOptions } from '../runtime.ts';
import { type ParsedArgs, UsageError } from './args.ts';

/** The index mode of a command's runtime, and for `index`, its root. */
export function indexOptions(args: ParsedArgs): Pick<RuntimeOptions, 'index' | 'root'> {
  const root = args.command === 'index' ? args.positionals[0] : undefined;
  if (args.command === 'index' && (args.positionals.length > 1 || (root && args.values.root !== undefined)))
    throw new UsageError('index takes one directory: mewcode index [path] (or --root DIR).');
  if (args.values['no-index']) {
    if (args.command === 'index') throw new UsageError('--no-index and the index command contradict each other.');
    return { index: 'off' };
  }
  const warm = args.command === 'agent' || args.command === 'mcp';
  return { index: warm ? 'build' : 'existing', ...(root ? { root } : {}) };
}

export async function indexCommand(runtime: Runtime): Promise<number> {
  const index = runtime.searchIndex;
  if (!index) throw new UsageError('The index is turned off.');
  const started = performance.now();
  const built = await index.build();
  if (!built.ok) {
    process.stderr.write(`Could not index ${runtime.root}: ${built.message}\n`);
    return 1;
  }
  const { rels, bytes, size } = built.index;
  const ms = Math.round(performance.now() - started);
  const mb = (n: number) => (n / 1e6).toFixed(1);
  process.stdout.write(
    `indexed ${rels.length} files (${mb(bytes)} MB of text) of ${runtime.root} in ${ms} ms: ${index.file} (${mb(size)} MB)\n`,
  );
  return 0;
}
