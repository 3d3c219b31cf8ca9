/**
 * `npm run build`: bundles the CLI, the library and the worker entry into one self-contained file,
 * dist/mewcode.mjs, that runs with plain `node` and no node_modules. The same file is the worker
 * threads' entry: Piscina starts its workers on the bundle (its own worker bootstrap is bundled in),
 * and the bundle's default export is the read lane's task handler. The benchmark is not bundled.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { build, type Plugin } from 'esbuild';

const require = createRequire(import.meta.url);

/** `--out FILE` writes the bundle elsewhere (the tests build into a temp dir). */
const outIndex = process.argv.indexOf('--out');
const outFile = outIndex > 0 ? (process.argv[outIndex + 1] as string) : 'dist/mewcode.mjs';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };

// Piscina starts each worker on its own dist/worker.js beside it; in the bundle that file does not
// exist, so workers start on the bundle itself (which runs Piscina's bootstrap when it is a worker).
const piscinaSelf: Plugin = {
  name: 'piscina-self-worker',
  setup(b) {
    // Not in the package's exports map; resolve it beside Piscina's main file.
    b.onResolve({ filter: /^piscina\/dist\/worker\.js$/ }, () => ({
      path: path.join(path.dirname(require.resolve('piscina')), 'worker.js'),
    }));
    b.onLoad({ filter: /piscina[\\/]dist[\\/]index\.js$/ }, (args) => {
      const src = readFileSync(args.path, 'utf8');
      const patched = src.replace("(0, node_path_1.resolve)(__dirname, 'worker.js')", 'globalThis.__MEWCODE_SELF__');
      if (patched === src) throw new Error('piscina changed: the worker path to patch was not found');
      return { contents: patched, loader: 'js' };
    });
  },
};

const result = await build({
  entryPoints: ['mewcode.ts'],
  outfile: outFile,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  minify: true,
  legalComments: 'inline',
  sourcemap: false,
  metafile: true,
  write: false,
  // Optional native helper of Piscina (thread priorities): absent is fine, it is loaded in a try.
  external: ['@napi-rs/nice'],
  define: { __MEWCODE_BUNDLE__: 'true', __MEWCODE_VERSION__: JSON.stringify(pkg.version) },
  banner: {
    js: [
      "import { createRequire as __mewcodeRequire } from 'node:module';",
      "import { fileURLToPath as __mewcodeFileURLToPath } from 'node:url';",
      'const require = __mewcodeRequire(import.meta.url);',
      'const __filename = __mewcodeFileURLToPath(import.meta.url);',
      "const __dirname = __filename.slice(0, __filename.lastIndexOf('/'));",
      'globalThis.__MEWCODE_SELF__ = __filename;',
    ].join('\n'),
  },
  plugins: [piscinaSelf],
  logLevel: 'warning',
});
// The source's own hashbang runs tsx; the bundle runs on plain node.
const out = result.outputFiles[0];
if (!out) throw new Error('esbuild produced no output');
const text = `#!/usr/bin/env node\n${out.text.replace(/^#![^\n]*\n/, '')}`;
mkdirSync(path.dirname(outFile), { recursive: true });
writeFileSync(outFile, text, { mode: 0o755 });
process.stdout.write(`${outFile}: ${(Buffer.byteLength(text) / 1024).toFixed(0)} KiB\n`);
