/**
 * Test entry for Node 20, whose `node --test` takes no glob patterns and passes with zero tests: find
 * the files ourselves, fail when none match or none run. Usage: node --import tsx test/run.ts [filter]
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { run } from 'node:test';
import { spec } from 'node:test/reporters';
import { fileURLToPath } from 'node:url';

const dir = path.dirname(fileURLToPath(import.meta.url));
const only = process.argv[2] ?? '';
const files = (readdirSync(dir, { recursive: true }) as string[])
  .filter((f) => f.endsWith('.test.ts') && f.includes(only))
  .map((f) => path.join(dir, f))
  .sort();
if (files.length === 0) {
  console.error(`no test files matched "${only}"`);
  process.exit(1);
}
let passed = 0;
const stream = run({ files, concurrency: 2 });
stream.on('test:fail', () => {
  process.exitCode = 1;
});
stream.on('test:pass', () => {
  passed++;
});
stream.on('end', () => {
  if (passed === 0) {
    console.error('no tests ran');
    process.exitCode = 1;
  }
});
stream.compose(new spec()).pipe(process.stdout);
