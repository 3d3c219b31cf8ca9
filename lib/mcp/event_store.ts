/**
 * The events one HTTP session's streams carried, kept in memory so a client that lost a stream can
 * reconnect with `Last-Event-ID` and get what it missed (a result that completed while it was away).
 * Bounded: past `limit` events the oldest are forgotten, and a resume from a forgotten id finds
 * nothing to replay. Event ids are `<stream>_<sequence>`. Main thread.
 */
import type { EventStore } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

interface Stored {
  streamId: string;
  seq: number;
  message: JSONRPCMessage;
}

export class SessionEventStore implements EventStore {
  readonly #events = new Map<string, Stored>();
  #seq = 0;
  readonly limit: number;
  constructor(limit = 1000) {
    this.limit = limit;
  }

  async storeEvent(streamId: string, message: JSONRPCMessage): Promise<string> {
    const seq = ++this.#seq;
    const id = `${streamId}_${seq}`;
    this.#events.set(id, { streamId, seq, message });
    // A Map iterates in insertion order: the first key is the oldest event.
    while (this.#events.size > this.limit) {
      const oldest = this.#events.keys().next().value;
      if (oldest === undefined) break;
      this.#events.delete(oldest);
    }
    return id;
  }

  async getStreamIdForEventId(eventId: string): Promise<string | undefined> {
    return this.#events.get(eventId)?.streamId;
  }

  async replayEventsAfter(
    lastEventId: string,
    { send }: { send: (eventId: string, message: JSONRPCMessage) => Promise<void> },
  ): Promise<string> {
    const last = this.#events.get(lastEventId);
    if (!last) return '';
    for (const [id, e] of this.#events) {
      // A priming event (an empty message) only hands the client an id; there is nothing to replay.
      if (e.streamId !== last.streamId || e.seq <= last.seq || Object.keys(e.message).length === 0) continue;
      await send(id, e.message);
    }
    return last.streamId;
  }

  /** Events kept, for the health report. */
  get size(): number {
    return this.#events.size;
  }
}
