/**
 * --base-url from the command line and baseURL for the library: a URL that cannot be one is a usage
 * error at once (exit 2, no request, no retry), a missing key beside a base URL points at
 * --provider openai, and Anthropic's path is the SDK's `/v1/messages` whether or not the URL given
 * ends in `/v1` (the scripted server records the path each request reached).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { makeProvider } from '../../lib/llm/providers.ts';
import { runCli } from '../helpers/cli.ts';
import { startModel } from '../helpers/fake_model.ts';
import { tempDir } from '../helpers/temp.ts';

const root = tempDir();
const env = { HOME: tempDir(), ANTHROPIC_API_KEY: 'k', MEWCODE_RETRY_BASE_MS: '1' };

const refused: [string, string, RegExp][] = [
  [
    'no scheme',
    'localhost:1234/v1',
    /--base-url "localhost:1234\/v1" has no scheme: write it as http:\/\/localhost:1234\/v1/,
  ],
  [
    'an unknown scheme',
    'ftp://127.0.0.1/v1',
    /has the scheme ftp; the model APIs are reached over http:\/\/ or https:\/\//,
  ],
  ['a port past 65535', 'http://127.0.0.1:99999/v1', /is not a valid URL \(check the host and the port, 1 to 65535\)/],
  ['port 0', 'http://127.0.0.1:0/v1', /has port 0/],
  ['nothing', '', /--base-url is empty/],
];

for (const [what, url, message] of refused) {
  test(`agent CLI: --base-url with ${what} is a usage error at once, with no request tried`, async () => {
    const r = await runCli(['--root', root, '--base-url', url, 'hello there'], { env });
    assert.equal(r.code, 2, r.err);
    assert.match(r.err, message);
    assert.doesNotMatch(r.err, /retrying/);
  });
}

test('agent CLI: --base-url without a key names --provider openai', async () => {
  const r = await runCli(['--root', root, '--base-url', 'http://127.0.0.1:1/v1', 'hello there'], {
    env: { ...env, ANTHROPIC_API_KEY: undefined },
  });
  assert.equal(r.code, 2);
  assert.match(
    r.err,
    /No API key for anthropic: set ANTHROPIC_API_KEY, or add --provider openai if http:\/\/127\.0\.0\.1:1\/v1 is an OpenAI-compatible server/,
  );
});

test('agent CLI: an Anthropic base URL ending in /v1 reaches /v1/messages, not /v1/v1/messages', async () => {
  for (const suffix of ['/v1', '/v1/', '']) {
    const model = await startModel([{ text: 'hi' }]);
    const r = await runCli(
      ['--root', root, '--base-url', `${model.url}${suffix}`, '--output-format', 'stream-json', 'hello there'],
      { env },
    );
    assert.equal(r.code, 0, r.err);
    assert.deepEqual(
      model.requests.map((q) => q.path),
      ['/v1/messages'],
      suffix,
    );
    assert.equal(JSON.parse(r.out.split('\n')[0] ?? '').url, `${model.url}/v1/messages`);
    await model.close();
  }
});

test('makeProvider: the library says the same, naming baseURL or the variable it came from', () => {
  const bad = makeProvider({ provider: 'openai', baseURL: 'localhost:11434/v1' });
  assert.deepEqual(bad, {
    ok: false,
    error: 'baseURL "localhost:11434/v1" has no scheme: write it as http://localhost:11434/v1 (or https://).',
  });
  const fromEnv = makeProvider({ provider: 'anthropic', apiKey: 'k', env: { ANTHROPIC_BASE_URL: 'gopher://x' } });
  assert.ok(!fromEnv.ok && fromEnv.error.startsWith('ANTHROPIC_BASE_URL "gopher://x" has the scheme gopher'));
  const openai = makeProvider({ provider: 'openai', baseURL: 'http://127.0.0.1:11434/v1/' });
  assert.ok(openai.ok);
  assert.equal(openai.value.url, 'http://127.0.0.1:11434/v1/chat/completions');
});
