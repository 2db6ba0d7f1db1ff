// Tables and page regions in the browser (issues 20 and 33), on the page as a person uses it: with the default
// *Tables* setting ("auto"), a map costs no model and a small generated table (scripts/data/make_tables.py) read exactly like the native CLI with the same
// settings (the same lines, regions, blocks and cells, from the page's JSON download); the cells drawn as a grid
// over the picture and shown as an HTML table; its copy (TSV, Markdown) and downloads (CSV, XLSX, opened by
// Python's csv module and openpyxl) hold the ground truth's cells; axe finds nothing wrong with the panel.
// The layout and table models are fetched only once a page needs them, not at boot. Then a whole generated page
// (header, title, a chart with its caption beside it, two text columns, a spanning table, footer) is read like
// native too (regions, reading order, cells); and offline (no network, page reloaded) the table reads again
// and downloads as the same XLSX: the models and XlsxWriter were saved by the service worker on first use.
import { readFile, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DATA, ROOT, expect, runNative, test } from '../fixtures.js';
import { diffResults } from '../compare.js';

const TABLES = join(ROOT, 'tests', 'testset', 'tables');
const ARTEFACTS = join(ROOT, 'test-artefacts');
const IMAGE = 'spanning_sales.png';
const PAGE_IMAGE = 'region_columns.png';
const CONFIG = { layout: { regions: true, tables: true } };
const BOX_PX = 1.5;
const BOOT_TIMEOUT = 3 * 60_000;
const OCR_TIMEOUT = 3 * 60_000;
const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

const near = (a, b) => a.every((p, i) => Math.abs(p[0] - b[i][0]) <= BOX_PX && Math.abs(p[1] - b[i][1]) <= BOX_PX);

/** The ground truth's cells as rows of texts (a spanning cell's text in its first row and column). */
function gtRows(gt) {
  const rows = Array.from({ length: gt.rows }, () => Array(gt.cols).fill(''));
  for (const c of gt.cells) rows[c.row][c.col] = c.text;
  return rows;
}

/** A CSV and an XLSX file read back by Python: the csv module and openpyxl (not by the code that wrote them). */
async function readBack(csvPath, xlsxPath) {
  const out = await runNative(['-c', [
    'import csv, io, json, sys, openpyxl',
    'rows = list(csv.reader(open(sys.argv[1], newline="", encoding="utf-8")))',
    'book = openpyxl.load_workbook(io.BytesIO(open(sys.argv[2], "rb").read()))  # the download has no .xlsx name',
    'sheet = book.worksheets[0]',
    'cells = [["" if v is None else str(v) for v in r] for r in sheet.iter_rows(values_only=True)]',
    'print(json.dumps({"csv": rows, "xlsx": cells, "sheets": book.sheetnames,',
    '                  "merged": sorted(str(r) for r in sheet.merged_cells.ranges)}))',
  ].join('\n'), csvPath, xlsxPath]);
  return JSON.parse(out);
}

/** A browser result is native's: lines (text, box, score), blocks (the reading order, types), regions (type,
 *  lines, box within BOX_PX) and tables (grid, texts, boxes). */
function expectLikeNative(image, result, native) {
  expect(diffResults(image, result, native)).toEqual([]);
  expect(result.blocks.map((b) => [b.type, b.table, b.lines])).toEqual(native.blocks.map((b) => [b.type, b.table, b.lines]));
  expect(result.regions.map((r) => [r.type, r.lines])).toEqual(native.regions.map((r) => [r.type, r.lines]));
  result.regions.forEach((r, i) => expect(near(r.box, native.regions[i].box), `${image} region ${i} box`).toBe(true));
  expect(result.tables.length).toBe(native.tables.length);
  result.tables.forEach((got, k) => {
    const want = native.tables[k];
    expect([got.rows, got.cols, got.block]).toEqual([want.rows, want.cols, want.block]);
    expect(near(got.box, want.box), `${image} table ${k} box`).toBe(true);
    expect(got.cells.map((c) => [c.row, c.col, c.row_span, c.col_span, c.text]))
      .toEqual(want.cells.map((c) => [c.row, c.col, c.row_span, c.col_span, c.text]));
    got.cells.forEach((c, i) => expect(near(c.box, want.cells[i].box), `${image} cell ${i} box`).toBe(true));
  });
}

test('page: tables where a page has one (the default), then on every page; a table read like native, drawn as a grid, shown, copied and downloaded', async ({ app, servers }) => {
  const { page, context } = app;
  await runNative([join(ROOT, 'scripts', 'data', 'make_tables.py')]);
  const gt = JSON.parse(await readFile(join(TABLES, IMAGE.replace('.png', '.gt.json')), 'utf8'));
  const configPath = join(tmpdir(), `retto-tables-${process.pid}.json`);
  await writeFile(configPath, JSON.stringify(CONFIG));
  // The table picture with the default settings (tables "auto"), the whole page with tables on every page.
  const nativeOut = runNative(['-m', 'retto', '--images', join(TABLES, IMAGE), '--format', 'json', '--no-progress']);
  const nativePageOut = runNative(['-m', 'retto', '--images', join(TABLES, PAGE_IMAGE), '--format', 'json', '--no-progress',
    '--config', configPath]);
  const fetched = [];
  context.on('request', (req) => fetched.push(new URL(req.url()).pathname));
  // (a path once: the service worker's own fetch of a request it passes on is seen as a second request)
  const modelFile = (role) => [...new Set(fetched.filter((p) => p.endsWith(`/${role}.onnx`)))];
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  await page.setViewportSize({ width: 1366, height: 900 });
  await page.goto(`${servers.isolated}?backend=wasm`);

  // The default setting: tables on the pages that look like one ("auto").
  const setting = page.getByRole('combobox', { name: 'Tables' });
  await expect(page.locator('#model-set')).toBeEnabled();
  await expect(setting).toHaveValue('auto');
  await expect(page.locator('#engine')).toHaveAttribute('data-state', 'ready', { timeout: BOOT_TIMEOUT });
  expect(modelFile('layout'), 'the layout model is not fetched at boot').toEqual([]);
  expect(modelFile('table'), 'the table model is not fetched at boot').toEqual([]);

  // A page without a table (a map) costs nothing: neither model is fetched, no table panel.
  await page.locator('#pick-files').setInputFiles(join(DATA, 'baiona.png'));
  await expect(page.locator('#queue .job', { hasText: 'baiona.png' })).toHaveAttribute('data-status', 'done', { timeout: OCR_TIMEOUT });
  expect([modelFile('layout'), modelFile('table')], 'no table page yet: no layout or table model').toEqual([[], []]);
  await expect(page.locator('#tables-panel')).toBeHidden();

  await page.locator('#pick-files').setInputFiles(join(TABLES, IMAGE));
  await expect(page.locator('#queue .job', { hasText: IMAGE })).toHaveAttribute('data-status', 'done', { timeout: OCR_TIMEOUT });
  await page.locator('#queue .job', { hasText: IMAGE }).locator('.job-button').click(); // the map stays shown until then
  expect(modelFile('layout').length).toBe(1);
  expect(modelFile('table').length).toBe(1);

  const download = async (locator) => {
    const [d] = await Promise.all([page.waitForEvent('download'), locator.click()]);
    return { name: d.suggestedFilename(), path: await d.path() };
  };
  // The browser's result, as the page's JSON download holds it; browser == native.
  const result = JSON.parse(await readFile((await download(page.locator('#download-json'))).path, 'utf8'));
  const [native] = JSON.parse(await nativeOut);
  const [nativePage] = JSON.parse(await nativePageOut);
  expect(native.tables.length, 'native found the table').toBe(1);
  expectLikeNative(IMAGE, result, native);
  const want = native.tables[0];
  expect(result.backend.layout).toBe('wasm');
  expect(result.backend.table).toBe('wasm');

  // The grid over the picture: the table's outline and one box per native cell, where native put them.
  const grid = page.locator('#figure .table-grid');
  await expect(grid).toHaveCount(1);
  const points = (loc) => loc.evaluateAll((ps) => ps.map((p) => p.getAttribute('points').split(' ').map((xy) => xy.split(',').map(Number))));
  const cellBoxes = await points(grid.locator('.table-cell'));
  expect(cellBoxes.length).toBe(want.cells.length);
  cellBoxes.forEach((box, i) => expect(near(box, want.cells[i].box), `grid cell ${i}`).toBe(true));
  expect(near((await points(grid.locator('.table-box')))[0], want.box)).toBe(true);

  // The HTML table: native's cells at their rows, columns and spans.
  const table = page.getByRole('table', { name: /^Table 1/ });
  await expect(table).toBeVisible();
  const shown = await table.locator('td').evaluateAll((tds) => tds.map((td) => [Number(td.dataset.row), Number(td.dataset.col),
    td.rowSpan, td.colSpan, td.textContent]));
  const byPlace = (a, b) => a[0] - b[0] || a[1] - b[1];
  expect(shown.sort(byPlace)).toEqual(want.cells.map((c) => [c.row, c.col, c.row_span, c.col_span, c.text]).sort(byPlace));
  await page.locator('#tables-panel').screenshot({ path: join(ARTEFACTS, 'ui-table-panel.png') });
  await page.screenshot({ path: join(ARTEFACTS, 'ui-desktop-table.png') });

  // Copy as TSV: the table read row by row (the ground truth's "copy"); as Markdown: a pipe table of its cells.
  const clipboard = () => page.evaluate(() => navigator.clipboard.readText());
  await page.getByRole('button', { name: 'Copy TSV of table 1' }).click();
  await expect.poll(clipboard).toBe(gt.copy);
  // Copy text (the whole page, py/retto's `plain` export) reads the table row by row too.
  await page.evaluate(() => navigator.clipboard.writeText('-'));
  await page.locator('#copy-one').click();
  await expect.poll(clipboard).toContain(gt.copy);
  await page.getByRole('button', { name: 'Copy Markdown of table 1' }).click();
  await expect.poll(clipboard).toMatch(/^\| /);
  const md = (await clipboard()).split('\n');
  expect(md[1]).toMatch(/^\|(---\|)+$/);
  expect(md.filter((_, i) => i !== 1).map((row) => row.slice(2, -2).split(' | ').map((c) => c.trim())))
    .toEqual(gtRows(gt));

  // Downloads: CSV and XLSX, written by py/retto in the worker, read back by Python.
  const csv = await download(page.getByRole('button', { name: 'CSV of table 1' }));
  const xlsx = await download(page.getByRole('button', { name: 'XLSX of table 1' }));
  expect([csv.name, xlsx.name]).toEqual(['spanning_sales-table-1.csv', 'spanning_sales-table-1.xlsx']);
  const back = await readBack(csv.path, xlsx.path);
  expect(back.csv).toEqual(gtRows(gt));
  expect(back.xlsx).toEqual(gtRows(gt));
  expect(back.sheets).toEqual(['p1 t1']);
  expect(back.merged).toEqual(expect.arrayContaining(['A1:A2', 'B1:C1', 'D1:E1'])); // the spanning header cells
  expect(new Set(fetched.filter((p) => p.includes('/xlsx/'))).size, 'XlsxWriter fetched for the workbook').toBe(1);

  // axe on the page with the table panel (the page's CSP allows same-origin scripts only: axe is served there).
  const axeUrl = new URL('/__axe__/axe.min.js', page.url()).href;
  await page.route(axeUrl, (route) => route.fulfill({ path: AXE, contentType: 'text/javascript' }));
  await page.addScriptTag({ url: axeUrl });
  const violations = await page.evaluate(async () => (await window.axe.run(document.getElementById('results'))).violations);
  expect(violations.flatMap((v) => v.nodes.map((n) => `${v.id}: ${n.target.join(' ')}`))).toEqual([]);

  // A whole page: header, title, chart and caption, two columns, a captioned spanning table, footer; read like
  // native with tables (and regions) on every page: the setting restarts the engine and is remembered.
  await page.locator('#clear-queue').click();
  await setting.selectOption('on');
  await expect(page.locator('#engine')).toHaveAttribute('data-state', 'ready', { timeout: BOOT_TIMEOUT });
  expect(await page.evaluate(() => localStorage.getItem('retto.tables'))).toBe('on');
  await page.locator('#pick-files').setInputFiles(join(TABLES, PAGE_IMAGE));
  await expect(page.locator('#queue .job', { hasText: PAGE_IMAGE })).toHaveAttribute('data-status', 'done', { timeout: OCR_TIMEOUT });
  const whole = JSON.parse(await readFile((await download(page.locator('#download-json'))).path, 'utf8'));
  expect(nativePage.regions.map((r) => r.type)).toEqual(expect.arrayContaining(['header', 'title', 'figure',
    'figure_caption', 'text', 'table_caption', 'table', 'footer']));
  expect(nativePage.tables.length, 'native found the table').toBe(1);
  expectLikeNative(PAGE_IMAGE, whole, nativePage);

  // Offline: once the service worker has saved the app, the models and XlsxWriter (used above), the network goes
  // and the page reloads; the table reads again and its XLSX holds the same cells.
  await expect(page.locator('#offline-status')).toHaveAttribute('data-state', 'ready', { timeout: BOOT_TIMEOUT });
  const saved = [...new Set(fetched.filter((p) => /\/(layout|table)\.onnx$|\/xlsx\//.test(p)))];
  expect(saved.length).toBe(3);
  await expect.poll(() => page.evaluate(async (want) => {
    const name = (await caches.keys()).find((n) => n.startsWith('retto-'));
    const have = new Set((await (await caches.open(name)).keys()).map((r) => new URL(r.url).pathname));
    return want.filter((p) => !have.has(p));
  }, saved), { timeout: 60_000 }).toEqual([]);
  await context.setOffline(true);
  await page.reload();
  await expect(page.getByRole('combobox', { name: 'Tables' })).toHaveValue('on');
  await expect(page.locator('#engine')).toHaveAttribute('data-state', 'ready', { timeout: BOOT_TIMEOUT });
  if (await page.locator('#clear-queue').isEnabled()) await page.locator('#clear-queue').click();
  await page.locator('#pick-files').setInputFiles(join(TABLES, IMAGE));
  const row = page.locator('#queue .job', { hasText: IMAGE });
  await expect(row).toHaveAttribute('data-status', /done|failed/, { timeout: OCR_TIMEOUT });
  expect(await row.getAttribute('data-status'), await page.locator('#result-status').textContent()).toBe('done');
  const offline = await download(page.getByRole('button', { name: 'XLSX of table 1' }));
  expect((await readBack(csv.path, offline.path)).xlsx).toEqual(gtRows(gt));
  await context.setOffline(false);
});
