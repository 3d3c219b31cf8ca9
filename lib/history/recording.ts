/**
 * One call's (or one restore's) recording: the write lane tells it each change as it is made; it
 * keeps each file's first before-image and last after-image (so a change rolled back within the call
 * is no change), and at the end hands what changed to the journal as one entry. Main thread.
 */
import type { CallChanges, FileImage, RecordNote } from '../files/changes.ts';
import type { EntryKind } from './entries.ts';

export interface Change {
  real: string;
  before: FileImage | undefined;
  after: FileImage | undefined;
}

/** What an entry is, besides its files: a call's tool and origin, or a restore's entries. */
export interface EntryWhat {
  kind: EntryKind;
  tool?: string;
  run?: string;
  turn?: number;
  undoes?: number[];
}

/** What a recording asks of the journal: to write one entry. */
export interface EntryWriter {
  write(e: EntryWhat & { files: Change[]; dirs: string[] }): Promise<RecordNote>;
}

const same = (a: FileImage | undefined, b: FileImage | undefined) =>
  a === undefined || b === undefined ? a === b : a.mode === b.mode && a.bytes.equals(b.bytes);

export class Recording implements CallChanges {
  readonly #files = new Map<string, Change>();
  readonly #dirs: string[] = [];
  readonly #to: EntryWriter;
  readonly #what: EntryWhat;

  constructor(to: EntryWriter, what: EntryWhat) {
    this.#to = to;
    this.#what = what;
  }

  file(real: string, before: FileImage | undefined, after: FileImage | undefined): void {
    const seen = this.#files.get(real);
    if (seen) seen.after = after;
    else this.#files.set(real, { real, before, after });
  }

  dir(real: string): void {
    this.#dirs.push(real);
  }

  /** The files that changed, in the order they were first told. */
  changed(): Change[] {
    return [...this.#files.values()].filter((c) => !same(c.before, c.after));
  }

  /** Writes the entry; `always`: even when no file changed (a restore that found everything in place). */
  finish(always = false): Promise<RecordNote> {
    const files = this.changed();
    // Directories made with no file (a command's mkdir) are a change too: undo removes them.
    if (files.length === 0 && this.#dirs.length === 0 && !always) return Promise.resolve(undefined);
    return this.#to.write({ ...this.#what, files, dirs: this.#dirs });
  }
}
