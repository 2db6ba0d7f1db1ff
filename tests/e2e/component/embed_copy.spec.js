// The embedding recipe (docs/guides/component.md), followed literally: a host site that got ONLY dist/retto-ocr.js and dist/assets/
// (copied into a folder of its own, here ocr/), its own page and its own image, served with the same headers as
// dist/ by scripts/serve_static.mjs. The element must start, read the image as the native CLI does, and ask for
// nothing the copy lacks. And a host that forgot assets/ must be told why nothing works.
import { copyFileSync, linkSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { launchChromium, ROOT } from '../fixtures.js';
import { APP_DIST, DATA, expect, nativeResult, startServer, test } from '../product_fixtures.js';

const TIMEOUT = 4 * 60_000;

/** Copy a tree; hard links where the file system allows (dist/assets/ is ~300 MB with its .br/.gz copies). */
function copyTree(from, to) {
  mkdirSync(to, { recursive: true });
  for (const name of readdirSync(from)) {
    const [src, dst] = [join(from, name), join(to, name)];
    if (statSync(src).isDirectory()) copyTree(src, dst);
    else {
      try { linkSync(src, dst); } catch { copyFileSync(src, dst); }
    }
  }
}

const HOST_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>A host site</title>
<script type="module" src="ocr/retto-ocr.js"></script></head>
<body><h1>My site</h1><retto-ocr id="ocr" src="scan.png"></retto-ocr></body></html>
`;

/** site/: index.html + scan.png (the host's own) + ocr/ = what docs/guides/component.md says to copy (with or without assets/). */
function makeSite(dir, { withAssets }) {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(join(dir, 'ocr'), { recursive: true });
  writeFileSync(join(dir, 'index.html'), HOST_PAGE);
  copyFileSync(join(DATA, 'baiona.png'), join(dir, 'scan.png'));
  copyFileSync(join(APP_DIST, 'retto-ocr.js'), join(dir, 'ocr', 'retto-ocr.js'));
  if (withAssets) copyTree(join(APP_DIST, 'assets'), join(dir, 'ocr', 'assets'));
}

/** A browser on the site; collects failed responses and keeps every request on the site's origin. */
async function openSite(dir) {
  const server = await startServer({ dir, isolation: true });
  const browser = await launchChromium();
  const context = await browser.newContext();
  const origin = new URL(server.url).origin;
  const failed = [];
  const offOrigin = [];
  context.on('response', (r) => { if (r.status() >= 400) failed.push(`${r.status()} ${r.url()}`); });
  await context.route((url) => url.origin !== origin && /^(https?|wss?):$/.test(url.protocol), (route) => {
    offOrigin.push(route.request().url());
    return route.abort('blockedbyclient');
  });
  const page = await context.newPage();
  await page.addInitScript(() => {
    window.__events = [];
    for (const type of ['retto-result', 'retto-error']) document.addEventListener(type, (e) => window.__events.push({ type, detail: e.detail }));
  });
  const close = async () => { await browser.close(); await server.close(); };
  return { page, url: server.url, failed, offOrigin, close };
}

const firstEvent = (page) => expect.poll(() => page.evaluate(() => window.__events.length), { timeout: TIMEOUT })
  .toBeGreaterThan(0).then(() => page.evaluate(() => window.__events[0]));

test('embed copy: ONLY retto-ocr.js + assets/ in a folder of the host site read its image as the native CLI does', async () => {
  test.setTimeout(TIMEOUT + 60_000);
  const dir = join(ROOT, 'test-artefacts', 'embed-copy-site');
  makeSite(dir, { withAssets: true });
  const site = await openSite(dir);
  try {
    await site.page.goto(site.url);
    const event = await firstEvent(site.page);
    expect(event.type, JSON.stringify(event.detail).slice(0, 300)).toBe('retto-result');
    const native = await nativeResult(join(DATA, 'baiona.png'));
    expect(event.detail.lines.map((l) => l.text)).toEqual(native.lines.map((l) => l.text));
    await expect(site.page.locator('#ocr').locator('.line')).toHaveCount(native.lines.length);
    // The one module also exports the client (as dist/retto-ocr.d.ts declares).
    const names = await site.page.evaluate(async () => Object.keys(await import('./ocr/retto-ocr.js')).sort());
    expect(names).toEqual(['EXPORT_FORMATS', 'Retto', 'RettoError', 'RettoOcrElement', 'RettoPool', 'default',
      'defaultPoolSize']);
    expect(site.failed).toEqual([]);
    expect(site.offOrigin).toEqual([]);
  } finally {
    await site.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('embed copy: without assets/ the element says why it cannot start (event + visible text)', async () => {
  const dir = join(ROOT, 'test-artefacts', 'embed-copy-no-assets');
  makeSite(dir, { withAssets: false });
  const site = await openSite(dir);
  try {
    await site.page.goto(site.url);
    const event = await firstEvent(site.page);
    expect(event.type).toBe('retto-error');
    expect(event.detail.code).toBe('worker_load_failed');
    const el = site.page.locator('#ocr');
    await expect(el.locator('.error')).toContainText('could not be loaded');
    await expect(el.locator('.error')).toContainText('copy the whole assets/ folder');
    await expect(el.locator('.status')).toContainText('worker_load_failed');
    expect(site.failed.some((f) => /^404 .*\/ocr\/assets\/retto-ocr\/worker-[^/]+\.js$/.test(f)), site.failed.join('\n')).toBe(true);
  } finally {
    await site.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
