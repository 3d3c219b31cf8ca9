/**
 * The HTTP listener's guard, piece by piece: listen addresses, the token file (made 0600 and reused,
 * refused when others may read it or it is short), the bearer comparison, and the Origin and Host
 * rules against DNS rebinding; and the session event store's replay after a Last-Event-ID.
 */
import assert from 'node:assert/strict';
import { chmodSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { SessionEventStore } from '../../lib/mcp/event_store.ts';
import { bearerMatches, loadToken, originRefusal, parseListen } from '../../lib/mcp/http_guard.ts';
import { tempDir } from '../helpers/temp.ts';

test('http guard: listen addresses, loopback or not', () => {
  assert.deepEqual(parseListen(undefined), { ok: true, value: { host: '127.0.0.1', port: 8431, loopback: true } });
  assert.deepEqual(parseListen('9000'), { ok: true, value: { host: '127.0.0.1', port: 9000, loopback: true } });
  assert.deepEqual(parseListen('[::1]:7'), { ok: true, value: { host: '::1', port: 7, loopback: true } });
  const open = parseListen('0.0.0.0:80');
  assert.ok(open.ok && !open.value.loopback);
  assert.equal(parseListen('host:99999').ok, false);
  assert.equal(parseListen('a:b:c').ok, false);
});

test('http guard: the token file is made 0600 once and reused; a readable or short one is refused', () => {
  const dir = tempDir();
  const file = path.join(dir, 'sub', 'token');
  const made = loadToken(file);
  assert.ok(made.ok && made.value.created && made.value.token.length >= 43);
  assert.equal(statSync(file).mode & 0o777, 0o600);
  const again = loadToken(file);
  assert.ok(again.ok && !again.value.created && made.ok && again.value.token === made.value.token);
  chmodSync(file, 0o640);
  const readable = loadToken(file);
  assert.ok(!readable.ok && /may be read by others/.test(readable.error));
  const short = path.join(dir, 'short');
  writeFileSync(short, 'abc\n', { mode: 0o600 });
  const tooShort = loadToken(short);
  assert.ok(!tooShort.ok && /shorter than 32/.test(tooShort.error));
});

test('http guard: the bearer must match exactly', () => {
  const token = 'x'.repeat(43);
  assert.equal(bearerMatches(`Bearer ${token}`, token), true);
  assert.equal(bearerMatches(`bearer ${token}`, token), true);
  for (const h of [undefined, '', 'Bearer', `Bearer ${token}y`, `Basic ${token}`, `Bearer ${token.slice(1)}`])
    assert.equal(bearerMatches(h, token), false, String(h));
});

test('http guard: Origin and Host against DNS rebinding', () => {
  const loop = { host: '127.0.0.1', port: 8431, loopback: true };
  assert.equal(originRefusal(undefined, '127.0.0.1:8431', loop, []), undefined);
  assert.equal(originRefusal('http://localhost:6274', 'localhost:8431', loop, []), undefined);
  assert.match(originRefusal('http://evil.example', '127.0.0.1:8431', loop, []) ?? '', /Origin/);
  assert.equal(originRefusal('http://ide.example', '127.0.0.1:8431', loop, ['http://ide.example']), undefined);
  // A rebound name resolves to 127.0.0.1, but the browser still says its name in Host.
  assert.match(originRefusal(undefined, 'evil.example:8431', loop, []) ?? '', /Host/);
  const wide = { host: '10.0.0.5', port: 8431, loopback: false };
  assert.equal(originRefusal(undefined, 'box.internal:8431', wide, []), undefined);
  assert.equal(originRefusal('https://10.0.0.5', '10.0.0.5:8431', wide, []), undefined);
  assert.match(originRefusal('https://evil.example', '10.0.0.5:8431', wide, []) ?? '', /Origin/);
});

test('event store: replays a stream’s events after the id given, priming events left out, oldest forgotten', async () => {
  const store = new SessionEventStore(4);
  const prime = await store.storeEvent('s1', {} as never);
  const a = await store.storeEvent('s1', { jsonrpc: '2.0', method: 'a' });
  await store.storeEvent('s2', { jsonrpc: '2.0', method: 'other' });
  await store.storeEvent('s1', { jsonrpc: '2.0', method: 'b' });
  const sent: string[] = [];
  const send = async (_id: string, m: unknown) => {
    sent.push((m as { method: string }).method);
  };
  assert.equal(await store.replayEventsAfter(prime, { send }), 's1');
  assert.deepEqual(sent, ['a', 'b']);
  assert.equal(await store.getStreamIdForEventId(a), 's1');
  await store.storeEvent('s1', { jsonrpc: '2.0', method: 'c' });
  assert.equal(store.size, 4);
  assert.equal(await store.getStreamIdForEventId(prime), undefined, 'the oldest was forgotten');
  assert.equal(await store.replayEventsAfter(prime, { send }), '');
});
