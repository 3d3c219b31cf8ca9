/**
 * Notebook cells changed as text edits of that cell alone (lib/media/notebook_edit.ts): on notebooks
 * written the way Jupyter writes them (one-space indent, sorted keys, UTF-8 unescaped, a final newline)
 * and in other shapes (two spaces, CRLF, sources as strings, nbformat 4.4 without ids), every byte
 * outside the changed cell stays; bad input is an error naming what is wrong.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { changeNotebook } from '../../lib/media/notebook_edit.ts';
import { parseNotebook } from '../../lib/media/notebook_view.ts';
import { jupyter } from '../helpers/jupyter.ts';

const NB = {
  cells: [
    { cell_type: 'markdown', id: 'intro', metadata: {}, source: ['# Übersicht\n', 'Plots of ✓ data'] },
    {
      cell_type: 'code',
      execution_count: 3,
      id: 'load',
      metadata: { tags: ['setup'] },
      outputs: [{ name: 'stdout', output_type: 'stream', text: ['loaded 10 rows\n'] }],
      source: ['import pandas as pd\n', "df = pd.read_csv('x.csv')"],
    },
    { cell_type: 'code', execution_count: null, id: 'plot', metadata: {}, outputs: [], source: [] },
  ],
  metadata: { kernelspec: { display_name: 'Python 3', language: 'python', name: 'python3' } },
  nbformat: 4,
  nbformat_minor: 5,
};

const parsed = (t: string) => {
  const p = parseNotebook(t);
  assert.ok(p.ok);
  return p.value;
};

test('notebook edit: replacing a source keeps every other byte, clears that code cell’s outputs, keeps the list form', () => {
  const before = jupyter(NB);
  const r = changeNotebook(before, {
    cellId: 'load',
    mode: 'replace',
    source: "import polars as pl\ndf = pl.read_csv('x.csv')\n",
  });
  assert.ok(r.ok, r.ok ? '' : r.error);
  assert.deepEqual([r.value.id, r.value.at], ['load', 2]);
  const want = structuredClone(NB);
  Object.assign(want.cells[1] as object, {
    source: ['import polars as pl\n', "df = pl.read_csv('x.csv')\n"],
    outputs: [],
    execution_count: null,
  });
  assert.equal(r.value.text, jupyter(want), 'exactly what Jupyter would have written');
});

test('notebook edit: insert after a cell (and first), delete, a type change, in other formats', () => {
  const before = jupyter(NB);
  const ins = changeNotebook(before, { cellId: 'intro', mode: 'insert', source: 'Some text', cellType: 'markdown' });
  assert.ok(ins.ok);
  const cells = parsed(ins.value.text).cells;
  assert.deepEqual(
    cells.map((c) => c.id),
    ['intro', ins.value.id, 'load', 'plot'],
  );
  assert.match(ins.value.id, /^[0-9a-f]{8}$/);
  assert.deepEqual(cells[1], { cell_type: 'markdown', id: ins.value.id, metadata: {}, source: ['Some text'] });
  const first = changeNotebook(before, { mode: 'insert', source: 'x = 1' });
  assert.ok(first.ok);
  assert.deepEqual(parsed(first.value.text).cells[0]?.outputs, []);
  const del = changeNotebook(before, { cellId: 'plot', mode: 'delete' });
  assert.ok(del.ok);
  const gone = structuredClone(NB);
  gone.cells.pop();
  assert.equal(del.value.text, jupyter(gone));
  const toMd = changeNotebook(before, { cellId: 'load', mode: 'replace', source: 'now prose', cellType: 'markdown' });
  assert.ok(toMd.ok);
  const md = parsed(toMd.value.text).cells[1] as unknown as Record<string, unknown>;
  assert.deepEqual(Object.keys(md).sort(), ['cell_type', 'id', 'metadata', 'source']);

  // Two-space indent, CRLF, string sources, nbformat 4.4 with no ids.
  const old = {
    ...NB,
    nbformat_minor: 4,
    cells: NB.cells.map(({ id: _id, ...c }) => ({ ...c, source: (c.source as string[]).join('') })),
  };
  const crlf = jupyter(old, 2).replace(/\n/g, '\r\n');
  const r = changeNotebook(crlf, { cellId: 'cell-3', mode: 'replace', source: 'plot(df)\nshow()' });
  assert.ok(r.ok, r.ok ? '' : r.error);
  const want = structuredClone(old);
  (want.cells[2] as { source: string }).source = 'plot(df)\nshow()';
  assert.equal(r.value.text, jupyter(want, 2).replace(/\n/g, '\r\n'));
  const added = changeNotebook(crlf, { cellId: 'cell-1', mode: 'insert', source: 'y' });
  assert.ok(added.ok);
  assert.equal(parsed(added.value.text).cells[1]?.id, undefined, 'nbformat 4.4 cells have no id');
  assert.equal(added.value.id, 'cell-2');
});

test('notebook edit: an unknown id lists the ids, broken JSON and a non-notebook are errors, nothing is guessed', () => {
  const before = jupyter(NB);
  const unknown = changeNotebook(before, { cellId: 'nope', mode: 'replace', source: 'x' });
  assert.ok(!unknown.ok && /no cell has the id "nope"; the notebook's cells are intro, load, plot/.test(unknown.error));
  const broken = changeNotebook(before.slice(0, -20), { cellId: 'intro', mode: 'delete' });
  assert.ok(!broken.ok && /not valid JSON/.test(broken.error));
  const notNb = changeNotebook('{"a": 1}', { cellId: 'intro', mode: 'delete' });
  assert.ok(!notNb.ok && /no "cells" list/.test(notNb.error));
  const noId = changeNotebook(before, { mode: 'replace', source: 'x' });
  assert.ok(!noId.ok && /replace needs cell_id/.test(noId.error));
});

test('notebook edit: a notebook on one line stays valid JSON with the right value after any change; ids are found as written', () => {
  const oneLine = JSON.stringify(NB);
  for (const change of [
    { cellId: 'plot', mode: 'delete' as const },
    { cellId: 'intro', mode: 'delete' as const },
    { cellId: 'load', mode: 'replace' as const, source: 'x = 2', cellType: 'markdown' as const },
    { cellId: 'plot', mode: 'insert' as const, source: 'y' },
  ]) {
    const r = changeNotebook(oneLine, change);
    assert.ok(r.ok, JSON.stringify(change));
    const cells = parsed(r.value.text).cells;
    if (change.mode === 'delete')
      assert.deepEqual(
        cells.map((c) => c.id),
        ['intro', 'load', 'plot'].filter((id) => id !== change.cellId),
      );
    else if (change.mode === 'insert') assert.equal(cells.length, 4);
    else assert.deepEqual([cells[1]?.cell_type, cells[1]?.source], ['markdown', ['x = 2']]);
  }
  const dup = { ...NB, cells: [NB.cells[0], { ...NB.cells[0] }] };
  const twice = changeNotebook(jupyter(dup), { cellId: 'intro', mode: 'delete' });
  assert.ok(!twice.ok && /2 cells have the id "intro" \(cells 1, 2\)/.test(twice.error));
  // A real id "cell-2" is that cell, not the second one; a numeric id is found by its digits.
  const mixed = {
    ...NB,
    cells: [
      { ...NB.cells[0], id: 'cell-2' },
      { ...NB.cells[2], id: 7 },
    ],
  };
  const named = changeNotebook(jupyter(mixed), { cellId: 'cell-2', mode: 'delete' });
  assert.ok(named.ok);
  assert.deepEqual(
    parsed(named.value.text).cells.map((c) => c.id),
    [7],
  );
  const numeric = changeNotebook(jupyter(mixed), { cellId: '7', mode: 'delete' });
  assert.ok(numeric.ok && parsed(numeric.value.text).cells.length === 1);
});
