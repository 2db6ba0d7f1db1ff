// <retto-ocr> on a plain host page (web/embed-example/, no framework, its own folder): files set through the
// shadow root, a src attribute, drop, the method, events; two instances sharing one worker; a host page that
// is not cross-origin isolated (one thread, and it says why) and one that is.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ARTEFACTS, APP_DIST, DATA, expect, nativeResult, test } from '../product_fixtures.js';

const TIMEOUT = 4 * 60_000;
const SAMPLE = join(APP_DIST, 'embed-example', 'sample.png'); // the example's own image, as shipped

// Collect the elements' events (they bubble out of the shadow root, composed).
function eventLog() {
  window.__events = [];
  for (const type of ['retto-result', 'retto-error', 'retto-progress']) {
    document.addEventListener(type, (e) => {
      if (type === 'retto-progress' && e.detail.stage !== 'ready') return;
      window.__events.push({ type, id: e.target.id, detail: e.detail });
    });
  }
}

const texts = (r) => r.lines.map((l) => l.text);
// The element's own build puts its worker inside assets/ (vite.component.config.js), so copying assets/ brings it.
const ocrWorkers = (page) => page.workers().filter((w) => /\/assets\/retto-ocr\/worker-[^/]*\.js/.test(w.url()));

async function waitForEvent(page, type, id) {
  await expect.poll(() => page.evaluate(({ type, id }) => window.__events.filter((e) => e.type === type && e.id === id).length,
    { type, id }), { timeout: TIMEOUT }).toBeGreaterThan(0);
  return page.evaluate(({ type, id }) => window.__events.filter((e) => e.type === type && e.id === id).at(-1).detail, { type, id });
}

test('component: two instances on a NON-isolated host share one worker, run on one thread and say why', async ({ app, servers }) => {
  const { page } = app;
  const [baiona, sample] = [nativeResult(join(DATA, 'baiona.png')), nativeResult(SAMPLE)];
  await page.addInitScript(eventLog);
  await page.goto(`${servers.plain}embed-example/`);
  expect(await page.evaluate(() => window.crossOriginIsolated)).toBe(false);

  // #second has src="sample.png": it recognises it by itself. #first gets a file through its shadow root.
  await page.locator('#first').locator('input[type=file]').setInputFiles(join(DATA, 'baiona.png'));
  const first = await waitForEvent(page, 'retto-result', 'first');
  const second = await waitForEvent(page, 'retto-result', 'second');
  expect(texts(first)).toEqual(texts(await baiona));
  expect(texts(second)).toEqual(texts(await sample));
  expect((await sample).lines.length).toBeGreaterThan(1);

  // One engine for both: a single OCR worker, and both elements report the same single-threaded backend.
  expect(ocrWorkers(page)).toHaveLength(1);
  const ready = await page.evaluate(() => window.__events.filter((e) => e.type === 'retto-progress').map((e) => e.detail.info.wasm));
  expect(ready).toHaveLength(2);
  for (const wasm of ready) {
    expect(wasm.threads).toBe(1);
    expect(wasm.crossOriginIsolated).toBe(false);
    expect(wasm.threadsReason).toMatch(/not cross-origin isolated/);
  }
  for (const id of ['#first', '#second']) {
    await expect(page.locator(id).locator('.status')).toContainText('Runs on one thread: this page is not cross-origin isolated');
  }

  // The result is shown inside: boxes (show-boxes) and lines.
  await expect(page.locator('#first').locator('.line')).toHaveCount(first.lines.length);
  await expect(page.locator('#first').locator('polygon')).toHaveCount(first.lines.length);
  // Host styling reaches in through ::part() and custom properties (the example's CSS).
  expect(await page.locator('#second').locator('.dropzone').evaluate((e) => getComputedStyle(e).borderTopStyle)).toBe('solid');
  expect(await page.locator('#second').locator('polygon').first().evaluate((e) => getComputedStyle(e).stroke)).toBe('rgb(106, 27, 154)');
  await page.screenshot({ path: join(ARTEFACTS, 'component-plain-host.png'), fullPage: true });
});

test('component: isolated host uses all cores; drop, recognize(url) and retto-error', async ({ app, servers }) => {
  const { page } = app;
  const baiona = nativeResult(join(DATA, 'baiona.png'));
  await page.addInitScript(eventLog);
  await page.goto(`${servers.isolated}embed-example/`);
  expect(await page.evaluate(() => window.crossOriginIsolated)).toBe(true);
  const info = await waitForEvent(page, 'retto-progress', 'first');
  expect(info.info.wasm.threads).toBe(await page.evaluate(() => navigator.hardwareConcurrency));

  // A file dropped on #first (a synthetic drop with a real DataTransfer, as a person's drag would send).
  const bytes = readFileSync(join(DATA, 'baiona.png')).toString('base64');
  await page.locator('#first').evaluate((el, b64) => {
    const dt = new DataTransfer();
    dt.items.add(new File([Uint8Array.from(atob(b64), (c) => c.charCodeAt(0))], 'baiona.png', { type: 'image/png' }));
    const zone = el.shadowRoot.querySelector('.dropzone');
    zone.dispatchEvent(new DragEvent('dragover', { dataTransfer: dt, bubbles: true, composed: true, cancelable: true }));
    zone.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, composed: true, cancelable: true }));
  }, bytes);
  const dropped = await waitForEvent(page, 'retto-result', 'first');
  expect(texts(dropped)).toEqual(texts(await baiona));

  // The method, with a URL, resolves with the same JSON the event carries.
  const viaUrl = await page.locator('#second').evaluate((el) => el.recognize('/__testdata__/baiona.png'));
  expect(texts(viaUrl)).toEqual(texts(await baiona));

  await expect(page.locator('#second').locator('.line')).toHaveCount(viaUrl.lines.length);

  // Not an image: the promise rejects with a code, retto-error fires, the element says so, and it still works;
  // the previous image and text are gone (they are not this input's result).
  const err = await page.locator('#second').evaluate((el) => el.recognize(new Blob(['not an image'])).then(() => null, (e) => e.code));
  expect(err).toBe('invalid_image');
  const errEvent = await waitForEvent(page, 'retto-error', 'second');
  expect(errEvent.code).toBe('invalid_image');
  await expect(page.locator('#second').locator('.error')).toContainText('could not be read as an image');
  await expect(page.locator('#second').locator('.line')).toHaveCount(0);
  await expect(page.locator('#second').locator('.result')).toBeHidden();

  // A URL that 404s is a failed download, with its status, not advice about image formats.
  const missing = await page.locator('#second').evaluate((el) => el.recognize('/__testdata__/no-such-file.png')
    .then(() => null, (e) => ({ code: e.code, status: e.status, message: e.message })));
  expect(missing).toEqual({ code: 'fetch_failed', status: 404,
    message: `could not download ${servers.isolated}__testdata__/no-such-file.png (404)` });
  const missingEvent = await page.evaluate(() => window.__events.filter((e) => e.type === 'retto-error').at(-1).detail);
  expect(missingEvent).toMatchObject({ code: 'fetch_failed', status: 404 });
  await expect(page.locator('#second').locator('.error')).toContainText('could not be downloaded');
  await expect(page.locator('#second').locator('.error')).not.toContainText('PNG, JPEG');
  await expect(page.locator('#second').locator('.status')).toContainText('(404)');
  expect(ocrWorkers(page)).toHaveLength(1);
});
