import { test } from 'node:test';
import { requireTool, SYSTEM_TOOLS } from './helpers/system_tools.ts';

// The parity tests compare with ripgrep, the sandbox tests run under bubblewrap, the ignore tests ask
// git, and the benchmark's smoke run compares with fd. Missing, they fail here by name (and in the
// tests that use them) instead of being skipped, so a green run means they all ran.
for (const tool of Object.keys(SYSTEM_TOOLS) as (keyof typeof SYSTEM_TOOLS)[]) {
  test(`system tools: ${SYSTEM_TOOLS[tool].commands.join(' or ')} is installed (apt-get install ${SYSTEM_TOOLS[tool].apt})`, () => {
    requireTool(tool);
  });
}
