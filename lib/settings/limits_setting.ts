/**
 * The command limits the settings files give: the user's file sets them (raising or lowering the
 * defaults), a project's or local file may only tighten them — a budget keeps a fork bomb from taking
 * the machine down, and a cloned repository must not be able to lift it, trusted or not. Main thread.
 */
import { DEFAULT_LIMITS, LIMIT_NAMES, type Limits, parseLimit, tighter } from '../core/limits.ts';
import type { SettingsFile } from './settings_file.ts';

export function limitsOf(files: readonly SettingsFile[]): Limits {
  const parsed = (f: SettingsFile): Partial<Limits> => {
    const out: Partial<Limits> = {};
    for (const name of LIMIT_NAMES) {
      const text = f.settings.limits?.[name];
      if (text === undefined) continue;
      const r = parseLimit(name, String(text)); // checked when the file was read
      if (r.ok) out[name] = r.value;
    }
    return out;
  };
  const user = files.find((f) => f.level === 'user');
  let limits: Limits = { ...DEFAULT_LIMITS, ...(user ? parsed(user) : {}) };
  for (const f of files) if (f.level !== 'user') limits = tighter(limits, parsed(f));
  return limits;
}
