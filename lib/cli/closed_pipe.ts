/**
 * A reader that closes its end of the pipe (`mewcode grep x | head -1`) has all it wants: the write
 * that finds the pipe closed (EPIPE) ends the command quietly, exit 0, as rg and fd do, instead of an
 * unhandled 'error' event. Any command still running is killed first, so none outlives the CLI.
 * Main thread.
 */
import { killAllNow } from '../exec/live.ts';

let watching = false;

export function endQuietlyOnClosedPipe(): void {
  if (watching) return;
  watching = true;
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (e: NodeJS.ErrnoException) => {
      if (e.code !== 'EPIPE') throw e;
      killAllNow();
      process.exit(0);
    });
  }
}
