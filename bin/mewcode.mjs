#!/usr/bin/env node
/**
 * The installed `mewcode` command (package.json "bin"), from any directory: runs the prebuilt bundle
 * (dist/, built by `npm run build` and by `prepare`) when it is current, else the TypeScript sources
 * through tsx. Plain JavaScript, so it needs neither tsx nor the checkout's directory to start.
 */
import { realpathSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { currentBundle } from './current_bundle.mjs';

// Through npm's symlink in a global bin directory, back to the package.
const root = path.dirname(path.dirname(realpathSync(fileURLToPath(import.meta.url))));
const bundle = currentBundle(root);
let program;
if (bundle) program = await import(bundle);
else {
  const { register } = await import('tsx/esm/api');
  register();
  program = await import(pathToFileURL(path.join(root, 'mewcode.ts')).href);
}
process.exitCode = await program.runCli(process.argv.slice(2));
