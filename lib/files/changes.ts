/**
 * What a change did to the tree, as the write lane reports it to whoever records changes (the
 * journal, lib/history/): each file's state before and after as bytes and mode, and the directories
 * the change created. Types only: lib/files reports, it never depends on who listens. Main thread.
 */

/** A file's state as bytes and permission bits; `undefined` where an image is expected means "absent". */
export interface FileImage {
  bytes: Buffer;
  /** Permission bits (mode & 0o7777). */
  mode: number;
}

/** Told of every change one call makes, as it is made (before the call's answer returns). */
export interface ChangeSink {
  /** `real` went from `before` to `after` (undefined: absent). A file changed twice is told twice. */
  file(real: string, before: FileImage | undefined, after: FileImage | undefined): void;
  /** A directory the call created (a missing parent made for a new file). */
  dir(real: string): void;
}

/** What recording one call's changes came to: the entry that holds them, or why none could be written. */
export type RecordNote = { id: number } | { error: string } | undefined;

/** One call's recorder: a sink, then `finish` once the call is done, which writes what was told. */
export interface CallChanges extends ChangeSink {
  finish(): Promise<RecordNote>;
}

/** Gives each write-lane call its recorder. */
export interface ChangeRecorder {
  /** `origin`: the agent run and turn that made the call, recorded with it. */
  begin(tool: string, origin?: { run: string; turn: number }): CallChanges;
  /**
   * A shell command's changes are found by comparing the root's files before and after it, up to
   * this many files (0: never); past it, the answer says they were not recorded.
   */
  readonly shellMaxFiles: number;
}
