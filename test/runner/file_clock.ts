/**
 * Wall time per test file, from node:test's events: the `test:complete` of the test node makes for a
 * whole file (named by the file's path) carries the file's duration, load and closing hooks included.
 * Its pass and fail events come late (node holds a file's report back until the files before it are
 * reported), so they count tests but say nothing of time. With two files at a time the figures are
 * what each file took beside another, which is what a run pays.
 */
import { relative } from 'node:path';

interface Heard {
  name?: string;
  file?: string;
  details?: { duration_ms?: number };
}

interface FileTime {
  ms: number;
  tests: number;
}

export class FileClock {
  private readonly files = new Map<string, FileTime>();

  private readonly rows: number;

  /** `rows`: how many of the slowest files the table lists. */
  constructor(rows: number) {
    this.rows = rows;
  }

  hear(type: string, data: Heard | undefined): void {
    const file = data?.file;
    if (!file) return;
    const time = this.files.get(file) ?? { ms: 0, tests: 0 };
    this.files.set(file, time);
    if (type === 'test:complete' && data.name === file) time.ms = data.details?.duration_ms ?? 0;
    else if ((type === 'test:pass' || type === 'test:fail') && data.name !== file) time.tests++;
  }

  /** The slowest files, slowest first, and the sum of all files' times. */
  table(): string {
    const rows = [...this.files.entries()]
      .map(([file, t]) => ({ file: relative(process.cwd(), file), s: t.ms / 1000, tests: t.tests }))
      .sort((a, b) => b.s - a.s);
    const total = rows.reduce((sum, r) => sum + r.s, 0);
    const width = Math.max(...rows.slice(0, this.rows).map((r) => r.file.length), 4);
    const lines = rows
      .slice(0, this.rows)
      .map((r) => `${r.s.toFixed(1).padStart(7)} s  ${String(r.tests).padStart(5)}  ${r.file.padEnd(width)}`);
    return [
      `\nslowest ${Math.min(this.rows, rows.length)} of ${rows.length} files (wall time beside one other file):`,
      `${'time'.padStart(9)}  tests  file`,
      ...lines,
      `${total.toFixed(1).padStart(7)} s  in all files together\n`,
    ].join('\n');
  }
}
