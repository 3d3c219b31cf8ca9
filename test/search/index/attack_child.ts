/**
 * A warm runtime in a process of its own, for an attack that may kill the process: argv root and
 * index cache directory; it searches until its background build is over (done or failed), waits for
 * the event loop to settle, searches again and prints that answer. Exit 0 only if it got that far.
 */
import { createRuntime } from '../../../lib/runtime/runtime.ts';

const [root, cache] = process.argv.slice(2);
const made = createRuntime({ root: root as string, home: null, workers: 1, indexCacheDir: cache as string });
if (!made.ok) throw new Error(made.error);
const rt = made.value;
// The first search starts the build; the next ones say 'building' until it is over.
let r = await rt.call('grep', { pattern: 'w2001' });
r = await rt.call('grep', { pattern: 'w2001' });
process.stdout.write(`second search: ${String(r.meta?.index)}\n`);
while (String(r.meta?.index).startsWith('building')) r = await rt.call('grep', { pattern: 'w2001' });
// A rejection nobody handles ends the process once the loop turns: give it two turns.
await new Promise((ok) => setImmediate(ok));
await new Promise((ok) => setImmediate(ok));
r = await rt.call('grep', { pattern: 'w2002' });
process.stdout.write(`${r.content}\n`);
const again = await rt.searchIndex?.build();
process.stdout.write(`build asked again: ${again?.ok ? 'built' : again?.message}\n`);
await rt.close();
