// Choosing a model set where people meet it: the page's "Text to read" list (every set by label and size, the
// build's default preselected, a switch without reload, remembered) and <retto-ocr models="...">. Extra runs use
// the small v6 set; which set is the default is read from the build, never assumed.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { APP_DIST, DATA, expect, test } from '../product_fixtures.js';
import { runNative } from '../fixtures.js';

const TIMEOUT = 4 * 60_000;
const MANIFEST = JSON.parse(readFileSync(join(APP_DIST, 'assets', 'manifest.json'), 'utf8'));
const DEFAULT = MANIFEST.default_model_set;
const SETS = Object.entries(MANIFEST.model_sets).map(([name, e]) => ({ name, ...e.set }))
  .sort((a, b) => a.order - b.order || a.name.localeCompare(b.name));
// Another PaddleOCR set than the default, one without a WebGL version: the reload below then checks the note that
// says so, and boots on the CPU (a set with WebGL models, chosen with WebGL, booted on this machine's software
// WebGL for about 20 s to check nothing).
const otherSet = SETS.find((s) => s.name !== DEFAULT && s.name.startsWith('ppocr-') && s.webgl.supported === false);
const OTHER = otherSet.name;
const SAMPLE = join(APP_DIST, 'embed-example', 'sample.png');

const nativeTexts = async (models, path) => JSON.parse(await runNative(['-m', 'retto', '--models', models,
  '--images', path, '--format', 'json', '--no-progress']))[0].lines.map((l) => l.text);

test('page: "Text to read" lists every set; a switch reads the next image with it, no reload; it is remembered', async ({ app, servers }) => {
  const { page } = app;
  const native = nativeTexts(OTHER, join(DATA, 'baiona.png'));
  await page.goto(servers.isolated);
  const select = page.locator('#model-set');
  await expect(select).toBeEnabled();
  await expect(page.getByLabel('Text to read')).toHaveCount(1); // a labelled control (keyboard and screen readers)
  const options = await select.locator('option').allTextContents();
  expect(options.map((t) => t.split(' · ')[0])).toEqual(SETS.map((s) => s.label));
  for (const t of options) expect(t).toMatch(/ · \d+(\.\d)? MB$/);
  await expect(select).toHaveValue(DEFAULT);
  await expect(page.locator('#model-set-summary')).toHaveText(SETS.find((s) => s.name === DEFAULT).summary);
  await expect(page.locator('#engine')).toHaveAttribute('data-state', 'ready', { timeout: TIMEOUT });

  // Switch, then add an image at once: it waits for the new engine and is read with the new set.
  await page.evaluate(() => { window.__sameDocument = true; });
  await select.selectOption(OTHER);
  await expect(page.locator('#model-set-summary')).toHaveText(otherSet.summary);
  await page.locator('#pick-files').setInputFiles(join(DATA, 'baiona.png'));
  const row = page.locator('#queue .job', { hasText: 'baiona.png' });
  await expect(row).toHaveAttribute('data-status', /done|failed/, { timeout: TIMEOUT });
  expect(await row.getAttribute('data-status'), await page.locator('#result-status').textContent()).toBe('done');
  expect(await page.evaluate(() => window.__sameDocument)).toBe(true); // no reload
  await expect(page.locator('#result-set')).toHaveText(`Read with: ${otherSet.label}`);
  expect(await page.locator('#lines .line .text').allTextContents()).toEqual(await native);
  const [download] = await Promise.all([page.waitForEvent('download'), page.locator('#download-json').click()]);
  expect(JSON.parse(readFileSync(await download.path(), 'utf8')).model_set).toBe(OTHER);

  // Reload: the set is remembered. With WebGL chosen, a set without WebGL models says what runs it instead.
  await page.evaluate(() => localStorage.setItem('retto.backend', 'webgl'));
  await page.reload();
  await expect(select).toHaveValue(OTHER);
  await expect(page.locator('#backend')).toHaveValue('webgl');
  await expect(page.locator('#model-set-note')).toHaveText(/has no WebGL version, so it runs on the CPU or through WebGPU instead\.$/);
  await expect(page.locator('#engine')).toHaveAttribute('data-state', 'ready', { timeout: TIMEOUT });
  await expect(page.locator('#backend-info')).toContainText('runs on this device (CPU');
});

test('component: models="…" reads with that set; same set shares a worker, a changed attribute re-creates the engine', async ({ app, servers }) => {
  const { page, context } = app;
  const native = nativeTexts(OTHER, SAMPLE);
  await context.route(`${servers.isolated}embed-example/models.html`, (route) => route.fulfill({
    contentType: 'text/html',
    body: `<!doctype html><script type="module" src="../retto-ocr.js"></script>
      <retto-ocr id="a" models="${OTHER}" src="sample.png"></retto-ocr><retto-ocr id="b" models="${OTHER}"></retto-ocr>`,
  }));
  const ocrWorkers = () => page.workers().filter((w) => /\/assets\/retto-ocr\/worker-[^/]*\.js/.test(w.url()));
  await page.goto(`${servers.isolated}embed-example/models.html`);
  const a = await page.locator('#a').evaluate((el) => el.result ?? new Promise((resolve) => {
    el.addEventListener('retto-result', (e) => resolve(e.detail), { once: true });
  }));
  expect(a.model_set).toBe(OTHER);
  expect(a.lines.map((l) => l.text)).toEqual(await native);
  expect(await page.locator('#a').evaluate((el) => el.models)).toBe(OTHER);
  await expect(page.locator('#a').locator('.status')).toContainText(otherSet.label);
  const b = await page.locator('#b').evaluate((el) => el.recognize('sample.png'));
  expect(b.model_set).toBe(OTHER);
  // Same backend, asset base and set: one engine (one client, one worker at a time). Counting workers would not
  // do: an engine replaces a worker that rests with a large wasm memory (idleRecycleBytes), and v4 reading a
  // small image makes a large det input.
  const engines = () => page.evaluate(async () => Promise.all(['#a', '#b'].map((id) => document.querySelector(id).engineRef.engine))
    .then(([x, y]) => ({ shared: x === y, boots: [x.boots, y.boots] })));
  expect((await engines()).shared).toBe(true);
  expect(ocrWorkers().length).toBeLessThanOrEqual(1);

  // Back to the build's default set through the property: a new engine, and the next result says so.
  const again = await page.locator('#b').evaluate((el) => { el.models = ''; return el.recognize('sample.png'); });
  expect(again.model_set).toBe(DEFAULT);
  expect((await engines()).shared).toBe(false);
});
