/**
 * The shape of lib/ that a maintainer relies on: core imports nothing above it, no module imports
 * itself through others (type imports included: a cycle through types still ties the modules
 * together), no two rooms (folders) of lib/ import each other, and each tool's lane is the one its
 * context was written for. Size is Biome's to check, not this file's: no function may run over 80
 * lines (noExcessiveLinesPerFunction in biome.json, part of `npm test`).
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import type { AnyTool } from '../lib/core/tool.ts';
import { TOOLS } from '../lib/tools/mod.ts';
import { REPO } from './helpers/repo.ts';

const LIB = path.join(REPO, 'lib');
const files = (readdirSync(LIB, { recursive: true }) as string[]).filter((f) => f.endsWith('.ts')).sort();

/** Relative imports of a module (static, dynamic and `import('…')` types), as paths relative to lib/. */
function importsOf(file: string): string[] {
  const text = readFileSync(path.join(LIB, file), 'utf8');
  const out: string[] = [];
  for (const m of text.matchAll(/(?:\bfrom\s+|\bimport\s*\(\s*)['"](\.[^'"]+)['"]/g))
    out.push(path.normalize(path.join(path.dirname(file), m[1] as string)));
  return out;
}

const graph = new Map(files.map((f) => [f, importsOf(f)]));

test('architecture: lib/core imports nothing above it', () => {
  for (const [file, deps] of graph) {
    if (!file.startsWith(`core${path.sep}`)) continue;
    for (const d of deps) assert.ok(d.startsWith(`core${path.sep}`), `${file} imports ${d}, which is above core`);
  }
});

test('architecture: no import cycles in lib/, type imports included', () => {
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (f: string) => {
    state.set(f, 'open');
    stack.push(f);
    for (const d of graph.get(f) ?? []) {
      if (!graph.has(d)) continue;
      if (state.get(d) === 'open') assert.fail(`import cycle: ${[...stack.slice(stack.indexOf(d)), d].join(' → ')}`);
      if (!state.has(d)) visit(d);
    }
    stack.pop();
    state.set(f, 'done');
  };
  for (const f of graph.keys()) if (!state.has(f)) visit(f);
  assert.ok(graph.size > 50, 'the import graph was read');
});

/** The room a module lives in: its first folder under lib/ (index.ts, the library's entry, is its own). */
const roomOf = (file: string) => (file.includes(path.sep) ? (file.split(path.sep)[0] as string) : file);

test('architecture: no two rooms of lib/ import each other, directly or around a loop', () => {
  const rooms = new Map<string, Map<string, string>>(); // room -> room it imports -> one file import showing it
  for (const [file, deps] of graph)
    for (const d of deps) {
      const [from, to] = [roomOf(file), roomOf(d)];
      if (from === to || !graph.has(d)) continue;
      if (!rooms.has(from)) rooms.set(from, new Map());
      rooms.get(from)?.set(to, `${file} → ${d}`);
    }
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (room: string) => {
    state.set(room, 'open');
    stack.push(room);
    for (const [next, why] of rooms.get(room) ?? []) {
      if (state.get(next) === 'open') {
        const loop = [...stack.slice(stack.indexOf(next)), next];
        assert.fail(`rooms import each other: ${loop.join(' → ')} (last step: ${why})`);
      }
      if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(room, 'done');
  };
  for (const room of rooms.keys()) if (!state.has(room)) visit(room);
  assert.ok(rooms.size > 10, 'the rooms were read');
  // The single file's entry (bundle.ts) is the library entry's one importer: it re-exports it.
  for (const [file, deps] of graph)
    assert.ok(file === 'bundle.ts' || !deps.includes('index.ts'), `${file} imports the library entry`);
  assert.ok(![...graph.values()].some((deps) => deps.includes('bundle.ts')), 'nothing imports the single file entry');
});

test('architecture: a tool is read-only exactly when its lane is not the write lane', () => {
  for (const t of TOOLS as readonly AnyTool[]) assert.equal(t.readOnly, t.lane !== 'write', t.name);
  const lanes = Object.fromEntries((TOOLS as readonly AnyTool[]).map((t) => [t.name, t.lane]));
  assert.deepEqual(lanes, {
    read_file: 'pool',
    glob: 'search',
    grep: 'search',
    load_skill: 'main',
    bash_output: 'main',
    web_fetch: 'main',
    todo_write: 'main',
    write_file: 'write',
    edit_file: 'write',
    multi_edit: 'write',
    notebook_edit: 'write',
    apply_patch: 'write',
    bash: 'write',
    kill_bash: 'write',
    write_stdin: 'write',
    install_skill: 'write',
  });
});
