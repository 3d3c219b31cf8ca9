/**
 * The system prompt: who the agent is, the environment it works in (root, platform, date, git state),
 * how to use the tools well, and the skills sections (filled by the skills part). Main thread.
 */
import { spawnSync } from 'node:child_process';
import os from 'node:os';

interface PromptContext {
  root: string;
  mode: string;
  date?: Date;
  /** Skill catalog lines ("name: description"), when skills exist. */
  skills?: readonly string[];
  /** Bodies of skills loaded with load_skill, pinned for the following turns. */
  activeSkills?: readonly { name: string; body: string }[];
}

export function systemPrompt(c: PromptContext): string {
  const date = (c.date ?? new Date()).toISOString().slice(0, 10);
  const parts = [
    'You are MewCode, a coding agent. You work in one project through tools, and finish the task you are given.',
    `# Environment\n- Root: ${c.root} (every path is relative to it)\n- Platform: ${os.platform()} ${os.release()}\n- Date: ${date}\n- Permission mode: ${c.mode}${gitState(c.root)}`,
    [
      '# Using the tools',
      '- Find files with glob and search contents with grep before reading; read only what you need (read_file takes offset and limit).',
      '- Read a file before you change it; change parts with edit_file or multi_edit, whole files with write_file, many files with apply_patch.',
      '- Copy old_string exactly as read_file shows it, without the line-number prefix. If an edit fails, read the error: it says what differs.',
      '- Run commands with bash; it has no terminal and no stdin, and background jobs end with the command.',
      '- Independent read-only calls in one turn run in parallel; changes run one at a time, in order.',
      '- For work of three steps or more, keep a plan with todo_write: one item in_progress at a time, each marked completed as soon as it is done.',
      '- When a call is denied, do not retry it in another form; work within what is allowed or say what you need.',
    ].join('\n'),
  ];
  if (c.skills?.length)
    parts.push(
      `# Skills\nLoad one with load_skill when it fits the task:\n${c.skills.map((s) => `- ${s}`).join('\n')}`,
    );
  for (const s of c.activeSkills ?? []) parts.push(`# Active skill: ${s.name}\n${s.body}`);
  return parts.join('\n\n');
}

function gitState(root: string): string {
  const r = spawnSync('git', ['status', '--short', '--branch'], { cwd: root, encoding: 'utf8', timeout: 2000 });
  if (r.status !== 0 || !r.stdout) return '';
  const lines = r.stdout.trim().split('\n');
  const shown = lines.slice(0, 20).join('\n  ');
  return `\n- Git:\n  ${shown}${lines.length > 20 ? `\n  … ${lines.length - 20} more changed files` : ''}`;
}
