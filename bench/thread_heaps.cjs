/**
 * Preloaded into every thread of a memory probe (`node --require bench/thread_heaps.cjs`; worker
 * threads inherit the flag and run what it preloads, which on Node 20 they do not for `--import`, so
 * this file is CommonJS): each thread answers a question on one BroadcastChannel with its own V8
 * heap figures, so the probe can say what the main thread and each pool worker hold. Node 20 has no
 * `worker.getHeapStatistics()`, and the pool's workers are Piscina's, out of the probe's reach. The
 * channel is unref'd: it keeps no thread alive. Bench-only; MewCode never loads it.
 * `askThreadHeaps()` (main thread; also set as globalThis.mewcodeAskThreadHeaps for a probe that did
 * not import this file) collects the answers that arrive within `ms`.
 */

const v8 = require('node:v8');
const { BroadcastChannel, isMainThread, threadId } = require('node:worker_threads');

const NAME = 'mewcode-thread-heaps';
const MiB = 1048576;

function ownHeap() {
  const h = v8.getHeapStatistics();
  const m = process.memoryUsage();
  const space = (name) => v8.getHeapSpaceStatistics().find((s) => s.space_name === name);
  const r = (n) => Math.round((n / MiB) * 10) / 10;
  return {
    threadId,
    main: isMainThread,
    heapTotal: r(h.total_heap_size),
    heapUsed: r(h.used_heap_size),
    newSpace: r(space('new_space')?.space_size ?? 0),
    code: r((space('code_space')?.space_size ?? 0) + (space('code_large_object_space')?.space_size ?? 0)),
    external: r(m.external),
    arrayBuffers: r(m.arrayBuffers),
    malloced: r(h.malloced_memory),
  };
}

if (!isMainThread) {
  const channel = new BroadcastChannel(NAME);
  channel.onmessage = (e) => {
    if (e.data === 'ask') channel.postMessage(ownHeap());
  };
  channel.unref();
}

/** Every thread's heap: the main thread's now, the workers' that answer within `ms`. */
async function askThreadHeaps(ms = 300) {
  const channel = new BroadcastChannel(NAME);
  const got = [ownHeap()];
  channel.onmessage = (e) => got.push(e.data);
  channel.postMessage('ask');
  await new Promise((r) => setTimeout(r, ms));
  channel.close();
  return got;
}

if (isMainThread) globalThis.mewcodeAskThreadHeaps = askThreadHeaps;
module.exports = { askThreadHeaps };
