/**
 * Terminal control in a command's output never reaches the model or a terminal: the 8-bit C1 forms
 * (U+0080–U+009F, e.g. U+009B CSI and U+009D OSC) are stripped like their ESC forms, together with
 * the parameters and strings they introduce.
 */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { clean } from '../../lib/exec/output.ts';
import { runtimeAt } from '../helpers/runtime.ts';
import { tempDir } from '../helpers/temp.ts';

const C1 = (code: number) => String.fromCharCode(code);
const CSI = C1(0x9b);
const OSC = C1(0x9d);
const ST = C1(0x9c);
const DCS = C1(0x90);
const APC = C1(0x9f);
const ESC = '\u001b';
const BEL = '\u0007';

test('output: C1 CSI, OSC, DCS and APC are stripped with their parameters and strings', () => {
  assert.equal(clean(`${CSI}31mred${CSI}0m ${CSI}2J${CSI}?25lok`), 'red ok');
  assert.equal(clean(`${OSC}0;title${BEL}a ${OSC}8;;https://evil.example${ST}link${OSC}8;;${ESC}\\ b`), 'a link b');
  assert.equal(clean(`${DCS}qpayload${ST}x${APC}hidden${BEL}y`), 'xy');
  // Lone C1 controls (NEL, IND, the 8-bit SS2…) and DEL go too; tab, newline and CR stay.
  assert.equal(clean(`a${C1(0x85)}b${C1(0x84)}c${C1(0x8e)}d\u007fe\tf\r\n`), 'abcde\tf\n');
  // The 7-bit forms as before, and ESC-introduced strings lose their payload like the 8-bit ones.
  assert.equal(clean(`${ESC}[1;32mgreen${ESC}[0m ${ESC}]0;t${BEL}${ESC}Pq#0${ESC}\\done`), 'green done');
  // Text that merely contains letters after a stripped control is kept.
  assert.equal(clean('é — ü ✓ 😀'), 'é — ü ✓ 😀');
});

const root = tempDir();
const rt = runtimeAt(root, { workers: 0, permissions: { allow: { run: true } } });
after(() => rt.close());

test('output: bash strips C1 controls a command prints as UTF-8', async () => {
  // \xc2\x9b is U+009B (CSI) in UTF-8, \xc2\x9d U+009D (OSC), \xc2\x9c U+009C (ST).
  const command = `printf '\\xc2\\x9b31mred\\xc2\\x9b0m \\xc2\\x9d0;pwned\\x07ok \\xc2\\x9d8;;http://x\\xc2\\x9clink\\n'`;
  const r = await rt.call('bash', { command });
  assert.equal(r.content, 'exit_code: 0\nred ok link\n');
});
