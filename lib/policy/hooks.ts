/**
 * PreToolUse hooks: commands from the settings files that see each call before it runs, as JSON on
 * stdin (`{ tool, access, mode, root }` — what the policy sees, never the raw arguments). Exit 2
 * blocks the call with the hook's stderr as the reason; exit 0 lets it go on; anything else is
 * reported and does not block. Main thread.
 */
import { spawn } from 'node:child_process';
import type { Hook } from './rules.ts';

/** `ran`: the commands of the hooks that ran to the end (their matcher took the tool); the blocking one last. */
type HookVerdict =
  | { block: false; notes: string[]; ran: string[] }
  | { block: true; reason: string; notes: string[]; ran: string[] };

export async function runHooks(
  hooks: readonly Hook[],
  tool: string,
  payload: unknown,
  cwd: string,
): Promise<HookVerdict> {
  const notes: string[] = [];
  const ran: string[] = [];
  for (const h of hooks) {
    if (h.matcher && !h.matcher.test(tool)) continue;
    const r = await runOne(h, JSON.stringify(payload), cwd);
    ran.push(h.command);
    if (r.code === 2)
      return { block: true, reason: r.stderr.trim() || `blocked by the hook ${JSON.stringify(h.command)}`, notes, ran };
    if (r.code !== 0)
      notes.push(
        `hook ${JSON.stringify(h.command)} ${r.code === null ? 'timed out' : `exited ${r.code}`}${r.stderr ? `: ${r.stderr.trim().slice(0, 200)}` : ''}`,
      );
  }
  return { block: false, notes, ran };
}

function runOne(h: Hook, input: string, cwd: string): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn('sh', ['-c', h.command], { cwd, stdio: ['pipe', 'ignore', 'pipe'], detached: true });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => {
      if (stderr.length < 10_000) stderr += c.toString();
    });
    const timer = setTimeout(() => {
      try {
        if (child.pid) process.kill(-child.pid, 'SIGKILL');
      } catch {}
      resolve({ code: null, stderr });
    }, h.timeoutMs);
    child.on('error', (e) => {
      clearTimeout(timer);
      resolve({ code: 127, stderr: e.message });
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr });
    });
    child.stdin.on('error', () => {}); // a hook that does not read its input
    child.stdin.end(input);
  });
}
