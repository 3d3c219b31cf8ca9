/**
 * `mewcode index [path]`: builds (or rebuilds) the n-gram index of a root (the path, else --root,
 * else the current directory) under the user's cache directory, with the root's read denials
 * applied, and says where it went. Main thread.
 */
import { createRuntime } from '../runtime/runtime.ts';
import { type ParsedArgs, UsageError } from './args.ts';
import { runtimeOptions } from './main.ts';

export async function runIndex(args: ParsedArgs): Promise<number> {
  const [root, ...extra] = args.positionals;
  if (extra.length || (root !== undefined && args.values.root !== undefined))
    throw new UsageError('index takes one directory: mewcode index [path] (or --root DIR).');
  if (args.values['no-index']) throw new UsageError('--no-index and the index command contradict each other.');
  const made = createRuntime({ ...runtimeOptions(args), index: 'existing', ...(root ? { root } : {}) });
  if (!made.ok) throw new UsageError(made.error);
  const runtime = made.value;
  try {
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
  } finally {
    await runtime.close();
  }
}
