/** `mewcode batch`: a JSON array (or JSON lines) of {name, input}; answers a JSON array of results in order. */
import { readFileSync } from 'node:fs';
import type { BatchCall, Runtime } from '../runtime/runtime.ts';
import { type ParsedArgs, UsageError } from './args.ts';

export async function batch(runtime: Runtime, args: ParsedArgs, signal: AbortSignal): Promise<number> {
  const [source = '-', ...extra] = args.positionals;
  if (extra.length) throw new UsageError(`batch takes one file (or - for stdin); unexpected "${extra[0]}".`);
  let text: string;
  try {
    text = readFileSync(source === '-' ? 0 : source, 'utf8');
  } catch (e) {
    throw new UsageError(
      `Cannot read the batch from ${source === '-' ? 'stdin' : `"${source}"`}: ${(e as NodeJS.ErrnoException).code ?? e}.`,
    );
  }
  const calls = parseBatch(text);
  const results = await runtime.batch(calls, { signal });
  const out = results.map((result, i) => ({ name: calls[i]?.name, ...result }));
  process.stdout.write(`${JSON.stringify(out, null, args.values.json ? 2 : undefined)}\n`);
  return results.some((r) => r.isError) ? 1 : 0;
}

function parseBatch(text: string): BatchCall[] {
  const trimmed = text.trim();
  let items: unknown[];
  try {
    items = trimmed.startsWith('[')
      ? (JSON.parse(trimmed) as unknown[])
      : trimmed
          .split('\n')
          .filter((l) => l.trim() !== '')
          .map((l) => JSON.parse(l) as unknown);
  } catch (e) {
    throw new UsageError(`The batch is not a JSON array or JSON lines: ${(e as Error).message}.`);
  }
  return items.map((item, i) => {
    const o = item as { name?: unknown; input?: unknown };
    if (typeof o !== 'object' || o === null || typeof o.name !== 'string') {
      throw new UsageError(`Batch item ${i + 1} must be an object {"name": "<tool>", "input": {...}}.`);
    }
    return { name: o.name, input: o.input };
  });
}
