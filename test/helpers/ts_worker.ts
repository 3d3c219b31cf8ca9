/**
 * A real worker thread running a TypeScript fixture: the thread registers tsx, then imports the
 * fixture, which gets `workerData` and posts one answer; the promise is that answer (or the thread's error).
 */
import { Worker } from 'node:worker_threads';

export function runTsWorker<T>(fixture: URL, workerData: unknown): Promise<T> {
  return new Promise<T>((ok, fail) => {
    const load = `import('tsx/esm/api').then((t) => { t.register(); return import(${JSON.stringify(fixture.href)}); });`;
    const w = new Worker(load, { eval: true, workerData });
    w.once('message', ok);
    w.once('error', fail);
  });
}
