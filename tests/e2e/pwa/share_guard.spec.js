// The share target (issue 23): a form on another origin that posts files to the app's share action, with no user
// gesture, queues nothing (the service worker refuses it before reading the body), with or without a referrer;
// from the app's own origin, more than 20 files or more than 100 MB are refused and nothing is kept. The POST
// that is accepted (same origin, one file) is install.spec.js's.
import { expect, test } from '../product_fixtures.js';

const TIMEOUT = 3 * 60_000;

test('share target: cross-origin form posts queue nothing; over the caps nothing is kept', async ({ app, servers }) => {
  test.setTimeout(TIMEOUT);
  const { page, context } = app;
  await page.goto(`${servers.isolated}?boot=0`);
  await page.evaluate(() => navigator.serviceWorker.ready);
  if (!await page.evaluate(() => navigator.serviceWorker.controller)) await page.reload();
  await page.waitForFunction(() => navigator.serviceWorker.controller !== null, null, { timeout: TIMEOUT });
  const sharedCount = () => page.evaluate(async () => (await (await caches.open('shared-files')).keys()).length);

  // Another origin (the same build on another port: same site, other origin) submits a form to the share action.
  const action = new URL('share-target', servers.isolated).href;
  // The page is answered by the test (the app's server sends a CSP with form-action 'none', as a hostile site would not).
  const hostileUrl = `${servers.plain}__hostile__.html`;
  let referrer = '';
  await context.route(hostileUrl, (route) => route.fulfill({ contentType: 'text/html', body: `<!doctype html>
    <meta name="referrer" content="${referrer}"><form method="post" enctype="multipart/form-data"
    action="${action}"><input type="file" name="files" multiple></form>` }));
  const hostile = await context.newPage();
  for (referrer of ['strict-origin-when-cross-origin', 'no-referrer']) {
    await hostile.goto(hostileUrl);
    await hostile.evaluate(() => {
      const dt = new DataTransfer();
      for (const name of ['a.png', 'b.png', 'c.png']) dt.items.add(new File([new Uint8Array(64)], name, { type: 'image/png' }));
      document.querySelector('input').files = dt.files;
    });
    const [response] = await Promise.all([hostile.waitForResponse((r) => r.url().startsWith(action), { timeout: 30_000 }),
      hostile.evaluate(() => document.querySelector('form').submit())]);
    await hostile.waitForLoadState();
    expect(response.status(), referrer).toBe(403);
    expect(await hostile.textContent('body'), referrer).toContain('did not take the shared files');
    expect(await sharedCount(), referrer).toBe(0);
  }
  await hostile.close();

  // From the app's own page: 21 files, then one file of 101 MB.
  const statuses = await page.evaluate(async (act) => {
    const post = async (files) => {
      const form = new FormData();
      for (const f of files) form.append('files', f);
      const res = await fetch(act, { method: 'POST', body: form });
      return [res.status, await res.text()];
    };
    const many = Array.from({ length: 21 }, (_, i) => new File([new Uint8Array(8)], `f${i}.png`, { type: 'image/png' }));
    return [await post(many), await post([new File([new Uint8Array(101 * 1024 * 1024)], 'big.png', { type: 'image/png' })])];
  }, action);
  expect(statuses[0]).toEqual([413, 'Retto did not take the shared files: 21 files were shared; the limit is 20.']);
  expect(statuses[1]).toEqual([413, 'Retto did not take the shared files: more than 100 MB were shared at once.']);
  expect(await sharedCount()).toBe(0);
  await page.goto(`${servers.isolated}?shared=3`); // as if a refused share had been announced: nothing arrives
  await expect(page.locator('#queue .job')).toHaveCount(0);
});
