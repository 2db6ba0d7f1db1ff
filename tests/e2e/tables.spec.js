// Tables and page regions in the browser (issue 20): with layout.regions + layout.tables the browser reads a small
// generated table (scripts/make_tables.py) exactly like the native CLI with the same settings: the same lines,
// regions, blocks and cells. The layout and table models are fetched only once a page needs them, not at boot.
import { readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT, expect, runNative, test } from './fixtures.js';
import { diffResults } from './compare.js';

const TABLES = join(ROOT, 'tests', 'testset', 'tables');
const IMAGE = 'spanning_sales.png';
const CONFIG = { layout: { regions: true, tables: true } };
const BOX_PX = 1.5;

const near = (a, b) => a.every((p, i) => Math.abs(p[0] - b[i][0]) <= BOX_PX && Math.abs(p[1] - b[i][1]) <= BOX_PX);

test('browser (wasm) reads a table like native: regions, grid and cells; its models fetched on first use', async ({ app }) => {
  await runNative([join(ROOT, 'scripts', 'make_tables.py')]);
  const configPath = join(tmpdir(), `retto-tables-${process.pid}.json`);
  await writeFile(configPath, JSON.stringify(CONFIG));
  const nativeOut = runNative(['-m', 'retto', '--images', join(TABLES, IMAGE), '--format', 'json', '--no-progress',
    '--config', configPath]);
  const fetched = [];
  app.context.on('request', (req) => fetched.push(new URL(req.url()).pathname));
  await app.open();
  await app.create({ backend: 'wasm', config: CONFIG });
  const modelFile = (role) => fetched.filter((p) => p.endsWith(`/${role}.onnx`));
  expect(modelFile('layout'), 'the layout model is not fetched at boot').toEqual([]);
  expect(modelFile('table'), 'the table model is not fetched at boot').toEqual([]);

  const { result, error } = await app.recognize(await readFile(join(TABLES, IMAGE)));
  expect(error, JSON.stringify(error)).toBeUndefined();
  expect(modelFile('layout').length).toBe(1);
  expect(modelFile('table').length).toBe(1);
  const [native] = JSON.parse(await nativeOut);
  expect(native.tables.length, 'native found the table').toBe(1);

  expect(diffResults(IMAGE, result, native)).toEqual([]);
  expect(result.blocks.map((b) => [b.type, b.table, b.lines])).toEqual(native.blocks.map((b) => [b.type, b.table, b.lines]));
  expect(result.regions.map((r) => [r.type, r.lines])).toEqual(native.regions.map((r) => [r.type, r.lines]));
  result.regions.forEach((r, i) => expect(near(r.box, native.regions[i].box), `region ${i} box`).toBe(true));
  const [got, want] = [result.tables[0], native.tables[0]];
  expect([got.rows, got.cols]).toEqual([want.rows, want.cols]);
  expect(got.cells.map((c) => [c.row, c.col, c.row_span, c.col_span, c.text]))
    .toEqual(want.cells.map((c) => [c.row, c.col, c.row_span, c.col_span, c.text]));
  got.cells.forEach((c, i) => expect(near(c.box, want.cells[i].box), `cell ${i} box`).toBe(true));
  expect(result.backend.layout).toBe('wasm');
  expect(result.backend.table).toBe('wasm');
});
