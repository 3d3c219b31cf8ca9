/** Waiting for an event instead of sleeping a guessed time, so tests do not race the machine's speed. */
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Waits until `ready()` holds, looking again every `everyMs`. Tests wait for what they need (a
 * process gone, a file there) instead of sleeping a guessed time; `limitMs` is only a safety net so a
 * broken build fails instead of hanging, never something a passing run comes near.
 */
export async function waitFor(
  ready: () => boolean | Promise<boolean>,
  what: string,
  { limitMs = 60_000, everyMs = 25 } = {},
): Promise<void> {
  const start = Date.now();
  while (!(await ready())) {
    if (Date.now() - start > limitMs) throw new Error(`gave up after ${limitMs / 1000} s waiting for ${what}`);
    await sleep(everyMs);
  }
}
