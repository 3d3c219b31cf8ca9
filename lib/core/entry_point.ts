/** Whether a module is the program node was started on, or was imported by another. */
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** True when the module at `moduleUrl` (its `import.meta.url`) was started as the program. */
export function isProgram(moduleUrl: string): boolean {
  const entry = process.argv[1];
  if (!entry) return false;
  try {
    // Node starts a program through symlinks by its real path (unless --preserve-symlinks-main).
    return realpathSync(entry) === realpathSync(fileURLToPath(moduleUrl));
  } catch {
    return false;
  }
}
