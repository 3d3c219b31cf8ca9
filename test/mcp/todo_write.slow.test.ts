/**
 * todo_write over MCP, with the SDK's own client: listed read-only and closed-world, a plan written
 * and read back — the answer's checklist and its items as structuredContent — then updated against
 * the plan the server kept; a refused plan is an error result with its code, and leaves the plan.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { mcpClient, resultText } from '../helpers/mcp_client.ts';
import { tempDir } from '../helpers/temp.ts';

test('mcp server: a client writes a plan, reads it back as data, and updates the plan the server kept', async () => {
  const { client } = await mcpClient({ root: tempDir() });
  const { tools } = await client.listTools();
  const listed = tools.find((t) => t.name === 'todo_write');
  assert.deepEqual(
    [listed?.annotations?.readOnlyHint, listed?.annotations?.destructiveHint, listed?.annotations?.openWorldHint],
    [true, false, false],
  );
  const first = [
    { content: 'Reproduce the bug', status: 'in_progress' },
    { content: 'Fix it', status: 'pending' },
  ];
  const wrote = await client.callTool({ name: 'todo_write', arguments: { todos: first } });
  assert.equal(wrote.isError, false, resultText(wrote));
  assert.deepEqual(wrote.structuredContent, { todos: first });
  assert.equal(
    resultText(wrote),
    'Plan updated (0 of 2 completed):\n[>] Reproduce the bug\n[ ] Fix it\nNow: "Reproduce the bug". Mark it completed as soon as it is done, then start "Fix it".',
  );

  const refused = await client.callTool({
    name: 'todo_write',
    arguments: { todos: first.map((t) => ({ ...t, status: 'in_progress' })) },
  });
  assert.equal(refused.isError, true);
  assert.equal((refused.structuredContent as { code: string }).code, 'invalid_args');
  assert.match(resultText(refused), /2 items are in_progress \("Reproduce the bug", "Fix it"\)/);

  // The server kept the first plan for its client (the refusal changed nothing): the update is told against it.
  const second = [
    { content: 'Reproduce the bug', status: 'completed' },
    { content: 'Fix it', status: 'in_progress' },
  ];
  const updated = await client.callTool({ name: 'todo_write', arguments: { todos: second } });
  assert.deepEqual(updated.structuredContent, { todos: second });
  assert.match(
    resultText(updated),
    /^Plan updated \(1 of 2 completed; since the last update: completed "Reproduce the bug", started "Fix it"\):/,
  );
});
