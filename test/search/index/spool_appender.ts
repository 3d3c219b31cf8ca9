/**
 * A worker thread for the spool test: appends `count` segments to the spool it is given, segment i
 * being `size` bytes of (tag + i) mod 256, and posts back where each went. Test fixture only.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { type SpoolTarget, SpoolWriter } from '../../../lib/search/index/spool.ts';

const { target, tag, count, size } = workerData as { target: SpoolTarget; tag: number; count: number; size: number };
const writer = SpoolWriter.open(target);
if (!writer) throw new Error('the spool did not open in the worker');
const placed = [];
for (let i = 0; i < count; i++)
  placed.push({ files: 1, ...writer.append(new Uint8Array(size + i).fill((tag + i) & 255)) });
writer.close();
parentPort?.postMessage(placed);
