// Layout in the browser: a page given sideways is shown upright with its boxes on their words, its text comes
// out in reading order (column by column), and the browser reads turned and two-column pages exactly like the
// native CLI (lines, page_angle, blocks): the turned page through the page (its JSON download), the two-column
// page through the client API.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ARTEFACTS, expect, nativeResult, test } from '../product_fixtures.js';
import { ROOT, runNative } from '../fixtures.js';
import { BOX_TOLERANCE_PX, diffResults } from '../compare.js';

const PAGES = join(ROOT, 'tests', 'testset', 'pages');
const ROT90 = join(PAGES, 'columns_two_rot90.png'); // columns_two turned 90° clockwise (1754 x 1240)
const TWO = join(PAGES, 'columns_two.png');
const BOOT_TIMEOUT = 3 * 60_000;
const OCR_TIMEOUT = 6 * 60_000;

const gt = (name) => JSON.parse(readFileSync(join(PAGES, `${name}.gt.json`), 'utf8'));

/** The native CLI's text output for a file, without its "== path ==" header. */
async function nativeText(path) {
  const out = await runNative(['-m', 'retto', '--images', path, '--format', 'text', '--no-progress']);
  return out.split('\n').filter((l, i) => !(i === 0 && /^== .* ==$/.test(l))).join('\n').replace(/\n+$/, '');
}

/** A point of the image as given -> the upright page (undo a clockwise turn of `angle`; see to_source). */
function upright([x, y], angle, width, height) {
  for (let k = 0; k < angle / 90; k++) [x, y, width, height] = [y, width - x, height, width];
  return [x, y];
}

/** What differs between a browser result and the native one: lines, page_angle, blocks and their boxes. */
function parityDiffs(name, browser, native) {
  const diffs = diffResults(name, browser, native);
  if (browser.page_angle !== native.page_angle) diffs.push(`${name}: page_angle ${browser.page_angle} vs native ${native.page_angle}`);
  const blocks = (r) => r.blocks.map((b) => b.lines);
  if (JSON.stringify(blocks(browser)) !== JSON.stringify(blocks(native))) {
    diffs.push(`${name}: blocks ${JSON.stringify(blocks(browser))} vs native ${JSON.stringify(blocks(native))}`);
  }
  browser.blocks.forEach((b, i) => {
    const worst = Math.max(...b.box.flatMap((p, k) => p.map((v, c) => Math.abs(v - (native.blocks[i]?.box[k][c] ?? Infinity)))));
    if (!(worst <= BOX_TOLERANCE_PX)) diffs.push(`${name} block ${i}: box ${JSON.stringify(b.box)} vs native ${JSON.stringify(native.blocks[i]?.box)}`);
  });
  return diffs;
}

test('page: a page dropped sideways is shown upright, boxes on their words, text in reading order', async ({ app, servers }) => {
  const { page, context } = app;
  const native = await nativeResult(ROT90);
  const nativeTxt = nativeText(ROT90);
  expect(native.page_angle).toBe(90);
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  await page.setViewportSize({ width: 1366, height: 900 });
  await page.goto(`${servers.isolated}?backend=wasm`);
  await expect(page.locator('#engine')).toHaveAttribute('data-state', 'ready', { timeout: BOOT_TIMEOUT });
  await page.locator('#pick-files').setInputFiles(ROT90);
  const row = page.locator('#queue .job', { hasText: 'columns_two_rot90.png' });
  await expect(row).toHaveAttribute('data-status', /done|failed/, { timeout: OCR_TIMEOUT });
  expect(await row.getAttribute('data-status'), await page.locator('#result-status').textContent()).toBe('done');
  const lines = page.locator('#lines .line');
  await expect(lines).toHaveCount(native.lines.length);

  // Upright: a portrait stage (the upright page's 1240:1754), the image layer turned -90°, every box where the
  // native box lands once the page is turned upright.
  const { width: W, height: H } = native.image;
  const shown = await page.evaluate(() => {
    const stage = document.querySelector('#figure .stage');
    const s = stage.getBoundingClientRect();
    const rect = (el) => { const r = el.getBoundingClientRect(); return [r.left - s.left, r.top - s.top, r.width, r.height]; };
    return { angle: stage.dataset.pageAngle, stage: [s.width, s.height], img: rect(document.querySelector('#figure img')),
      transform: getComputedStyle(document.querySelector('#figure .page-layer')).transform,
      boxes: Array.from(document.querySelectorAll('#figure polygon'), rect),
      overflow: document.documentElement.scrollWidth - window.innerWidth };
  });
  expect(shown.angle).toBe('90');
  expect(Math.abs(shown.stage[1] / shown.stage[0] - W / H)).toBeLessThan(0.01);
  shown.img.forEach((v, k) => expect(Math.abs(v - [0, 0, ...shown.stage][k]), 'image fills the stage').toBeLessThan(1.5));
  const m = shown.transform.match(/matrix\(([^)]*)\)/)[1].split(',').map(Number); // rotate(-90deg)
  [0, -1, 1, 0].forEach((v, k) => expect(Math.abs(m[k] - v)).toBeLessThan(1e-6));
  expect(shown.overflow).toBeLessThanOrEqual(0);
  const scale = shown.stage[0] / H;
  native.lines.forEach((l, i) => {
    const pts = l.box.map((p) => upright(p, 90, W, H));
    const xs = pts.map((p) => p[0]);
    const ys = pts.map((p) => p[1]);
    const want = [Math.min(...xs), Math.min(...ys), Math.max(...xs) - Math.min(...xs), Math.max(...ys) - Math.min(...ys)]
      .map((v) => v * scale);
    shown.boxes[i].forEach((v, k) => expect(Math.abs(v - want[k]), `line ${i} box`).toBeLessThan(2));
  });
  // The title's box is a wide box across the top of the upright page.
  const [tx, ty, tw, th] = shown.boxes[0];
  expect(tw).toBeGreaterThan(5 * th);
  expect(ty + th).toBeLessThan(0.2 * shown.stage[1]);
  expect(Math.abs(tx + tw / 2 - shown.stage[0] / 2)).toBeLessThan(0.1 * shown.stage[0]);

  // Linking still works on the turned overlay: hover a line -> its box; click a box -> its line.
  const polys = page.locator('#figure polygon');
  await lines.nth(3).hover();
  await expect(polys.nth(3)).toHaveClass(/hover/);
  await polys.nth(20).click({ force: true });
  await expect(lines.nth(20)).toHaveClass(/selected/);
  await page.screenshot({ path: join(ARTEFACTS, 'layout-desktop-rot90.png') });

  // Reading order: Copy text and TXT are the native CLI's text, and the ground truth's order, column by column.
  const text = await nativeTxt;
  await page.locator('#copy-one').click();
  await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toBe(text);
  const [d] = await Promise.all([page.waitForEvent('download'), page.locator('#download-txt').click()]);
  expect(readFileSync(await d.path(), 'utf8')).toBe(`== columns_two_rot90.png ==\n${text}\n`); // the CLI's text format
  // The page's JSON is the browser's whole record: lines, page_angle and blocks as natively (the turned page's
  // parity; the two-column page's is the client test below).
  const [j] = await Promise.all([page.waitForEvent('download'), page.locator('#download-json').click()]);
  expect(parityDiffs('columns_two_rot90.png', JSON.parse(readFileSync(await j.path(), 'utf8')), native)).toEqual([]);
  const got = text.split('\n');
  const truth = gt('columns_two_rot90').lines;
  const at = truth.map((l) => got.indexOf(l.text));
  expect(at.filter((i) => i >= 0).length, 'ground-truth lines read exactly').toBeGreaterThanOrEqual(0.9 * truth.length);
  const found = at.filter((i) => i >= 0);
  expect(found, 'ground-truth order').toEqual([...found].sort((a, b) => a - b));
  const col = (c) => truth.flatMap((l, k) => (l.column === c && at[k] >= 0 ? [at[k]] : []));
  expect(Math.max(...col(0))).toBeLessThan(Math.min(...col(1))); // the first column before the second
});

test('client: a two-column page reads the same in the browser and natively', async ({ engine }) => {
  const [native, got] = await Promise.all([nativeResult(TWO), engine.recognize(readFileSync(TWO))]);
  expect(got.error).toBeUndefined();
  expect(parityDiffs('columns_two.png', got.result, native)).toEqual([]);
});
