/**
 * The command blacklist: a heuristic for commands that are almost never meant — wiping the root or
 * a disk, fork bombs, making file systems, opening up /etc. It refuses them in every mode, bypass
 * included. It is defence in depth and easy to get around (quoting, variables, base64, another
 * language): the boundary is the sandbox and the approval, never this list.
 */
import path from 'node:path';
import { analyseCommand, programOf } from '../shell/commands.ts';

const RULES: [RegExp, string][] = [
  [
    /\brm\s+(-[a-zA-Z]*\s+|--[a-z-]+\s+)*(-[a-zA-Z]*[rR][a-zA-Z]*|--recursive)\b[^;&|\n]*\s(\/|\/\*|~|~\/|\$HOME|\/\.\*?)(\s|$|;|&|\|)/,
    'recursive removal of / or home',
  ],
  [/\brm\b[^;&|\n]*--no-preserve-root/, 'rm --no-preserve-root'],
  [/:\s*\(\s*\)\s*\{[^}]*:\s*\|\s*:\s*&[^}]*\}\s*;?\s*:/, 'a fork bomb'],
  [/\bdd\b[^;&|\n]*\bof=\/dev\/(sd|hd|nvme|vd|xvd|mmcblk|disk)/, 'dd onto a disk device'],
  [/>\s*\/dev\/(sd|hd|nvme|vd|xvd|mmcblk|disk)[a-z0-9]*/, 'redirecting onto a disk device'],
  [
    /\bchmod\s+(-[a-zA-Z]*R[a-zA-Z]*|--recursive)\s+0?777\s+(\/|\/etc|\/usr|\/bin|\/var)(\s|$|\/?\s*$)/,
    'chmod -R 777 on a system directory',
  ],
  [/\bchown\s+(-[a-zA-Z]*R[a-zA-Z]*|--recursive)\s+\S+\s+(\/|\/etc|\/usr)(\s|$)/, 'chown -R on a system directory'],
];

/** Programs refused wherever they appear as the program of a simple command. */
const PROGRAMS: [RegExp, string][] = [
  [/^mkfs(\.[a-z0-9]+)?$|^mke2fs$|^mkswap$/, 'making a file system'],
  [/^(shutdown|reboot|halt|poweroff)$/, 'shutting the machine down'],
];

/** The reason a command is blacklisted, or undefined. */
export function blacklisted(command: string): string | undefined {
  const c = command.replace(/\\\n/g, ' ');
  for (const [re, why] of RULES) if (re.test(c)) return why;
  // Every program the line runs, those inside wrappers, eval and sh -c included (shell.ts).
  for (const cmd of analyseCommand(command).commands) {
    const program = programOf(cmd);
    if (program === undefined) continue;
    const name = path.basename(program);
    for (const [re, why] of PROGRAMS) if (re.test(name)) return why;
  }
  return undefined;
}
