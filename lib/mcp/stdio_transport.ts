/**
 * The MCP SDK's stdio server transport with its replies written one after another. The SDK's `send`
 * waits for 'drain' with a listener per pending reply, so 40 concurrent calls on a slow pipe add 40
 * listeners and Node prints MaxListenersExceededWarning; queued, at most one reply waits for drain.
 * Main thread.
 */
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

export class QueuedStdioServerTransport extends StdioServerTransport {
  #last: Promise<void> = Promise.resolve();

  override send(message: JSONRPCMessage): Promise<void> {
    const next = this.#last.then(() => super.send(message));
    this.#last = next.catch(() => {});
    return next;
  }
}
