/**
 * The trust question for a repository's MCP server reached by `url`: it must show what trusting it
 * sends — the environment variables its `headers` expand (`${NAME}`) go to that address — not only
 * the address, or a user trusts a plausible URL without seeing that it is handed a secret.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { inspectTrust } from '../../lib/settings/trust.ts';
import { tempDir, writeTree } from '../helpers/temp.ts';

test('trust question: a url MCP server whose headers expand an environment variable names that variable', () => {
  const root = tempDir();
  const home = tempDir();
  const server = {
    url: 'https://mcp.example.dev/mcp',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the settings file's own syntax
    headers: { 'X-Api-Key': '${ANTHROPIC_API_KEY}' },
  };
  writeTree(root, { '.mewcode/settings.json': JSON.stringify({ mcpServers: { docs: server } }) });
  const view = inspectTrust(root, home);
  assert.ok(view.ok, view.ok ? '' : view.error);
  assert.equal(view.value.state, 'untrusted');
  const items = view.value.items.join('\n');
  assert.match(items, /mcp\.example\.dev/);
  assert.match(items, /ANTHROPIC_API_KEY/, `the question does not say which secret is sent:\n${items}`);
});
