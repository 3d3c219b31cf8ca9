/**
 * The folder-trust question, asked once per root (and again when what its settings widen changes)
 * when stdin and stderr are a terminal: it lists exactly what the project and local settings would
 * widen and, on "y", answers the digest of what was shown, so the runtime trusts (and records) only
 * that — a file changed after the question is not trusted by it. Anything else, or EOF, trusts
 * nothing, and the runtime then ignores those settings with its one line. Main thread.
 */
import { homedir } from 'node:os';
import { createInterface } from 'node:readline';
import { escapeControl } from '../core/text.ts';
import type { RuntimeOptions } from '../runtime/runtime.ts';
import { inspectTrust } from '../settings/trust.ts';
import { trustStorePath } from '../settings/trust_store.ts';

const MAX_ITEMS = 40;
const MAX_ITEM_CHARS = 300;

/** The digest to trust, or undefined (no terminal, nothing to trust, already trusted, or the user said no). */
export async function askTrust(
  options: Pick<RuntimeOptions, 'root' | 'home'>,
  input: NodeJS.ReadStream = process.stdin,
  output: NodeJS.WriteStream = process.stderr,
): Promise<string | undefined> {
  if (!input.isTTY || !output.isTTY) return undefined;
  const home = options.home === null ? undefined : (options.home ?? homedir());
  // A root or settings file that cannot be read is reported by createRuntime, with the same words.
  const view = inspectTrust(options.root ?? process.cwd(), home);
  if (!view.ok || view.value.state === 'none' || view.value.state === 'trusted') return undefined;
  const { root, items, state, digest } = view.value;
  const shown = items
    .slice(0, MAX_ITEMS)
    .map((i) => `  ${i.length > MAX_ITEM_CHARS ? `${i.slice(0, MAX_ITEM_CHARS)}…` : i}`);
  const changed = state === 'changed' ? ' changed since you trusted them; they' : '';
  if (items.length > MAX_ITEMS) shown.push(`  …and ${items.length - MAX_ITEMS} more (read the files)`);
  output.write(
    [
      `\nmewcode: the settings in ${escapeControl(root)}/.mewcode${changed} would widen what MewCode may do:`,
      ...shown,
      'Hooks and MCP servers are commands that run on this machine, outside any --sandbox. Trust only a folder whose settings you have read.',
      `Trust them${home ? ` (recorded in ${escapeControl(trustStorePath(home))} until they change)` : ' for this run'}? [y/N] › `,
    ].join('\n'),
  );
  const answer = await new Promise<string>((resolve) => {
    const rl = createInterface({ input, terminal: false });
    let answered = false;
    rl.once('line', (line) => {
      answered = true;
      rl.close();
      resolve(line.trim().toLowerCase());
    });
    rl.once('close', () => {
      if (!answered) resolve(''); // EOF trusts nothing
    });
  });
  return answer === 'y' || answer === 'yes' ? digest : undefined;
}
