// Phones (a touch screen without hover, 390x844): "Take photo" (the camera, via capture=environment) instead of
// the paste and folder hints, and no blank band between Queue and Result. A desktop context keeps its hints.
import { join } from 'node:path';
import { DATA, expect, test } from '../product_fixtures.js';
import { launchChromium } from '../fixtures.js';

test('phone: Take photo, no desktop hints, Queue and Result close together; desktop unchanged', async ({ servers }) => {
  const browser = await launchChromium();
  try {
    const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true });
    const page = await phone.newPage();
    await page.goto(servers.isolated);
    expect(await page.evaluate(() => matchMedia('(hover: none) and (pointer: coarse)').matches)).toBe(true);
    await expect(page.getByText('Take photo', { exact: true })).toBeVisible();
    await expect(page.locator('#take-photo')).toHaveAttribute('capture', 'environment');
    await expect(page.locator('#take-photo')).toHaveAttribute('accept', 'image/*');
    await expect(page.getByText('Choose a folder')).toBeHidden();
    await expect(page.locator('#pick-folder')).toBeHidden(); // with its label: no input left without a name
    await expect(page.locator('.drop-hint kbd').first()).toBeHidden();
    await expect(page.getByText('Drop images, PDFs or folders here')).toBeHidden();
    await expect(page.locator('#dropzone').getByText('Add images or PDFs', { exact: true })).toBeVisible();
    // The grid's rows used to stretch to the window's height, leaving ~175 px of nothing under the queue.
    const gap = async () => page.evaluate(() => document.getElementById('results').getBoundingClientRect().top
      - document.querySelector('.inbox').getBoundingClientRect().bottom);
    expect(await gap()).toBeLessThanOrEqual(12); // the layout's own gap (.6rem)
    // A photo "taken" joins the queue like a picked file.
    await page.locator('#take-photo').setInputFiles(join(DATA, 'baiona.png'));
    await expect(page.locator('#queue .job', { hasText: 'baiona.png' })).toBeVisible();
    expect(await gap()).toBeLessThanOrEqual(12);

    const desktop = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const wide = await desktop.newPage();
    await wide.goto(servers.isolated);
    await expect(wide.getByText('Take photo', { exact: true })).toBeHidden();
    await expect(wide.locator('#take-photo')).toBeHidden();
    await expect(wide.getByText('Choose a folder')).toBeVisible();
    await expect(wide.locator('.drop-hint kbd').first()).toBeVisible();
  } finally {
    await browser.close();
  }
});
