/**
 * A deterministic source tree for the search benchmark and the ripgrep parity tests: seeded text
 * that looks like code (identifiers, TODOs, errors, handlers), a node_modules area ignored by the
 * root .gitignore, nested .gitignore files with anchored, directory-only and negated rules, a few
 * multi-MB files, minified lines, binaries, hidden directories and a directory symlink loop.
 */
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { rng } from './edits/prng.ts';

export interface FixtureOptions {
  files: number;
  seed?: number;
  /** Include the multi-MB files and long lines (default true). */
  big?: boolean;
}

export interface FixtureSummary {
  files: number;
  bytes: number;
}

const WORDS = (
  'user order cache item value index buffer stream token parser config client server request response ' +
  'handler event queue worker task result error state store render layout widget module package service'
).split(' ');
const EXTS = ['ts', 'ts', 'ts', 'js', 'tsx', 'md', 'json', 'go', 'py'] as const;

export function generateFixture(root: string, o: FixtureOptions): FixtureSummary {
  const rand = rng(o.seed ?? 42).next;
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)] as T;
  const ident = () => pick(WORDS) + pick(WORDS).replace(/^./, (c) => c.toUpperCase());
  const line = (): string => {
    const r = rand();
    if (r < 0.04) return `  // TODO: ${pick(WORDS)} ${pick(WORDS)} needs a ${pick(WORDS)}`;
    if (r < 0.06)
      return `  throw new Error('${pick(WORDS)} ${pick(WORDS)} failed: ERROR ${Math.floor(rand() * 1000)}');`;
    if (r < 0.1) return `export function ${ident()}Handler(${pick(WORDS)}: ${ident()}) {`;
    if (r < 0.14) return `  console.log('${pick(WORDS)}', ${pick(WORDS)}.${pick(WORDS)});`;
    if (r < 0.2) return '}';
    if (r < 0.25) return '';
    return `  const ${ident()} = ${pick(WORDS)}.${ident()}(${pick(WORDS)}, ${Math.floor(rand() * 100)});`;
  };
  const text = (lines: number) => `${Array.from({ length: lines }, line).join('\n')}\n`;
  let files = 0;
  let bytes = 0;
  const put = (rel: string, content: string | Buffer) => {
    const abs = path.join(root, rel);
    mkdirSync(path.dirname(abs), { recursive: true });
    writeFileSync(abs, content);
    files++;
    bytes += typeof content === 'string' ? Buffer.byteLength(content) : content.length;
  };

  put('.gitignore', 'node_modules/\n*.log\n/build\n.cache/\n');
  put('README.md', text(40));
  const target = o.files;
  const ignoredShare = Math.floor(target * 0.2);
  // node_modules: ignored by the root .gitignore, as big as a real one relative to the sources.
  for (let i = 0; files < ignoredShare; i++) {
    const pkg = `node_modules/${pick(WORDS)}-${i % 97}`;
    put(`${pkg}/lib/${ident()}${i}.js`, text(20 + Math.floor(rand() * 40)));
  }
  let pkgIndex = 0;
  while (files < target - 20) {
    const pkg = `packages/${pick(WORDS)}${pkgIndex++}`;
    if (pkgIndex % 5 === 0) {
      // Nested rules: directory-only, negation, and an anchored pattern that must not reach deeper.
      put(`${pkg}/.gitignore`, 'dist/\n*.tmp\n!keep.tmp\n/generated\n');
      put(`${pkg}/dist/bundle.js`, text(30));
      put(`${pkg}/scratch.tmp`, text(5));
      put(`${pkg}/keep.tmp`, text(5));
      put(`${pkg}/generated/types.ts`, text(10));
      put(`${pkg}/src/generated/kept.ts`, text(10));
      put(`${pkg}/debug.log`, text(5));
    }
    const dirs = 1 + Math.floor(rand() * 4);
    for (let d = 0; d < dirs && files < target - 20; d++) {
      const depth = 1 + Math.floor(rand() * 3);
      const dir = [pkg, 'src', ...Array.from({ length: depth }, () => pick(WORDS))].join('/');
      const n = 5 + Math.floor(rand() * 20);
      for (let f = 0; f < n && files < target - 20; f++) {
        put(`${dir}/${ident()}${f}.${pick(EXTS)}`, text(15 + Math.floor(rand() * 80)));
      }
    }
  }
  // Hidden directories: skipped unless named; .github is what agents name.
  put('.github/workflows/ci.yml', 'name: ci\n# TODO: cache node_modules\n');
  put('.cache/state.json', '{"TODO": true}\n');
  put('build/out.js', text(10));
  // Binaries: NUL bytes, with text that would match if they were searched.
  for (let i = 0; i < 5; i++) {
    const bin = Buffer.alloc(4096 + i * 1000, 0);
    bin.write('TODO Error handler', 100 + i);
    put(`assets/image${i}.png`, bin);
  }
  if (o.big ?? true) {
    for (let i = 0; i < 3; i++) put(`data/big${i}.txt`, text(120_000 + i * 60_000)); // ~6-12 MB each
    put(
      'data/minified.js',
      `${Array.from({ length: 4 }, () => Array.from({ length: 12_000 }, line).join(' ')).join('\n')}\n`,
    );
  }
  try {
    symlinkSync('..', path.join(root, 'packages', 'loop'));
  } catch {
    // exists already (regenerating over a tree)
  }
  return { files, bytes };
}
