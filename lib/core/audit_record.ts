/**
 * What the audit trail records, as data: one record per tool call (where it ended, who decided and
 * why, what it cost), one per model request of an agent run, one when a runtime starts. The runtime
 * and the agent loop make them; sinks consume them — the JSON Lines log (lib/audit/log_file.ts),
 * OpenTelemetry (lib/telemetry/), a library's own function. Plain JSON: a record is written as it is.
 */
import type { Enforcer, LimitHit, LimitName } from './limits.ts';
import type { ErrorCode, PolicyDecision } from './tool_result.ts';

/**
 * Where a call ended: `unknown` (no such tool), `parse` (its arguments were refused before anything
 * ran: not JSON, cut off by the output limit, not what the tool takes), `authorize` (the path gate or
 * the policy refused it), `skipped` (the run was cancelled before it started), `run` (it ran;
 * `outcome` says how).
 */
export const CALL_STAGES = ['unknown', 'parse', 'authorize', 'skipped', 'run'] as const;
export type CallStage = (typeof CALL_STAGES)[number];

/** Who made a call: an agent run, an MCP client, the command line, or a program using the library. */
export type CallVia = 'agent' | 'mcp' | 'cli' | 'library';

/**
 * A decision as recorded: its `reason` is what the model was told, which quotes the arguments (a
 * refused command line, a path), so it is kept only where the arguments are (`auditInputs`).
 */
export type AuditDecision = Omit<PolicyDecision, 'reason'> & { reason?: string };

export interface AuditCall {
  type: 'call';
  /** When the call started (ISO 8601). */
  time: string;
  /** The runtime that served it (AuditSession.session). */
  session: string;
  via: CallVia;
  /** The agent run and its turn, when an agent made the call. */
  run?: string;
  turn?: number;
  /** The provider's id of the call, when a model made it. */
  callId?: string;
  tool: string;
  /**
   * The arguments: a digest of their JSON and its size; the arguments themselves only when the log
   * was asked to keep them (`auditInputs`).
   */
  input: { sha256: string; bytes: number; value?: unknown };
  stage: CallStage;
  /** The policy's decision (or the path gate's refusal, `by: 'gate'`), when the call reached that step. */
  decision?: AuditDecision;
  /** `ok`, or the result's error code. */
  outcome: 'ok' | ErrorCode;
  ms: number;
  /** Bytes of the answer's text (its images not counted). */
  bytesOut: number;
  /** Images the answer carried. */
  images?: number;
  /** A command's bounds: in the sandbox or not, how each limit was enforced, the limit that ended it. */
  sandboxed?: boolean;
  limits?: Partial<Record<LimitName, Enforcer>>;
  limitHit?: LimitHit;
  exitCode?: number | null;
}

/** One model request of an agent run. */
export interface AuditTurn {
  type: 'turn';
  time: string;
  session: string;
  run: string;
  turn: number;
  depth: number;
  provider: string;
  model: string;
  /** Tokens the provider reported for this request (0 when it reported none). */
  tokens: { input: number; output: number };
  /** Requests retried before this one answered (rate limits, overload, dropped streams). */
  retries: number;
  ms: number;
  /** The model's stop reason, or how the request failed. */
  stop?: string;
  error?: string;
  /** Calls the model made in this turn. */
  calls: number;
  /** `compact`: the request that summarised the conversation to fit the budget, not the turn's own. */
  purpose?: 'compact';
}

/** A runtime started: the records that follow with its session id came from it. */
export interface AuditSession {
  type: 'session';
  time: string;
  session: string;
  root: string;
  pid: number;
  mode: string;
  sandbox: boolean;
}

export type AuditRecord = AuditCall | AuditTurn | AuditSession;

/** Receives every record; must not throw (a failing log must not fail the call it records). */
export type AuditSink = (record: AuditRecord) => void;
