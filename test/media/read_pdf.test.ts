/**
 * read_file of PDFs written by a PDF library (pdf-lib) and by hand: the text of the pages asked for,
 * the page count always, a page without a text layer said to have none, and hostile files — a page
 * tree lying about its count, objects nested 50,000 deep, a cut file, garbage after the header — each
 * a clear answer, never a crash or a hang.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { runtimeAt } from '../helpers/runtime.ts';
import { tempDir } from '../helpers/temp.ts';

async function document(pages: number, blank: number[] = []): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (let i = 1; i <= pages; i++) {
    const page = doc.addPage();
    if (blank.includes(i)) continue;
    page.drawText(`Chapter ${i}`, { x: 50, y: 700, font, size: 18 });
    page.drawText(`The body of page ${i}.`, { x: 50, y: 670, font, size: 12 });
  }
  return doc.save();
}

/** A PDF from its objects' bodies, with a correct cross-reference table. */
function rawPdf(objects: string[]): Buffer {
  let out = '%PDF-1.7\n';
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(Buffer.byteLength(out, 'latin1'));
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = Buffer.byteLength(out, 'latin1');
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const o of offsets) out += `${String(o).padStart(10, '0')} 00000 n \n`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}

test('read_file of a PDF: pages asked for, the count always, a page with no text layer said so, ten by default', async () => {
  const root = tempDir();
  writeFileSync(path.join(root, 'spec.pdf'), await document(25, [4]));
  const rt = runtimeAt(root);
  const r = await rt.call('read_file', { file_path: 'spec.pdf', pages: '3-5' });
  assert.equal(r.isError, false, r.content);
  assert.match(r.content, /^PDF "spec\.pdf": 25 pages, [\d,]+ bytes; pages 3-5 as text/);
  assert.match(
    r.content,
    /── page 3 ──\nChapter 3\nThe body of page 3\.\n\n── page 4 ──\n\(no text layer: the page is a picture or blank\)\n\n── page 5 ──\nChapter 5/,
  );
  assert.match(r.content, /showing pages 3-5 of 25; continue with pages: "6-25"\]$/);
  assert.deepEqual(r.meta?.pages, { first: 3, last: 5, total: 25 });
  const first = await rt.call('read_file', { file_path: 'spec.pdf' });
  assert.deepEqual(first.meta?.pages, { first: 1, last: 10, total: 25 });
  const one = await rt.call('read_file', { file_path: 'spec.pdf', pages: '25' });
  assert.match(one.content, /── page 25 ──\nChapter 25\nThe body of page 25\.$/);

  const past = await rt.call('read_file', { file_path: 'spec.pdf', pages: '30-31' });
  assert.deepEqual(
    [past.code, past.content],
    ['invalid_args', '"spec.pdf" has 25 pages; pages 30-31 is past its end.'],
  );
  const many = await rt.call('read_file', { file_path: 'spec.pdf', pages: '1-21' });
  assert.match(many.content, /pages 1-21 is 21 pages; ask for at most 20 at a time/);
  const bad = await rt.call('read_file', { file_path: 'spec.pdf', pages: 'two' });
  assert.match(bad.content, /pages must be a page \("7"\) or a range \("3-5"\) from 1, not "two"/);
  writeFileSync(path.join(root, 'notes.txt'), 'text\n');
  const notPdf = await rt.call('read_file', { file_path: 'notes.txt', pages: '1' });
  assert.match(notPdf.content, /^pages is for a PDF; "notes\.txt" is not one/);
});

test('read_file of hostile PDFs: a lying page count, deep nesting, a cut file, garbage — each a clear answer', async () => {
  const root = tempDir();
  const page = '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>';
  writeFileSync(
    path.join(root, 'liar.pdf'),
    rawPdf(['<< /Type /Catalog /Pages 2 0 R >>', '<< /Type /Pages /Kids [3 0 R] /Count 1000000 >>', page]),
  );
  const deep = `${'['.repeat(50_000)}${']'.repeat(50_000)}`;
  writeFileSync(
    path.join(root, 'deep.pdf'),
    rawPdf(['<< /Type /Catalog /Pages 2 0 R /Deep 4 0 R >>', '<< /Type /Pages /Kids [3 0 R] /Count 1 >>', page, deep]),
  );
  const whole = Buffer.from(await document(3));
  writeFileSync(path.join(root, 'cut.pdf'), whole.subarray(0, Math.floor(whole.length / 2)));
  writeFileSync(path.join(root, 'junk.pdf'), Buffer.concat([Buffer.from('%PDF-1.4\n'), Buffer.alloc(4000, 0xab)]));
  const rt = runtimeAt(root);
  for (const name of ['liar.pdf', 'deep.pdf', 'cut.pdf', 'junk.pdf']) {
    const r = await rt.call('read_file', { file_path: name });
    const clear = r.isError
      ? r.code === 'binary' && new RegExp(`^Cannot read "${name.replace('.', '\\.')}": it`).test(r.content)
      : /^PDF ".+": [\d,]+ pages?/.test(r.content);
    assert.ok(clear, `${name}: ${r.code} ${r.content.slice(0, 300)}`);
  }
  // The runtime still reads a good one after them.
  writeFileSync(path.join(root, 'good.pdf'), whole);
  assert.match((await rt.call('read_file', { file_path: 'good.pdf' })).content, /^PDF "good\.pdf": 3 pages/);
});
