/**
 * The addresses web_fetch (and the sandbox's proxy) may reach (lib/web/addresses.ts): loopback,
 * private, link-local, metadata and their IPv6 spellings refused, public ones allowed, a name resolved
 * once with all its addresses checked, an allowed address let through.
 */
import assert from 'node:assert/strict';
import { isIP } from 'node:net';
import { networkInterfaces } from 'node:os';
import { test } from 'node:test';
import { embeddedV4, hostOfUrl, isForbiddenIp, netAccessTo, resolveChecked } from '../../lib/web/addresses.ts';

test('addresses: loopback, private, link-local, metadata, multicast and their IPv6 forms are refused', () => {
  const refused = [
    ['127.0.0.1', '127.255.255.254', '0.0.0.0', '10.1.2.3', '172.16.0.1', '172.31.255.255', '192.168.1.1'],
    ['169.254.169.254', '100.64.0.1', '192.0.0.192', '198.18.0.1', '224.0.0.1', '255.255.255.255'],
    ['::', '::1', '0:0:0:0:0:0:0:1', '::ffff:127.0.0.1', '::ffff:7f00:1', '::ffff:10.0.0.1', '::ffff:169.254.169.254'],
    ['::127.0.0.1', '64:ff9b::127.0.0.1', '64:ff9b::a9fe:a9fe', '2002:7f00:1::', '2002:a9fe:a9fe::1'],
    ['fc00::1', 'fd00:ec2::254', 'fe80::1', 'fe80::1%eth0', 'ff02::1', 'fec0::1', 'not-an-ip', ''],
  ].flat();
  for (const ip of refused) assert.equal(isForbiddenIp(ip), true, ip);
});

test('addresses: public ones (documentation ranges too) are allowed', () => {
  const allowed = ['1.1.1.1', '8.8.8.8', '104.16.0.1', '172.32.0.1', '172.15.255.255', '100.128.0.1', '203.0.113.80'];
  allowed.push('2606:4700::1111', '2a00:1450:4001::200e', '::ffff:8.8.8.8', '64:ff9b::808:808', '2002:808:808::1');
  for (const ip of allowed) assert.equal(isForbiddenIp(ip), false, ip);
  assert.equal(embeddedV4('::ffff:7f00:1'), '127.0.0.1');
  assert.equal(embeddedV4('2002:a9fe:a9fe::'), '169.254.169.254');
  assert.equal(embeddedV4('2606:4700::1111'), undefined);
});

test("addresses: the machine's own interface addresses are refused, whatever their range", () => {
  const own = Object.values(networkInterfaces())
    .flatMap((l) => l ?? [])
    .map((a) => a.address.split('%')[0] as string);
  assert.ok(own.length > 0, 'this machine has no interface address at all');
  for (const ip of own) assert.equal(isForbiddenIp(ip), true, ip);
  const v4 = own.filter((a) => isIP(a) === 4);
  for (const ip of v4) assert.equal(isForbiddenIp(`::ffff:${ip}`), true, `::ffff:${ip}`);
  // A neighbour on an attached network: the machine's LAN, whatever its range.
  const attached = Object.values(networkInterfaces())
    .flatMap((l) => l ?? [])
    .find((a) => a.family === 'IPv4' && !a.internal && Number(a.cidr?.split('/')[1]) <= 30);
  assert.ok(attached, 'this machine has no attached IPv4 network to test with');
  const parts = attached.address.split('.').map(Number);
  const neighbour = [...parts.slice(0, 3), (parts[3] as number) ^ 1 || 1].join('.');
  assert.equal(isForbiddenIp(neighbour), true, neighbour);
});

test('addresses: a URL names its host with its port, and an access to a local literal is local', () => {
  assert.equal(hostOfUrl(new URL('http://127.0.0.1/')), '127.0.0.1:80');
  assert.equal(hostOfUrl(new URL('https://Docs.Example/x')), 'docs.example:443');
  assert.equal(hostOfUrl(new URL('http://[::1]:8080/')), '[::1]:8080');
  assert.deepEqual(netAccessTo('[::ffff:0:127.0.0.1]:80'), {
    kind: 'net',
    host: '[::ffff:0:127.0.0.1]:80',
    local: true,
  });
  assert.deepEqual(netAccessTo('2130706433:80'), { kind: 'net', host: '2130706433:80', local: true });
  assert.deepEqual(netAccessTo('docs.example:443'), { kind: 'net', host: 'docs.example:443' });
  assert.equal(embeddedV4('::ffff:0:7f00:1'), '127.0.0.1');
});

test('addresses: a name is resolved once and refused whole when any of its addresses is private, unless that address is allowed', async () => {
  const table: Record<string, string[]> = {
    'pub.test': ['93.184.216.34'],
    'split.test': ['93.184.216.34', '127.0.0.1'],
    'lo.test': ['127.0.0.1'],
    'mapped.test': ['::ffff:127.0.0.1'],
    'none.test': [],
  };
  let lookups = 0;
  const resolve = async (h: string) => {
    lookups++;
    const found = table[h];
    if (!found) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
    return found.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  assert.deepEqual(await resolveChecked('pub.test', undefined, resolve), { ok: true, addresses: ['93.184.216.34'] });
  assert.equal(lookups, 1);
  const split = await resolveChecked('split.test', undefined, resolve);
  assert.ok(!split.ok && split.reason === 'local' && /127\.0\.0\.1/.test(split.detail), JSON.stringify(split));
  assert.doesNotMatch(split.why, /127\.0\.0\.1/, 'the words told name no internal address');
  assert.equal((await resolveChecked('lo.test', undefined, resolve)).ok, false);
  assert.equal((await resolveChecked('mapped.test', undefined, resolve)).ok, false);
  assert.equal((await resolveChecked('none.test', undefined, resolve)).ok, false);
  assert.equal((await resolveChecked('lo.test', (ip) => ip === '127.0.0.1', resolve)).ok, true);
  assert.equal((await resolveChecked('[::1]', undefined, resolve)).ok, false);
  const missing = await resolveChecked('nope.test', undefined, resolve);
  assert.ok(!missing.ok && /ENOTFOUND/.test(missing.why));
  // The system's resolver: odd spellings of loopback are loopback.
  for (const h of ['127.1', '2130706433', '0x7f000001', '0177.0.0.1', 'localhost'])
    assert.equal((await resolveChecked(h)).ok, false, h);
});
