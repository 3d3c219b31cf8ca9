/**
 * `npm run build`: bundles the CLI, the library and the read lane's worker into dist/, which runs with
 * plain `node` and no node_modules. Three entries share chunks (esbuild code splitting):
 * - dist/mewcode.mjs: the program. Not the library too: its static imports would be evaluated on
 *   every start, `--version` included (measured: +0.2 s under load, against +0.02 s without);
 * - dist/lib.mjs: the library (`import { createRuntime } from './lib.mjs'`);
 * - dist/pool-worker.mjs: what a worker thread starts on (Piscina's bootstrap and the read tools only).
 * What a command does not need stays in chunks under dist/chunks/ that load on first use: the model
 * SDKs, MCP, the agent; the bash parser (1.3 MB, mvdan-sh) is copied to dist/vendor/ and required on
 * the first command checked. So `--version` parses ~0.3 MB, not 2.5 MB, and a worker starts on a few
 * hundred KB. dist/build.json lists the sources, for bin/mewcode.mjs to tell whether dist/ is current.
 * The benchmark is not bundled.
 */
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { build, type Plugin } from 'esbuild';

const require = createRequire(import.meta.url);
const repo = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');

/** `--out FILE` builds into FILE's directory, the program named FILE (the tests build into a temp dir). */
const outIndex = process.argv.indexOf('--out');
const outFile = path.resolve(outIndex > 0 ? (process.argv[outIndex + 1] as string) : 'dist/mewcode.mjs');
const outDir = path.dirname(outFile);
const entryName = path.basename(outFile, '.mjs');

const pkg = JSON.parse(readFileSync(path.join(repo, 'package.json'), 'utf8')) as { version: string };

/**
 * Stands for the path from an output file's directory to dist/ ('./' or '../'): a chunk does not know
 * where it will sit until esbuild has split, so each file gets its own after the build.
 */
const DIST = '@@MEWCODE_DIST@@';

// Piscina starts each worker on its own dist/worker.js beside it; in the bundle that file does not
// exist, so workers start on pool-worker.mjs (which runs Piscina's bootstrap when it is a worker).
const piscinaWorker: Plugin = {
  name: 'piscina-worker',
  setup(b) {
    // Not in the package's exports map; resolve it beside Piscina's main file.
    b.onResolve({ filter: /^piscina\/dist\/worker\.js$/ }, () => ({
      path: path.join(path.dirname(require.resolve('piscina')), 'worker.js'),
    }));
    b.onLoad({ filter: /piscina[\\/]dist[\\/]index\.js$/ }, (args) => {
      const src = readFileSync(args.path, 'utf8');
      const patched = src.replace(
        "(0, node_path_1.resolve)(__dirname, 'worker.js')",
        `(0, node_path_1.resolve)(__dirname, '${DIST}pool-worker.mjs')`,
      );
      if (patched === src) throw new Error('piscina changed: the worker path to patch was not found');
      return { contents: patched, loader: 'js' };
    });
  },
};

// The bash parser is one 1.3 MB CommonJS file required synchronously; bundled, every start would
// parse it. Copied beside the bundle instead, it is read only when a command is first checked.
const vendorShellParser: Plugin = {
  name: 'vendor-mvdan-sh',
  setup(b) {
    b.onResolve({ filter: /^mvdan-sh$/ }, () => ({ path: `${DIST}vendor/mvdan-sh.cjs`, external: true }));
  },
};

rmSync(outDir === path.join(repo, 'dist') ? outDir : path.join(outDir, 'chunks'), { recursive: true, force: true });
const result = await build({
  entryPoints: [
    { in: path.join(repo, 'mewcode.ts'), out: entryName },
    { in: path.join(repo, 'lib/index.ts'), out: 'lib' },
    { in: path.join(repo, 'lib/runtime/bundle_worker.ts'), out: 'pool-worker' },
  ],
  outdir: outDir,
  outExtension: { '.js': '.mjs' },
  chunkNames: 'chunks/[name]-[hash]',
  splitting: true,
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
  define: {
    __MEWCODE_BUNDLE__: 'true',
    __MEWCODE_VERSION__: JSON.stringify(pkg.version),
    __MEWCODE_DIST__: JSON.stringify(DIST),
  },
  banner: {
    js: [
      "import { createRequire as __mewcodeRequire } from 'node:module';",
      "import { fileURLToPath as __mewcodeFileURLToPath } from 'node:url';",
      'const require = __mewcodeRequire(import.meta.url);',
      'const __filename = __mewcodeFileURLToPath(import.meta.url);',
      "const __dirname = __filename.slice(0, __filename.lastIndexOf('/'));",
    ].join('\n'),
  },
  plugins: [piscinaWorker, vendorShellParser],
  logLevel: 'warning',
});

let total = 0;
for (const out of result.outputFiles) {
  const rel = path.relative(path.dirname(out.path), outDir);
  const dist = rel === '' ? './' : `${rel}/`;
  let text = out.text.replace(/^#![^\n]*\n/, '').replaceAll(DIST, dist);
  // The source's own hashbang runs tsx; the bundle runs on plain node.
  if (path.basename(out.path) === `${entryName}.mjs`) text = `#!/usr/bin/env node\n${text}`;
  mkdirSync(path.dirname(out.path), { recursive: true });
  writeFileSync(out.path, text, { mode: 0o755 });
  total += Buffer.byteLength(text);
}
const shParser = path.join(path.dirname(require.resolve('mvdan-sh')), 'index.js');
mkdirSync(path.join(outDir, 'vendor'), { recursive: true });
copyFileSync(shParser, path.join(outDir, 'vendor/mvdan-sh.cjs'));
copyFileSync(path.join(path.dirname(shParser), 'LICENSE'), path.join(outDir, 'vendor/mvdan-sh.LICENSE'));

// What the bundle was built from, for bin/mewcode.mjs: sources newer than `builtAt` make it stale.
const sources = Object.keys(result.metafile.inputs)
  .filter((f) => !f.includes('node_modules') && !f.startsWith('@@'))
  .map((f) => path.relative(repo, path.resolve(f)));
writeFileSync(
  path.join(outDir, 'build.json'),
  `${JSON.stringify({ version: pkg.version, builtAt: Date.now(), entry: `${entryName}.mjs`, sources: [...sources, 'package.json'] }, null, 1)}\n`,
);
// `--meta FILE`: esbuild's metafile (which sources went into which file), for the tests and for sizing.
const metaIndex = process.argv.indexOf('--meta');
if (metaIndex > 0) writeFileSync(process.argv[metaIndex + 1] as string, JSON.stringify(result.metafile));
const main = result.outputFiles.find((o) => path.basename(o.path) === `${entryName}.mjs`);
process.stdout.write(
  `${path.relative(process.cwd(), outDir) || '.'}/: ${(total / 1024).toFixed(0)} KiB in ${result.outputFiles.length} files (${entryName}.mjs ${((main?.contents.length ?? 0) / 1024).toFixed(0)} KiB) + vendor/mvdan-sh.cjs\n`,
);
