/**
 * The agent from the command line, the real program against the scripted server: stream-json events,
 * tool activity labelled in call order, a denied call's grant flag, "1 turn", cut and empty answers
 * exiting 1, retries on stderr, the model chosen by --model / MEWCODE_MODEL / settings / a default
 * that the installed SDK does not list as deprecated.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { test } from 'node:test';
import { DEFAULT_MODELS } from '../../lib/llm/providers.ts';
import { runCli } from '../helpers/cli.ts';
import { refusingUrl, type ScriptTurn, startModel } from '../helpers/fake_model.ts';
import { REPO } from '../helpers/repo.ts';
import { tempDir, writeTree } from '../helpers/temp.ts';
import { onTerminal } from '../helpers/terminal.ts';

const home = tempDir();
const baseEnv = {
  ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(ANTHROPIC|OPENAI|MEWCODE)_/.test(k))),
  HOME: home,
  ANTHROPIC_API_KEY: 'k',
  MEWCODE_RETRY_BASE_MS: '1',
};

async function cli(
  provider: 'anthropic' | 'openai',
  script: ScriptTurn[],
  args: string[],
  env: NodeJS.ProcessEnv = {},
) {
  const model = await startModel(script);
  const root = tempDir();
  writeTree(root, { 'README.md': '# demo\n\tindented\n', 'src/a.ts': 'export const demo = 1;\n' });
  const base = provider === 'openai' ? `${model.url}/v1` : model.url;
  const r = await run(['--root', root, '--provider', provider, '--base-url', base, ...args], { ...baseEnv, ...env });
  return { ...r, model, root };
}

for (const provider of ['anthropic', 'openai'] as const) {
  test(`agent CLI (${provider}): --output-format stream-json prints one event per line, tool events carry the call id`, async () => {
    const r = await cli(
      provider,
      [
        {
          text: 'Looking.',
          calls: [
            { name: 'read_file', input: { file_path: 'README.md' } },
            { name: 'grep', input: { pattern: 'demo' } },
          ],
        },
        { text: 'A demo.' },
      ],
      ['--output-format', 'stream-json', 'what is this project'],
    );
    assert.equal(r.code, 0, r.err);
    const events = r.out
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const types = events.map((e) => e.type);
    assert.equal(types[0], 'start');
    assert.equal(types[1], 'turn_start');
    assert.deepEqual(types.slice(-1), ['result']);
    const starts = events.filter((e) => e.type === 'tool_start');
    const ends = events.filter((e) => e.type === 'tool_end');
    assert.deepEqual(
      starts.map((e) => [e.name, e.id]),
      provider === 'anthropic'
        ? [
            ['read_file', 'toolu_1_0'],
            ['grep', 'toolu_1_1'],
          ]
        : [
            ['read_file', 'call_1_0'],
            ['grep', 'call_1_1'],
          ],
    );
    assert.deepEqual(new Set(ends.map((e) => e.id)), new Set(starts.map((e) => e.id)));
    assert.equal(
      events
        .filter((e) => e.type === 'text_delta')
        .map((e) => e.text)
        .join(''),
      'Looking.A demo.',
    );
    assert.deepEqual(
      events.filter((e) => e.type === 'usage').map((e) => e.total_input_tokens),
      [5, 10],
    );
    const result = events.at(-1) as Record<string, unknown>;
    assert.deepEqual(
      [result.ok, result.answer, result.turns, result.usage],
      [true, 'A demo.', 2, { input_tokens: 10, output_tokens: 18 }],
    );
  });

  test(`agent CLI (${provider}): activity is labelled in call order, without literal tabs; a denial keeps its flag; "1 turn"`, async () => {
    const r = await cli(
      provider,
      [
        {
          calls: [
            { name: 'read_file', input: { file_path: 'README.md' } },
            { name: 'grep', input: { pattern: 'demo', output_mode: 'files_with_matches' } },
            {
              name: 'write_file',
              input: { file_path: 'notes/a-rather-long-name-for-a-file-that-pushes-the-flag-out.txt', content: 'x' },
            },
          ],
        },
        { text: 'Done.' },
      ],
      ['describe the project'],
    );
    assert.equal(r.code, 0, r.err);
    const lines = r.err.trimEnd().split('\n');
    assert.deepEqual(lines.slice(0, 2), ['● read_file(README.md)', '● grep(demo)']);
    assert.equal(lines[2], '  ⎿ read_file(README.md): 1 # demo (+1 line)');
    assert.match(lines[3] ?? '', /^ {2}⎿ grep\(demo\): /);
    assert.equal(lines[4], '● write_file(notes/a-rather-long-name-for-a-file-that-pushes-the-flag-out.txt)');
    // The flag the policy named (its folder), though the preview clipped the path before it.
    assert.match(
      lines[5] ?? '',
      /^ {2}⎿ error \(permission_denied\): Permission needed: write_file .*… \(run again with --allow-write=notes\)$/,
    );
    assert.ok(!r.err.includes('\\t'), r.err);
    assert.equal(lines.at(-1), 'mewcode: 2 turns, 10 input tokens, 18 output tokens');
    const one = await cli(provider, [{ text: 'Hi.' }], ['say hi']);
    assert.equal(one.err, 'mewcode: 1 turn, 5 input tokens, 9 output tokens\n');
  });

  test(`agent CLI (${provider}): a cut answer and an empty answer exit 1 with a message; a retry is shown on stderr`, async () => {
    const cut = await cli(provider, [{ text: 'The answer is', outputLimit: true }], ['explain it all']);
    assert.equal(cut.code, 1);
    assert.equal(cut.out, 'The answer is\n');
    assert.match(cut.err, /mewcode: the answer was cut off by the output limit \(8192 tokens\)/);
    const empty = await cli(provider, [{}], ['say nothing']);
    assert.equal(empty.code, 1);
    assert.match(empty.err, /mewcode: the model answered with an empty message/);
    const retried = await cli(
      provider,
      [{ status: 529, retryAfter: null }, { stall: true }, { text: 'Here.' }],
      ['try hard'],
      { MEWCODE_STREAM_IDLE_MS: '3000' },
    );
    assert.equal(retried.code, 0, retried.err);
    assert.equal(retried.out, 'Here.\n');
    const retries = retried.err.split('\n').filter((l) => l.startsWith('mewcode: retrying'));
    assert.deepEqual(
      retries.map((l) => l.replace(/in [\d.]+ s/, 'in N s')),
      [
        'mewcode: retrying in N s (overloaded, attempt 2 of 5)',
        'mewcode: retrying in N s (stream stalled, attempt 3 of 5)',
      ],
    );
  });
}

test('agent CLI: the model is --model, else MEWCODE_MODEL, else the settings, else a current default', async () => {
  const modelOf = (r: { model: { requests: { body: Record<string, unknown> }[] } }) => r.model.requests[0]?.body.model;
  const plain = await cli('anthropic', [{ text: 'ok' }], ['hello there']);
  assert.equal(modelOf(plain), DEFAULT_MODELS.anthropic);
  assert.ok(!/deprecated|end-of-life/.test(plain.err), plain.err);
  writeTree(home, { '.mewcode/settings.json': JSON.stringify({ model: 'from-settings' }) });
  try {
    assert.equal(modelOf(await cli('anthropic', [{ text: 'ok' }], ['hello there'])), 'from-settings');
    const env = { MEWCODE_MODEL: 'from-env' };
    assert.equal(modelOf(await cli('anthropic', [{ text: 'ok' }], ['hello there'], env)), 'from-env');
    assert.equal(modelOf(await cli('openai', [{ text: 'ok' }], ['--model', 'flag', 'hello there'], env)), 'flag');
  } finally {
    writeTree(home, { '.mewcode/settings.json': '{}' });
  }
});

test('default models: current models of the installed SDKs, none in their deprecated lists', async () => {
  const require = createRequire(path.join(REPO, 'package.json'));
  const sdk = path.dirname(require.resolve('@anthropic-ai/sdk'));
  const { DEPRECATED_MODELS } = (await import(path.join(sdk, 'internal/data/deprecated-models.js'))) as {
    DEPRECATED_MODELS: Record<string, string>;
  };
  assert.ok(Object.keys(DEPRECATED_MODELS).length > 0);
  assert.ok(!(DEFAULT_MODELS.anthropic in DEPRECATED_MODELS), `${DEFAULT_MODELS.anthropic} is deprecated`);
  const anthropicModels = readFileSync(path.join(sdk, 'resources/messages/messages.d.ts'), 'utf8');
  assert.match(anthropicModels, new RegExp(`export type Model = [^;]*'${DEFAULT_MODELS.anthropic}'`));
  const openaiTypes = readFileSync(path.join(path.dirname(require.resolve('openai')), 'resources/shared.d.ts'), 'utf8');
  assert.match(openaiTypes, new RegExp(`export type ChatModel = [^;]*'${DEFAULT_MODELS.openai.replace('.', '\\.')}'`));
  assert.ok(!/deprecated/i.test(/ChatModel = ([^;]*);/.exec(openaiTypes)?.[1] ?? ''));
});

test('agent CLI: a refused connection names the URL it tried', async () => {
  const url = await refusingUrl();
  const r = await run(['--root', tempDir(), '--base-url', url, 'hello there'], {
    ...baseEnv,
    MEWCODE_RETRY_BASE_MS: '1',
  });
  assert.equal(r.code, 1);
  assert.match(
    r.err,
    new RegExp(`mewcode: anthropic \\(${url}/v1/messages\\): the connection failed \\(ECONNREFUSED\\)`),
  );
  assert.match(r.err, /retrying in [\d.]+ s \(connection failed, attempt 2 of 5\)/);
});

const run = (args: string[], env: NodeJS.ProcessEnv) => runCli(args, { env });

test('agent CLI: an edit shows its diff below its result line, at most 20 lines of it', async () => {
  const long = Array.from({ length: 30 }, (_, i) => `line ${i}`).join('\n');
  const r = await cli(
    'anthropic',
    [
      { calls: [{ name: 'read_file', input: { file_path: 'src/a.ts' } }] },
      {
        calls: [
          { name: 'edit_file', input: { file_path: 'src/a.ts', old_string: 'demo = 1', new_string: 'demo = 2' } },
          { name: 'write_file', input: { file_path: 'src/a.ts', content: `${long}\n` } },
        ],
      },
      { text: 'Changed.' },
    ],
    ['--allow-write=src', 'change the demo'],
  );
  assert.equal(r.code, 0, r.err);
  const lines = r.err.trimEnd().split('\n');
  const edit = lines.indexOf('● edit_file(src/a.ts)');
  assert.deepEqual(lines.slice(edit, edit + 5), [
    '● edit_file(src/a.ts)',
    '  ⎿ Edited "src/a.ts": 1 replacement (line 1). (+5 lines)',
    '      @@ -1,1 +1,1 @@',
    '      -export const demo = 1;',
    '      +export const demo = 2;',
  ]);
  const write = lines.indexOf('● write_file(src/a.ts)');
  assert.match(lines[write + 1] ?? '', /^ {2}⎿ Overwrote "src\/a\.ts" /);
  assert.deepEqual(lines.slice(write + 2, write + 5), [
    '      @@ -1,1 +1,30 @@',
    '      -export const demo = 2;',
    '      +line 0',
  ]);
  assert.equal(lines[write + 22], '      … 12 more lines of the diff');
  assert.equal(lines[write + 23], 'mewcode: 3 turns, 15 input tokens, 27 output tokens');
});

test('agent CLI: a run that fails ends with its totals, after the error', async () => {
  const r = await cli(
    'anthropic',
    [{ calls: [{ name: 'read_file', input: { file_path: 'README.md' } }] }, { status: 401 }],
    ['read it'],
  );
  assert.equal(r.code, 1);
  const lines = r.err.trimEnd().split('\n');
  assert.match(lines.at(-2) ?? '', /^mewcode: anthropic \(http:\/\/127\.0\.0\.1:\d+\/v1\/messages\): .*401/);
  assert.equal(lines.at(-1), 'mewcode: 2 turns, 5 input tokens, 9 output tokens');
});

test('agent CLI: on a terminal a status line says it is waiting for the model, erased by what comes next; never in a pipe', async () => {
  const model = await startModel([
    { calls: [{ name: 'read_file', input: { file_path: 'README.md' } }] },
    { text: 'A demo.' },
  ]);
  const root = tempDir();
  writeTree(root, { 'README.md': '# demo\n' });
  const args = ['--root', root, '--base-url', model.url, 'what is it'];
  const shown = await onTerminal(args, { env: { HOME: home, ANTHROPIC_API_KEY: 'k' } });
  assert.equal(shown.code, 0, shown.screen);
  // Each turn shows it (two turns), and the next thing printed erases it from the start of its line.
  const count = (s: string) => shown.screen.split(s).length - 1;
  assert.equal(count('… waiting for the model'), 2, shown.screen);
  assert.equal(count('… waiting for the model\u001b[K'), 2, shown.screen);
  assert.ok(shown.screen.includes('… waiting for the model\u001b[K● read_file(README.md)\n'), shown.screen);
  assert.ok(shown.screen.includes('… waiting for the model\u001b[KA demo.'), shown.screen);
  const piped = await cli('anthropic', [{ text: 'Hi.' }], ['say hi']);
  assert.doesNotMatch(piped.err, /waiting/);
});
