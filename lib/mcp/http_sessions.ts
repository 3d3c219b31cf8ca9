/**
 * The HTTP server's MCP sessions: each its own protocol server and Streamable HTTP transport (the
 * SDK's, with a bounded event store for `Last-Event-ID` resumes) over the one shared runtime, whose
 * write lane serialises their writes and whose index serves them all. A session's calls stop on
 * notifications/cancelled, on DELETE, when the session expires idle, and when the stream a call's
 * answer was to come on closes early and its client does not resume within the grace. Main thread.
 */
import { randomUUID } from 'node:crypto';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Runtime } from '../runtime/runtime.ts';
import { SessionEventStore } from './event_store.ts';
import { abortAll, announceJobs, type InflightCalls, mcpServerFor } from './server.ts';

export interface SessionLimits {
  /** Most sessions at once; more are answered 503. */
  maxSessions: number;
  /** A session with no request open and no call running for this long is closed. */
  idleMs: number;
  /** A call whose stream closed before its answer is aborted unless the client resumes within this. */
  resumeGraceMs: number;
  /** Largest request body, in bytes. */
  maxBodyBytes: number;
}

export const DEFAULT_LIMITS: SessionLimits = {
  maxSessions: 256,
  idleMs: 30 * 60_000,
  resumeGraceMs: 10_000,
  maxBodyBytes: 4 * 1024 * 1024,
};

export class Session {
  readonly transport: StreamableHTTPServerTransport;
  readonly server: Server;
  readonly inflight: InflightCalls = new Map();
  readonly events = new SessionEventStore();
  /** Calls whose stream closed early: the timer that aborts each unless the client comes back. */
  readonly #orphans = new Map<string, NodeJS.Timeout>();
  #forgetJobs: () => void = () => {};
  id = '';
  lastSeen = Date.now();
  /** HTTP requests of this session still open (an SSE stream counts until it ends). */
  open = 0;

  constructor(runtime: Runtime, version: string, onReady: (s: Session) => void, onEnd: (s: Session) => void) {
    this.server = mcpServerFor(runtime, version, this.inflight);
    this.transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      eventStore: this.events,
      onsessioninitialized: (id) => {
        this.id = id;
        onReady(this);
      },
    });
    this.transport.onclose = () => {
      onEnd(this);
      void this.end('the MCP session ended');
    };
    this.#forgetJobs = announceJobs(runtime, this.server);
  }

  async connect(): Promise<void> {
    await this.server.connect(this.transport);
  }

  /** The stream that was to carry the answers to `ids` closed early: abort them after the grace. */
  orphaned(ids: readonly string[], graceMs: number): void {
    for (const id of ids) {
      if (!this.inflight.has(id) || this.#orphans.has(id)) continue;
      const timer = setTimeout(() => {
        this.#orphans.delete(id);
        this.inflight.get(id)?.controller.abort(new Error('the MCP client went away mid-call'));
      }, graceMs);
      timer.unref();
      this.#orphans.set(id, timer);
    }
  }

  /** The client came back (a resume): its lost calls live on, carried by the resumed stream; their ids. */
  resumed(): string[] {
    const ids = [...this.#orphans.keys()];
    for (const timer of this.#orphans.values()) clearTimeout(timer);
    this.#orphans.clear();
    return ids;
  }

  /** Stops every call of the session (their process groups die), then closes its transport. */
  async end(why: string): Promise<void> {
    this.resumed();
    this.#forgetJobs();
    await abortAll(this.inflight, why);
    await this.transport.close();
  }
}
