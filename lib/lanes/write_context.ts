/**
 * The write lane's context: what a tool that changes files or runs commands needs besides its
 * checked paths. Everything here lives on the main thread, where the write lane runs.
 */
import type { Limits } from '../core/limits.ts';
import type { ToolContext } from '../core/tool.ts';
import type { JobTable } from '../exec/jobs.ts';
import type { ChangeSink } from '../files/changes.ts';
import type { Ledger } from '../files/ledger.ts';
import type { ShellKept } from '../history/shell_before.ts';
import type { SandboxConfig } from '../sandbox/bwrap.ts';
import type { NetProxy } from '../sandbox/net_proxy.ts';
import type { GitUser } from '../search/ignore.ts';
import type { SkillCatalog } from '../skills/catalog.ts';
import type { SkillSources } from '../skills/fetch.ts';

/** How commands run: their environment, and the OS sandbox when one is configured. */
export interface ExecConfig {
  env: Record<string, string>;
  sandbox?: SandboxConfig;
  /** The filtering proxy sandboxed commands reach when their network is filtered by host (sandbox.proxyNet). */
  netProxy?: NetProxy;
  /** --allow-net's host list: an address named there may be reached through a name resolving to it. */
  netAllow?: readonly string[];
  /** Each command's memory, processes and CPU time (lib/exec/limits.ts); absent: none. */
  limits?: Limits;
  /** The runtime's background jobs; absent where nothing outlives a call (a one-shot `mewcode call`). */
  jobs?: JobTable;
}

export interface WriteContext extends ToolContext {
  /** The read ledger: a file is overwritten only when its current bytes are the ones last read. */
  ledger: Ledger;
  exec: ExecConfig;
  /** The skill catalog install_skill adds to. */
  skills: SkillCatalog;
  /** Where install_skill fetches from (configurable, so tests use a local server). */
  skillSources: SkillSources;
  /** This call's recorder in the journal (absent when the journal is off). */
  changes?: ChangeSink;
  /** How bash compares the root around a command for the journal (with `changes`). */
  shellScope?: ShellScope;
}

export interface ShellScope {
  /** Compare at most this many files (0: record no command's changes). */
  maxFiles: number;
  /** Kept by the runtime across its calls. */
  seen: ShellSeen;
  /** For the global excludes file: paths it ignores are not recorded. */
  gitUser?: GitUser;
  /** Entries of the root not compared (the protected locations: git's and MewCode's own). */
  skipTop?: readonly string[];
}

/**
 * What a runtime learned of its root around commands: once the root held more files than `maxFiles`,
 * later commands are not compared (finding that out again costs a walk of `maxFiles` files per
 * command); a new runtime looks again.
 */
export interface ShellSeen {
  /** When (ms since the epoch) a command found the root over the limit. */
  overSince?: number;
  /** The root's states and copies kept between commands (watched: closed with the runtime). */
  kept?: ShellKept;
}
