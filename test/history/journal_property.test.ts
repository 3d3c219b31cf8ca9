/**
 * The journal's promise, checked on a real tree in a git repository: a seeded random run of 200
 * write-tool calls (write_file, edit_file, multi_edit, apply_patch adds, renames and deletes; CRLF
 * and BOM files, a 0755 file, new nested directories) and shell commands, some in the bubblewrap
 * sandbox (sed -i, appends, mv, rm, chmod, new files in new directories), then rewinding to each
 * earlier point, newest to oldest, gives back exactly the tree as it was at that point — every
 * file's bytes and mode, which files and directories exist. Then redo walks forward again. Any seed
 * must pass; the seed is printed on failure.
 */
import assert from 'node:assert/strict';
import { chmodSync, lstatSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { rng } from '../../bench/edits/prng.ts';
import type { Result } from '../../lib/core/result.ts';
import type { RewindOutcome } from '../../lib/history/rewind.ts';
import type { Runtime } from '../../lib/runtime/runtime.ts';
import { commitClean } from '../helpers/git_repo.ts';
import { runtimeAt } from '../helpers/runtime.ts';
import { tempDir, writeTree } from '../helpers/temp.ts';

const SEED = Number(process.env.MEWCODE_JOURNAL_SEED ?? 39);
const CALLS = 200;

/** Every entry under `root`: directories, and files with their bytes and mode. */
function snapshot(root: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (rel: string) => {
    for (const name of readdirSync(path.join(root, rel)).sort()) {
      // git's own, and the sandbox's empty placeholder for .mewcode (made and removed around sandboxes).
      if (name === '.git' || name === '.mewcode') continue;
      const r = rel ? `${rel}/${name}` : name;
      const st = lstatSync(path.join(root, r));
      if (st.isDirectory()) {
        out.set(r, 'dir');
        walk(r);
      } else out.set(r, `${(st.mode & 0o7777).toString(8)} ${readFileSync(path.join(root, r)).toString('base64')}`);
    }
  };
  walk('');
  return out;
}

const filesOf = (snap: Map<string, string>) => [...snap].filter(([, v]) => v !== 'dir').map(([k]) => k);

let token = 0;
const tok = () => `tok${token++}z`; // the z ends it: tok1 is no prefix of tok13z
const lines = (n: number) => Array.from({ length: n }, tok);

/** One random write-tool call on the tree as it is; the call's name and input. */
interface Call {
  name: string;
  input: object;
  reads: string[];
  /** A bash command run in the sandboxed runtime. */
  sandboxed?: boolean;
}

function nextCall(r: ReturnType<typeof rng>, root: string, files: string[]): Call {
  const newPath = () =>
    [...Array.from({ length: r.int(3) }, () => r.pick(['src', 'lib', `n${r.int(5)}`, 'deep'])), `f${tok()}.txt`].join(
      '/',
    );
  const kind = files.length === 0 ? 0 : r.int(10);
  if (kind >= 7) return shellCall(r, files, newPath);
  const file = r.pick(files);
  const tokens = (f: string) => readFileSync(path.join(root, f), 'utf8').match(/tok\d+z/g) ?? [];
  switch (kind) {
    case 0:
      return {
        name: 'write_file',
        input: { file_path: newPath(), content: `${lines(1 + r.int(4)).join('\n')}\n` },
        reads: [],
      };
    case 1:
      return {
        name: 'write_file',
        input: { file_path: file, content: `${lines(1 + r.int(4)).join('\n')}\n` },
        reads: [file],
      };
    case 2: {
      const old = r.pick(tokens(file));
      return {
        name: 'edit_file',
        input: { file_path: file, old_string: old, new_string: `${tok()}\n${tok()}` },
        reads: [file],
      };
    }
    case 3: {
      const [a, b] = tokens(file);
      const edits = [{ old_string: a, new_string: tok() }, ...(b ? [{ old_string: b, new_string: '' }] : [])];
      return { name: 'multi_edit', input: { file_path: file, edits }, reads: [file] };
    }
    case 4:
      return {
        name: 'apply_patch',
        input: { patch: `*** Begin Patch\n*** Add File: ${newPath()}\n+${tok()}\n+${tok()}\n*** End Patch` },
        reads: [],
      };
    case 5: {
      const old = r.pick(tokens(file));
      const patch = `*** Begin Patch\n*** Update File: ${file}\n*** Move to: ${newPath()}\n@@\n-${old}\n+${tok()}\n*** End Patch`;
      return { name: 'apply_patch', input: { patch }, reads: [file] };
    }
    default:
      return {
        name: 'apply_patch',
        input: { patch: `*** Begin Patch\n*** Delete File: ${file}\n*** End Patch` },
        reads: [file],
      };
  }
}

/** A shell command changing the tree as the write tools do (quoted: paths hold no quote). */
function shellCall(r: ReturnType<typeof rng>, files: string[], newPath: () => string): Call {
  const file = r.pick(files);
  const q = (p: string) => `'${p}'`;
  const to = newPath();
  const commands = [
    `printf '%s\\n' ${tok()} ${tok()} >> ${q(file)}`,
    `sed -i '0,/tok[0-9]*z/s//${tok()}/' ${q(file)}`, // the first token of the file only
    `mkdir -p ${q(path.dirname(to))} && mv ${q(file)} ${q(to)}`,
    `rm ${q(file)}`,
    `chmod ${r.pick(['755', '644', '600'])} ${q(file)}`,
    `mkdir -p ${q(path.dirname(to))} && printf '%s\\r\\n' ${tok()} ${tok()} > ${q(to)}`,
  ];
  return { name: 'bash', input: { command: r.pick(commands) }, reads: [], sandboxed: r.int(2) === 0 };
}

async function play(rts: { plain: Runtime; boxed: Runtime }, root: string, r: ReturnType<typeof rng>) {
  const points: { id: number; snap: Map<string, string> }[] = [];
  for (let i = 0; i < CALLS; i++) {
    const files = filesOf(snapshot(root)).filter((f) => /tok\d+z/.test(readFileSync(path.join(root, f), 'utf8')));
    const c = nextCall(r, root, files);
    const rt = c.sandboxed ? rts.boxed : rts.plain;
    for (const f of c.reads) await rt.call('read_file', { file_path: f });
    const res = await rt.call(c.name, c.input);
    assert.equal(res.isError, false, `seed ${SEED}, call ${i} ${c.name} ${JSON.stringify(c.input)}: ${res.content}`);
    assert.deepEqual(res.meta?.notRecorded ?? [], [], `seed ${SEED}, call ${i}: ${res.content}`);
    const id = res.meta?.journal;
    if (id === undefined && c.name === 'bash') {
      // A command that changed nothing (chmod to the mode the file had) is no entry and no new point.
      assert.deepEqual(
        snapshot(root),
        points.at(-1)?.snap ?? snapshot(root),
        `seed ${SEED}, call ${i}: ${res.content}`,
      );
      continue;
    }
    assert.equal(typeof id, 'number', `seed ${SEED}, call ${i}: no journal entry`);
    points.push({ id: id as number, snap: snapshot(root) });
  }
  return points;
}

test('journal property: rewinding to each earlier point of 200 random write-tool calls and shell commands (sandboxed and not) gives that tree back, byte for byte and mode for mode', async () => {
  const root = tempDir();
  writeTree(root, {
    'crlf.txt': `${lines(4).join('\r\n')}\r\n`,
    'bom.txt': `\ufeff${lines(3).join('\n')}\n`,
    'run.sh': `${lines(3).join('\n')}\n`,
    'keep/empty/.gitkeep': '',
  });
  chmodSync(path.join(root, 'run.sh'), 0o755);
  await commitClean(root, ['crlf.txt', 'bom.txt', 'run.sh', 'keep/empty/.gitkeep']);
  // Two runtimes on the root, one sandboxed, one journal: their entries are numbered in one sequence.
  const journalDir = tempDir();
  const allow = { allow: { write: true, run: true } };
  const rt = runtimeAt(root, { workers: 0, permissions: allow, journal: { dir: journalDir } });
  const boxed = runtimeAt(root, { workers: 0, sandbox: true, permissions: allow, journal: { dir: journalDir } });
  const start = snapshot(root);
  const points = await play({ plain: rt, boxed }, root, rng(SEED));
  const journal = rt.journal;
  if (!journal) throw new Error('the runtime has no journal');
  for (let k = points.length - 2; k >= 0; k--) {
    const p = points[k] as { id: number; snap: Map<string, string> };
    const done: Result<RewindOutcome, string> = await journal.rewind(p.id);
    if (!done.ok) assert.fail(`seed ${SEED}: rewind to ${p.id}: ${done.error}`);
    assert.deepEqual(done.value.conflicts, [], `seed ${SEED}: rewind to ${p.id}`);
    assert.deepEqual(snapshot(root), p.snap, `seed ${SEED}: the tree after rewinding to entry ${p.id}`);
  }
  const first = await journal.undo();
  assert.ok(first.ok);
  assert.deepEqual(snapshot(root), start, `seed ${SEED}: the tree before any call`);
  // Redo takes back the undos, last first: the tree after the first call, then after the second.
  for (const k of [0, 1]) {
    const again = await journal.redo();
    assert.ok(again.ok && again.value.conflicts.length === 0);
    assert.deepEqual(snapshot(root), points[k]?.snap, `seed ${SEED}: redo ${k + 1}`);
  }
});
