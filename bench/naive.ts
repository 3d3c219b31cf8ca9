/**
 * The baseline: the seed's grep algorithm in JavaScript — one thread, a serial directory walk, every
 * file read whole, split into lines, and each line tested with the regex. No ignore files.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

export function naiveGrepCounts(root: string, re: RegExp): string[] {
  const out: string[] = [];
  const visit = (dir: string) => {
    const entries = readdirSync(path.join(root, dir), { withFileTypes: true }).sort((a, b) =>
      a.name < b.name ? -1 : 1,
    );
    for (const e of entries) {
      const rel = dir ? `${dir}/${e.name}` : e.name;
      if (e.isDirectory()) {
        if (e.name !== '.git') visit(rel);
      } else if (e.isFile()) {
        const buf = readFileSync(path.join(root, rel));
        if (buf.indexOf(0) !== -1) continue; // binary
        let n = 0;
        for (const line of buf.toString('utf8').split('\n')) if (re.test(line)) n++;
        if (n > 0) out.push(`${rel}:${n}`);
      }
    }
  };
  visit('');
  return out;
}
