/**
 * bash's part in the journal: the root's state taken before the command, what the command changed
 * told to the call's journal entry after it, and the lines the answer gives for what could not be
 * recorded (lib/history/shell_after.ts says why each). Nothing is taken when the journal is off.
 */
import type { ChangeSink } from '../files/changes.ts';
import { afterCommand, type NotRecorded, tooMany } from '../history/shell_after.ts';
import { beforeCommand, newShellKept, type ShellBefore, shellLimit } from '../history/shell_before.ts';
import type { ShellScope } from '../lanes/write_context.ts';

/** At most this many paths are named in the answer; meta.notRecorded has them all. */
const SHOWN = 10;

export interface ShellJournal {
  /** After the command: records what changed; what could not be recorded, for the answer. */
  finish(): Promise<NotRecorded[]>;
}

const missed = (why: string): ShellJournal => ({ finish: () => Promise.resolve([{ path: '.', why }]) });

export async function startShellJournal(
  root: string,
  sink: ChangeSink | undefined,
  scope: ShellScope | undefined,
): Promise<ShellJournal | undefined> {
  if (!sink || !scope) return undefined;
  if (scope.maxFiles === 0) return missed(tooMany(0, ''));
  scope.seen.kept ??= newShellKept();
  const kept = scope.seen.kept;
  const over = (when: string) => tooMany(shellLimit(scope.maxFiles, kept), when, kept.walkOnly);
  if (scope.seen.overSince !== undefined) return missed(over(overWhen(scope.seen.overSince)));
  let found: ShellBefore | undefined;
  try {
    found = await beforeCommand(root, scope, kept);
  } catch (e) {
    return missed(`the journal could not take the root's state before the command (${(e as Error).message})`);
  }
  if (!found) {
    overLimit(scope);
    return missed(over('before the command'));
  }
  const before = found;
  if (before.waitMs > 0) await new Promise((resolve) => setTimeout(resolve, before.waitMs));
  return {
    async finish() {
      try {
        const found = await afterCommand(before, sink);
        if (found.cut) overLimit(scope);
        return found.notRecorded;
      } catch (e) {
        return [
          { path: '.', why: `the journal could not compare the root after the command (${(e as Error).message})` },
        ];
      }
    },
  };
}

/** The root is over the limit: this runtime compares no more commands, and lets go of what it kept. */
function overLimit(scope: ShellScope): void {
  scope.seen.overSince = Date.now();
  scope.seen.kept?.live?.close();
  scope.seen.kept = undefined;
}

const overWhen = (ms: number) =>
  `when this runtime counted them (${new Date(ms).toISOString()}; a new runtime counts again)`;

/** The answer's line for what the journal could not record; '' when everything was. */
export function notRecordedText(missed: readonly NotRecorded[]): string {
  if (missed.length === 0) return '';
  const shown = missed.slice(0, SHOWN).map((m) => `  ${m.path}: ${m.why}`);
  const more = missed.length > SHOWN ? [`  … and ${missed.length - SHOWN} more (meta.notRecorded lists them)`] : [];
  return `\n(Changed by the command but not recorded in the journal, so mewcode undo cannot take these back:\n${[...shown, ...more].join('\n')})`;
}

/** What a background job's start answer says when the journal is on. */
export const JOB_NOT_JOURNALED =
  ' Changes the job makes are not recorded in the journal (mewcode undo cannot take them back): run a command in the foreground to have them recorded.';
