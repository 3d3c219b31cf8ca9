/**
 * read_file of pictures and notebooks, and notebook_edit, through a real runtime on files the test
 * makes: pictures encoded by sharp (small ones shown as they are, large ones scaled to the limits,
 * transparency kept), corrupt ones and a decompression bomb refused with a clear answer; notebooks in
 * Jupyter's own JSON read as cells with outputs cut and plots attached, edited by id after a read.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { deflateSync } from 'node:zlib';
import sharp from 'sharp';
import { IMAGE_LIMITS } from '../../lib/media/image.ts';
import { jupyter } from '../helpers/jupyter.ts';
import { runtimeAt } from '../helpers/runtime.ts';
import { tempDir, writeTree } from '../helpers/temp.ts';

const solid = (width: number, height: number, alpha = false) =>
  sharp({ create: { width, height, channels: alpha ? 4 : 3, background: { r: 200, g: 40, b: 40, alpha: 0.5 } } });

/** A PNG whose header claims `w`×`h` but whose data is a few bytes: what a decompression bomb starts as. */
function bombPng(w: number, h: number): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    return Buffer.concat([len, Buffer.from(type, 'latin1'), data, Buffer.alloc(4)]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(w, 0);
  ihdr.writeUInt32BE(h, 4);
  ihdr.set([8, 2, 0, 0, 0], 8);
  const sig = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return Buffer.concat([
    sig,
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(Buffer.alloc(1000))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

test('read_file of pictures: small ones as they are, large ones fitted to the limits, transparency kept, each format', async () => {
  const root = tempDir();
  writeFileSync(path.join(root, 'small.png'), await solid(200, 100).png().toBuffer());
  writeFileSync(path.join(root, 'photo.jpg'), await solid(4000, 3000).jpeg().toBuffer());
  writeFileSync(path.join(root, 'clear.png'), await solid(3000, 3000, true).png().toBuffer());
  writeFileSync(path.join(root, 'anim.gif'), await solid(64, 32).gif().toBuffer());
  writeFileSync(path.join(root, 'pic.webp'), await solid(300, 300).webp().toBuffer());
  const rt = runtimeAt(root);
  const small = await rt.call('read_file', { file_path: 'small.png' });
  assert.equal(small.isError, false, small.content);
  assert.match(
    small.content,
    /^Image "small\.png": PNG, 200×100, [\d,]+ bytes\. The image is attached to this answer\.$/,
  );
  assert.deepEqual(
    small.images?.map((i) => [i.mediaType, i.width, i.height]),
    [['image/png', 200, 100]],
  );
  assert.deepEqual(Buffer.from(small.images?.[0]?.data ?? '', 'base64'), readFileSync(path.join(root, 'small.png')));

  const photo = await rt.call('read_file', { file_path: 'photo.jpg' });
  const shown = photo.images?.[0];
  assert.ok(shown, photo.content);
  assert.ok(
    Math.max(shown.width, shown.height) <= IMAGE_LIMITS.maxEdge && shown.width * shown.height <= IMAGE_LIMITS.maxPixels,
  );
  assert.equal(Math.round((shown.width / shown.height) * 100), 133, 'the aspect ratio kept');
  assert.match(photo.content, /JPEG, 4000×3000, .* shown as JPEG \d+×\d+ \(scaled down/);
  assert.equal(photo.meta?.image?.width, 4000);
  const decoded = await sharp(Buffer.from(shown.data, 'base64')).metadata();
  assert.deepEqual([decoded.width, decoded.height, decoded.format], [shown.width, shown.height, 'jpeg']);

  const clear = await rt.call('read_file', { file_path: 'clear.png' });
  assert.ok(['image/png', 'image/webp'].includes(clear.images?.[0]?.mediaType ?? ''), 'transparency needs PNG or WebP');
  assert.equal((await sharp(Buffer.from(clear.images?.[0]?.data ?? '', 'base64')).metadata()).hasAlpha, true);
  assert.equal((await rt.call('read_file', { file_path: 'anim.gif' })).images?.[0]?.mediaType, 'image/gif');
  assert.equal((await rt.call('read_file', { file_path: 'pic.webp' })).images?.[0]?.mediaType, 'image/webp');
});

test('read_file of pictures: corrupt files and a decompression bomb are clear refusals, nothing crashes', async () => {
  const root = tempDir();
  const png = await solid(400, 400).png().toBuffer();
  writeFileSync(
    path.join(root, 'junk.png'),
    Buffer.concat([png.subarray(0, 8), Buffer.from('not a png at all, just words')]),
  );
  writeFileSync(path.join(root, 'bomb.png'), bombPng(60_000, 60_000));
  writeFileSync(path.join(root, 'cut.jpg'), (await solid(800, 600).jpeg().toBuffer()).subarray(0, 300));
  const rt = runtimeAt(root);
  const junk = await rt.call('read_file', { file_path: 'junk.png' });
  assert.deepEqual([junk.isError, junk.code], [true, 'binary']);
  assert.match(junk.content, /^Cannot show "junk\.png": it cannot be decoded as PNG \(.+\)\. Inspect it with bash/);
  const bomb = await rt.call('read_file', { file_path: 'bomb.png' });
  assert.equal(bomb.code, 'binary');
  assert.match(bomb.content, /pixel|megapixels/i, bomb.content);
  // A cut file within the limits is never sent as it is: a provider would refuse the request, and every
  // later one. What decodes is re-encoded (and then decodes whole), or it is refused.
  writeFileSync(path.join(root, 'half.png'), png.subarray(0, Math.floor(png.length / 2)));
  for (const name of ['cut.jpg', 'half.png']) {
    const cut = await rt.call('read_file', { file_path: name });
    if (cut.isError) assert.equal(cut.code, 'binary', cut.content);
    else {
      const data = Buffer.from(cut.images?.[0]?.data ?? '', 'base64');
      await sharp(data, { failOn: 'error' }).stats(); // throws on a damaged picture
      assert.match(cut.content, /shown as/, cut.content);
    }
  }
});

test('read_file of a notebook: cells with ids, outputs cut, plots attached; notebook_edit by id after the read', async () => {
  const plot = (await solid(120, 80).png().toBuffer()).toString('base64');
  const long = `${'x'.repeat(5000)}\n`;
  const nb = {
    cells: [
      { cell_type: 'markdown', id: 'intro', metadata: {}, source: ['# Analysis\n', 'Of the data'] },
      {
        cell_type: 'code',
        execution_count: 2,
        id: 'plot',
        metadata: {},
        outputs: [
          { name: 'stdout', output_type: 'stream', text: [long] },
          { data: { 'image/png': plot, 'text/plain': ['<Figure>'] }, metadata: {}, output_type: 'display_data' },
          {
            ename: 'ValueError',
            evalue: 'bad',
            output_type: 'error',
            traceback: ['\u001b[0;31mValueError\u001b[0m: bad'],
          },
        ],
        source: ['plt.plot(x)\n', 'plt.show()'],
      },
    ],
    metadata: { language_info: { name: 'python' } },
    nbformat: 4,
    nbformat_minor: 5,
  };
  const root = tempDir();
  writeTree(root, { 'a.ipynb': jupyter(nb), 'broken.ipynb': '{"cells": [' });
  const rt = runtimeAt(root, { permissions: { allow: { write: true } } });
  const refused = await rt.call('notebook_edit', { notebook_path: 'a.ipynb', cell_id: 'plot', new_source: 'x' });
  assert.equal(refused.code, 'not_read');
  const r = await rt.call('read_file', { file_path: 'a.ipynb' });
  assert.equal(r.isError, false, r.content);
  assert.match(
    r.content,
    /^Notebook "a\.ipynb": 2 cells \(python, nbformat 4\.5\); change a cell with notebook_edit and its id\./,
  );
  assert.match(r.content, /── cell 1 \(id intro, markdown\) ──\n# Analysis\nOf the data/);
  assert.match(r.content, /── cell 2 \(id plot, code, run 2\) ──\nplt\.plot\(x\)\nplt\.show\(\)\n── output ──\nx{100}/);
  assert.match(r.content, /\[… \d+ more characters of output not shown\]/);
  assert.ok(!r.content.includes('\u001b'), 'terminal colours removed');
  assert.deepEqual(r.meta?.cells, { first: 1, last: 2, total: 2 });
  assert.deepEqual(
    r.images?.map((i) => [i.mediaType, i.width, i.height]),
    [['image/png', 120, 80]],
  );

  const e = await rt.call('notebook_edit', { notebook_path: 'a.ipynb', cell_id: 'plot', new_source: 'plt.hist(x)\n' });
  assert.equal(e.isError, false, e.content);
  assert.match(e.content, /^Replaced cell 2 \(id plot\) of "a\.ipynb"\./);
  const after = JSON.parse(readFileSync(path.join(root, 'a.ipynb'), 'utf8'));
  assert.deepEqual(after.cells[1].source, ['plt.hist(x)\n']);
  assert.deepEqual([after.cells[1].outputs, after.cells[1].execution_count], [[], null]);
  const second = await rt.call('notebook_edit', { notebook_path: 'a.ipynb', cell_id: 'intro', edit_mode: 'delete' });
  assert.equal(second.isError, false, 'its own write counts as read');
  const missing = await rt.call('notebook_edit', { notebook_path: 'a.ipynb', cell_id: 'gone', new_source: 'x' });
  assert.equal(missing.code, 'no_match');
  assert.match(missing.content, /the notebook's cells are plot/);

  const broken = await rt.call('read_file', { file_path: 'broken.ipynb' });
  assert.equal(broken.isError, false);
  assert.match(
    broken.content,
    /^Not read as a notebook: it is not valid JSON \(.+\); shown as text\.\n +1\t\{"cells": \[/,
  );
});
