/**
 * A worker thread for the shared-scratch test: takes the scratch's turn `turns` times; inside each,
 * counts itself in on a shared word, writes its tag over the scratch's keys and reads them back, and
 * counts itself out. Posts how often it found another thread inside or its tag overwritten. Test
 * fixture only.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { type SharedScratch, withScratchTurn } from '../../../lib/search/index/shared_scratch.ts';

const { shared, inside, tag, turns } = workerData as {
  shared: SharedScratch;
  inside: SharedArrayBuffer;
  tag: number;
  turns: number;
};
const word = new Int32Array(inside);
let clashes = 0;
let without = 0;
for (let i = 0; i < turns; i++)
  withScratchTurn(shared, (s) => {
    if (!s) {
      without++;
      return;
    }
    if (Atomics.add(word, 0, 1) !== 0) clashes++;
    s.keys.fill(tag, 0, 4096);
    if (!s.keys.subarray(0, 4096).every((k) => k === tag)) clashes++;
    Atomics.sub(word, 0, 1);
  });
parentPort?.postMessage({ clashes, without });
