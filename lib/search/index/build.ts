/**
 * Builds the index of a root on the worker pool: the tree is split as a search splits it (the same
 * walk and ignore rules as grep's default), each piece reads its files and returns segments, and the
 * main thread stitches them into one file numbering and writes the index file. Main thread.
 */
import path from 'node:path';
import type { TaskOutcome } from '../../core/task_outcome.ts';
import type { DenySpec } from '../denied.ts';
import { type GitUser, IgnoreRules } from '../ignore.ts';
import { outsideRules } from '../ignore_outer.ts';
import { planShards, type WalkOptions } from '../walk.ts';
import { type IndexShard, type IndexShardResult, runIndexShard } from './build_shard.ts';
import { PAIR_CAPACITY } from './segment_build.ts';
import { createSharedScratch } from './shared_scratch.ts';
import { SegmentSpool } from './spool.ts';
import { runStatesShard, type StatesShard, type StatesShardResult } from './states_shard.ts';
import { type IndexHeader, type LoadedIndex, readIndex, writeIndex } from './store.ts';
import { outsideDirs } from './sweep.ts';
import { TableBuilder } from './table.ts';

export interface IndexRunner {
  parallelism: number;
  run(task: IndexShard): Promise<TaskOutcome<IndexShardResult>>;
  /** Compares indexed files' states: the background check's part (states_shard.ts). */
  states(task: StatesShard): Promise<TaskOutcome<StatesShardResult>>;
}

export const inlineIndexRunner: IndexRunner = {
  parallelism: 1,
  run: async (task) => ({ ok: true, value: runIndexShard(task) }),
  states: async (task) => ({ ok: true, value: runStatesShard(task) }),
};

/** The walk an index covers: what grep searches by default (ignore files honoured, hidden skipped). */
const indexWalk = (root: string, deny?: DenySpec, gitUser?: GitUser): WalkOptions => ({
  root,
  useIgnore: true,
  hidden: false,
  maxDepth: Number.POSITIVE_INFINITY,
  ignoreBase: root,
  ...(deny ? { deny } : {}),
  ...(gitUser ? { gitUser } : {}),
});

export interface BuildOptions {
  root: string;
  file: string;
  runner: IndexRunner;
  deny?: DenySpec;
  /** Where the user's git config is: the global excludes file applies as in a search. */
  gitUser?: GitUser;
  racyMs?: number;
}

export async function buildIndex(o: BuildOptions): Promise<TaskOutcome<LoadedIndex>> {
  // The pieces append their segments to the spool as they make them, not kept till the index is
  // written: a cache directory that cannot be written fails the build before the tree is walked.
  const spool = openSpool(o.file);
  if (spool instanceof Error) return unwritable(o, spool);
  try {
    return await buildInto(o, spool);
  } finally {
    spool.close();
  }
}

async function buildInto(o: BuildOptions, spool: SegmentSpool): Promise<TaskOutcome<LoadedIndex>> {
  const builtAt = Date.now();
  const outside = outsideDirs(outsideRules(o.root, o.gitUser).inputs);
  const walk = indexWalk(o.root, o.deny, o.gitUser);
  // Every directory the walk enters is watched, even one that holds no indexed file (store.ts).
  const entered: string[] = [];
  const enter = { dir: (d: string) => void entered.push(d) };
  const rules = IgnoreRules.of(walk);
  const plan = planShards(walk, '', o.runner.parallelism * 8, 3000, enter, rules);
  const ignoreFiles = new Set(rules.filesSeen);
  // Pieces on the pool's workers encode their segments in one scratch, in turns.
  const scratch = o.runner.parallelism > 1 ? createSharedScratch(PAIR_CAPACITY) : undefined;
  const make = (dirs: string[], files: IndexShard['files']): IndexShard => ({
    kind: 'index',
    root: o.root,
    walk,
    dirs,
    files,
    ...(o.racyMs !== undefined ? { racyMs: o.racyMs } : {}),
    ...(scratch ? { scratch } : {}),
  });
  const tasks: IndexShard[] = [];
  for (let i = 0; i < plan.files.length; i += 4096) tasks.push(make([], plan.files.slice(i, i + 4096)));
  // Few large pieces, each walking every k-th directory: every piece starts a new segment, and a
  // segment's key table is its fixed cost.
  const groups = Math.min(plan.dirs.length, o.runner.parallelism * 4);
  for (let g = 0; g < groups; g++)
    tasks.push(
      make(
        plan.dirs.filter((_, i) => i % groups === g),
        [],
      ),
    );
  // Each piece's paths go into the table as soon as the pieces before it are in (file numbers run in
  // task order), while the workers still run: only the packing is left for the end.
  const files = new TableBuilder();
  const arrived: (TaskOutcome<IndexShardResult> | undefined)[] = tasks.map(() => undefined);
  let added = 0;
  const take = (i: number, r: TaskOutcome<IndexShardResult>) => {
    if (r.ok) spool.add(i, r.value.segments);
    if (r.ok) r.value.segments = [];
    arrived[i] = r;
    for (let next = arrived[added]; next?.ok; next = arrived[++added]) files.add(next.value.rels);
  };
  await Promise.all(tasks.map((t, i) => o.runner.run({ ...t, spool: spool.target }).then((r) => take(i, r))));
  return finish(
    o,
    { builtAt, outside },
    entered,
    ignoreFiles,
    files,
    arrived as TaskOutcome<IndexShardResult>[],
    spool,
  );
}

function openSpool(file: string): SegmentSpool | Error {
  try {
    return new SegmentSpool(path.dirname(file));
  } catch (e) {
    return e as Error;
  }
}

/** Stitches the pieces' results into one index file, and reads it back for use. */
function finish(
  o: BuildOptions,
  began: { builtAt: number; outside: string },
  entered: string[],
  ignoreFiles: Set<string>,
  files: TableBuilder,
  outcomes: TaskOutcome<IndexShardResult>[],
  spool: SegmentSpool,
): TaskOutcome<LoadedIndex> {
  const sigList: number[][] = [];
  let bytes = 0;
  for (const r of outcomes) {
    if (!r.ok) return r;
    sigList.push(r.value.sigs);
    for (const d of r.value.dirs) entered.push(d);
    for (const f of r.value.ignoreFiles) ignoreFiles.add(f);
    bytes += r.value.bytes;
  }
  const sigs = new Float64Array(sigList.reduce((k, s) => k + s.length, 0));
  let at = 0;
  for (const s of sigList) {
    sigs.set(s, at);
    at += s.length;
  }
  // Packed once, into the memory the loaded index then shares with the search tasks.
  const table = files.pack(sigs);
  const header: IndexHeader = {
    root: o.root,
    builtAt: began.builtAt,
    outsideDirs: began.outside,
    dirs: entered,
    ignoreFiles: [...ignoreFiles],
    tableBytes: table.byteLength,
    segments: spool.segments(),
    bytes,
  };
  try {
    writeIndex(o.file, header, table, spool.inOrder());
  } catch (e) {
    return unwritable(o, e);
  }
  // The segments were written: only their keys are read back (the rest stays on disk).
  outcomes.length = 0;
  const loaded = readIndex(o.file, o.root, { header, table });
  if (!loaded)
    return { ok: false, error: { reason: 'failed', message: `the index written to ${o.file} did not read back` } };
  return { ok: true, value: loaded };
}

function unwritable(o: BuildOptions, e: unknown): TaskOutcome<LoadedIndex> {
  const message = `could not write the index ${o.file}: ${(e as Error).message}; set indexCacheDir (or XDG_CACHE_HOME) to a writable directory`;
  return { ok: false, error: { reason: 'failed', message } };
}
