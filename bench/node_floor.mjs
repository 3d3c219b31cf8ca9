/**
 * Node's floor for a one-shot search: the least a Node program does to walk a tree as MewCode's
 * one-shot walk does it, and nothing more — no module but node:fs, no ignore rules, no runtime, no
 * policy. `checked` opens each directory as the O_NOFOLLOW entry of its parent's descriptor and lists
 * it and opens its files through `/proc/<pid>/fd/N/name` (the walk's symlink-safe way, walk.ts);
 * `paths` uses plain absolute paths (what a walk without that guarantee would cost). Names sorted, `.git`
 * and hidden entries skipped. `grep WORD` prints the files holding WORD (read whole, one read each);
 * `glob SUFFIX` prints the files whose name ends with SUFFIX. Plain JavaScript: nothing to transform.
 *
 * Usage: node bench/node_floor.mjs checked|paths grep WORD|glob SUFFIX   (in the tree's directory)
 */
import { closeSync, constants, openSync, readdirSync, readSync } from 'node:fs';

const [how = 'checked', what = 'grep', arg = 'TODO'] = process.argv.slice(2);
const O_PATH = 0o10000000; // Linux x64/arm64, as lib/core/descriptors.ts
const proc = `/proc/${process.pid}/fd/`;
const buf = Buffer.allocUnsafe(8 << 20);
const word = Buffer.from(arg);
const out = [];
const byName = (a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

function visitFile(at, rel) {
  if (what === 'glob') {
    if (rel.endsWith(arg)) out.push(rel);
    return;
  }
  let fd;
  try {
    fd = openSync(at, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return;
  }
  const n = readSync(fd, buf, 0, buf.length, 0);
  closeSync(fd);
  const bytes = buf.subarray(0, n);
  if (bytes.indexOf(0) === -1 && bytes.indexOf(word) !== -1) out.push(rel);
}

/** `at` reaches the directory (a path, or a descriptor's /proc path); `rel` is its path in the tree. */
function walk(at, rel, fd) {
  let entries;
  try {
    entries = readdirSync(at, { withFileTypes: true }).sort(byName);
  } catch {
    return;
  }
  for (const e of entries) {
    if (e.name.charCodeAt(0) === 46) continue; // hidden, .git included
    const childRel = rel === '' ? e.name : `${rel}/${e.name}`;
    const childAt = fd === undefined ? `${at}/${e.name}` : `${proc}${fd}/${e.name}`;
    if (e.isDirectory()) {
      if (fd === undefined) walk(childAt, childRel);
      else {
        let sub;
        try {
          sub = openSync(childAt, O_PATH | constants.O_DIRECTORY | constants.O_NOFOLLOW);
        } catch {
          continue;
        }
        walk(`${proc}${sub}`, childRel, sub);
        closeSync(sub);
      }
    } else if (e.isFile()) visitFile(childAt, childRel);
  }
}

if (how === 'checked') {
  const root = openSync('.', O_PATH | constants.O_DIRECTORY);
  walk(`${proc}${root}`, '', root);
} else walk(process.cwd(), '');
process.stdout.write(out.length ? `${out.join('\n')}\n` : '');
