// <retto-ocr>'s downloads and its newest-call-wins rule (issue 23): a src changed while the older one is still
// being fetched shows only the newer result; a download gets a time limit (fetch-timeout) and a size limit
// (max-bytes, read as it arrives); a redirect to another origin is refused (the browser never requests it) unless
// the host page sets allow-cross-origin-redirects.
// Slow, large and redirecting answers come from Playwright routes on the app's own origins.
import { join } from 'node:path';
import { DATA, expect, nativeResult, test } from '../product_fixtures.js';

const TIMEOUT = 4 * 60_000;
const texts = (r) => r.lines.map((l) => l.text);

test('component: stale src results are dropped; fetch timeout, byte cap and cross-origin redirects', async ({ app, servers }) => {
  test.setTimeout(TIMEOUT);
  const { page, context } = app;
  const baiona = nativeResult(join(DATA, 'baiona.png'));
  const base = servers.isolated;
  // /slow/: the same test images, answered 4 s late; /big.png: 3 MB; /endless.png never answers;
  // /bounce.png: redirects to the other server's origin (same image).
  await context.route(`${base}slow/**`, async (route) => {
    const res = await route.fetch({ url: route.request().url().replace('/slow/', '/__testdata__/') });
    await new Promise((r) => setTimeout(r, 4000));
    await route.fulfill({ response: res });
  });
  await context.route(`${base}big.png`, (route) => route.fulfill({ contentType: 'image/png', body: Buffer.alloc(3 * 1024 * 1024) }));
  await context.route(`${base}endless.png`, () => {}); // never answered
  await context.route(`${base}bounce.png`, (route) => route.fulfill({ status: 302, headers: { location: `${servers.plain}__testdata__/baiona.png` } }));
  const toOther = [];
  // Answered requests only: Playwright also reports the redirect's next hop that the browser then refuses to send.
  context.on('requestfinished', (req) => { if (req.url().startsWith(servers.plain)) toOther.push(req.url()); });
  await page.addInitScript(() => {
    window.__events = [];
    document.addEventListener('retto-result', (e) => window.__events.push({ id: e.target.id, lines: e.detail.lines.length }));
  });
  await page.goto(`${base}embed-example/`);
  await page.waitForFunction(() => document.querySelector('#second')?.info, null, { timeout: TIMEOUT });

  // The older src (typewriter, answered late) is overtaken by a newer one (baiona): only baiona is shown/emitted.
  const older = await page.locator('#second').evaluate(async (el) => {
    const first = el.recognize('/slow/typewriter.png');
    await new Promise((r) => setTimeout(r, 200));
    const second = el.recognize('/__testdata__/baiona.png');
    const [a, b] = await Promise.all([first, second]);
    return { a: a.lines.length, b: b.lines.length };
  });
  const want = texts(await baiona);
  expect(older.b).toBe(want.length);
  expect(older.a).toBeGreaterThan(want.length); // the older call still resolved for its caller...
  await expect(page.locator('#second').locator('.line')).toHaveCount(want.length); // ...but the view is baiona's
  expect(await page.locator('#second').locator('.line .text').allTextContents()).toEqual(want);
  expect(await page.evaluate(() => window.__events.filter((e) => e.id === 'second').map((e) => e.lines))).toEqual([want.length]);

  const failure = (src, attrs) => page.locator('#second').evaluate((el, { src, attrs }) => {
    for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
    const t0 = performance.now();
    return el.recognize(src).then(() => null, (e) => ({ code: e.code, message: e.message, ms: performance.now() - t0 }));
  }, { src, attrs });
  const big = await failure('/big.png', { 'max-bytes': String(1024 * 1024) });
  expect(big).toMatchObject({ code: 'file_too_large', message: `${base}big.png is larger than 1048576 bytes (max-bytes)` });
  const slow = await failure('/endless.png', { 'fetch-timeout': '1500' });
  expect(slow).toMatchObject({ code: 'fetch_failed', message: `could not download ${base}endless.png within 1.5 s (fetch-timeout)` });
  expect(slow.ms).toBeLessThan(10_000);
  const bounced = await failure('/bounce.png', {});
  expect(bounced.code).toBe('fetch_failed');
  expect(bounced.message).toContain('allow-cross-origin-redirects');
  expect(toOther).toEqual([]); // the browser stopped at the redirect: the other origin was never asked
});
