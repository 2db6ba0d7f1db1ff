// The web app manifest's screenshots (the richer install dialog): the real app from dist/, reading a page of our
// own test set (tests/testset/pages/invoice.png: text written for this project, see scripts/data/make_testset.py),
// photographed wide (1280x800, desktop) and narrow (390x844, a phone) into web/public/screenshots/. Their sizes
// must match web/public/manifest.webmanifest (tests/e2e/pwa/install.spec.js checks the real PNG dimensions).
// Run after scripts/setup/setup_web.sh: node scripts/build/make_manifest_screenshots.mjs (then rebuild dist/ to ship them).
import { join } from 'node:path';
import { chromium } from '@playwright/test';
import { startServer } from '../serve_static.mjs';
import { CHROMIUM_ARGS, DIST, ROOT } from '../tests/e2e/fixtures.js';

const PAGE_IMAGE = join(ROOT, 'tests', 'testset', 'pages', 'invoice.png');
const OUT = join(ROOT, 'web', 'public', 'screenshots');
const SHOTS = [
  { name: 'wide', viewport: { width: 1280, height: 800 }, phone: false },
  { name: 'narrow', viewport: { width: 390, height: 844 }, phone: true },
];
const TIMEOUT = 5 * 60_000;

const server = await startServer({ dir: DIST, isolation: true });
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', args: CHROMIUM_ARGS });
try {
  for (const shot of SHOTS) {
    const context = await browser.newContext({ viewport: shot.viewport, deviceScaleFactor: 1,
      colorScheme: 'light', hasTouch: shot.phone, isMobile: shot.phone });
    const page = await context.newPage();
    await page.goto(server.url);
    await page.locator('#engine[data-state="ready"]').waitFor({ timeout: TIMEOUT });
    await page.locator('#pick-files').setInputFiles(PAGE_IMAGE);
    await page.locator('#queue .job[data-status="done"]').waitFor({ timeout: TIMEOUT });
    await page.locator('#lines .line').first().waitFor();
    await page.evaluate(() => document.activeElement?.blur());
    // The phone shot shows the result the person jumps to; the wide one the whole page from the top.
    if (shot.phone) await page.locator('#results').evaluate((el) => el.scrollIntoView());
    await page.screenshot({ path: join(OUT, `${shot.name}.png`) });
    await context.close();
    console.log(`${shot.name}.png ${shot.viewport.width}x${shot.viewport.height}`);
  }
} finally {
  await browser.close();
  await server.close();
}
