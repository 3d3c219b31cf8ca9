import assert from 'node:assert/strict';
import { test } from 'node:test';
import { escapeControl, hasUnsafe, quote } from '../../lib/core/text.ts';

test('text: every character that can hide or reorder text is escaped visibly', () => {
  const hidden: [string, string][] = [
    ['\u0000', '\\u0000'],
    ['\u001b', '\\u001b'],
    ['\u007f', '\\u007f'],
    ['\u009b', '\\u009b'], // C1 CSI
    ['\u009d', '\\u009d'], // C1 OSC
    ['\u061c', '\\u061c'], // Arabic letter mark
    ['\u115f', '\\u115f'],
    ['\u1160', '\\u1160'],
    ['\u180e', '\\u180e'],
    ['\u200b', '\\u200b'],
    ['\u200e', '\\u200e'],
    ['\u200f', '\\u200f'],
    ['\u2028', '\\u2028'],
    ['\u2029', '\\u2029'],
    ['\u202a', '\\u202a'],
    ['\u202e', '\\u202e'],
    ['\u2060', '\\u2060'],
    ['\u2064', '\\u2064'],
    ['\u2066', '\\u2066'],
    ['\u2069', '\\u2069'],
    ['\u3164', '\\u3164'], // Hangul filler: renders as blank space
    ['\ufeff', '\\ufeff'],
    ['\uffa0', '\\uffa0'],
    ['\u{e0001}', '\\u{e0001}'], // tag characters
    ['\u{e0041}', '\\u{e0041}'],
    ['\u{e007f}', '\\u{e007f}'],
    ['\n', '\\n'],
    ['\t', '\\t'],
    ['\r', '\\r'],
  ];
  for (const [c, shown] of hidden) {
    assert.equal(escapeControl(`a${c}b`), `a${shown}b`, JSON.stringify(c));
    assert.ok(hasUnsafe(`a${c}b`), JSON.stringify(c));
  }
});

test('text: ordinary text, including non-Latin scripts and emoji, is left as it is', () => {
  for (const s of ['src/main.ts', 'café', 'дом', '日本語', 'مرحبا', '😀 👍🏽', 'a b', '\u00a0nbsp']) {
    assert.equal(escapeControl(s), s);
    assert.ok(!hasUnsafe(s), s);
  }
  assert.equal(quote('evil\u202etxt.exe'), '"evil\\u202etxt.exe"');
});
