// Accessibility, checked by axe-core (npm axe-core, injected into the page) and by the keyboard: the page with a
// result at desktop and phone size in light and dark, the component's host page in light and dark, and the
// result's line list as one composite widget (one tab stop, arrow keys, Enter copies).
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { ARTEFACTS, DATA, expect, nativeResult, test } from '../product_fixtures.js';

const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
const BOOT_TIMEOUT = 3 * 60_000;
const OCR_TIMEOUT = 6 * 60_000;
const DESKTOP = { width: 1366, height: 900 };
const PHONE = { width: 390, height: 844 };

/** Every violation axe finds with its default rules (WCAG 2.x A/AA and best practices), one line per node. */
async function axeViolations(page) {
  if (!(await page.evaluate(() => Boolean(window.axe)))) {
    // The page's CSP allows only same-origin scripts (no inline ones): axe is served under the page's origin.
    const url = new URL('/__axe__/axe.min.js', page.url()).href;
    await page.route(url, (route) => route.fulfill({ path: AXE, contentType: 'text/javascript' }));
    await page.addScriptTag({ url });
  }
  const violations = await page.evaluate(async () => (await window.axe.run(document)).violations);
  return violations.flatMap((v) => v.nodes.map((n) => `${v.id} (${v.impact}): ${n.target.join(' >>> ')}\n    ${n.failureSummary.replace(/\n/g, '\n    ')}`));
}

// Soft: the keyboard checks after it still run and report.
async function expectNoViolations(page, where) {
  const found = [];
  for (const colorScheme of ['light', 'dark']) {
    await page.emulateMedia({ colorScheme });
    found.push(...(await axeViolations(page)).map((v) => `[${where}, ${colorScheme}] ${v}`));
  }
  expect.soft(found, found.join('\n')).toEqual([]);
}

const clipboard = (page) => page.evaluate(() => navigator.clipboard.readText());

test('a11y: the page with a result has no axe violations (desktop, phone, light, dark); the lines are one tab stop', async ({ app, servers }) => {
  const { page, context } = app;
  const FORM = join(DATA, '..', 'testset', 'pages', 'hard_form_scan.png'); // a poor scan: low-confidence lines
  const [baiona, form] = [nativeResult(join(DATA, 'baiona.png')), nativeResult(FORM)];
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  await page.setViewportSize(DESKTOP);
  await page.goto(servers.isolated);
  await expect(page.locator('#engine')).toHaveAttribute('data-state', 'ready', { timeout: BOOT_TIMEOUT });
  await page.locator('#pick-files').setInputFiles([join(DATA, 'baiona.png'), FORM]);
  for (const name of ['baiona.png', 'hard_form_scan.png']) {
    await expect(page.locator('#queue .job', { hasText: name })).toHaveAttribute('data-status', 'done', { timeout: OCR_TIMEOUT });
  }
  await page.locator('#queue .job', { hasText: 'baiona.png' }).locator('.job-button').click();
  const lines = page.locator('#lines [role=option]');
  await expect(lines).toHaveCount((await baiona).lines.length);
  await expectNoViolations(page, 'page, desktop');
  await page.setViewportSize(PHONE);
  await expectNoViolations(page, 'page, phone');
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize(DESKTOP);

  // The form scan has low-confidence lines (marked in the list) and is long (more lines than the list shows at
  // once; linn.png was used for that, and cost twice the reading for nothing more): axe on it, then the keyboard
  // walks it.
  await page.locator('#queue .job', { hasText: 'hard_form_scan.png' }).locator('.job-button').click();
  const native = (await form).lines;
  expect(native.some((l) => l.score < 0.8)).toBe(true);
  await expect(lines).toHaveCount(native.length);
  await expectNoViolations(page, 'page, desktop, low-confidence lines');
  await page.emulateMedia({ colorScheme: 'light' });
  await expect(page.getByRole('listbox', { name: /^Text/ })).toBeVisible();
  // One Tab from the control before the list reaches the list (its first line), one more leaves it.
  await page.locator('#download-hocr').focus();
  await page.keyboard.press('Tab');
  await expect(lines.nth(0)).toBeFocused();
  await expect(page.locator('#figure polygon').nth(0)).toHaveClass(/hover/); // the focused line's box is lit
  await page.keyboard.press('Tab');
  expect(await page.evaluate(() => document.activeElement.closest('#lines'))).toBeNull();
  await page.keyboard.press('Shift+Tab');
  await expect(lines.nth(0)).toBeFocused();
  // Arrows, End, Home, PageDown/PageUp move; the focused line is scrolled into the list's view.
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowDown');
  await expect(lines.nth(2)).toBeFocused();
  await expect(page.locator('#figure polygon').nth(2)).toHaveClass(/hover/);
  await page.keyboard.press('ArrowUp');
  await expect(lines.nth(1)).toBeFocused();
  const inListView = (i) => page.evaluate((i) => {
    const list = document.getElementById('lines').getBoundingClientRect();
    const line = document.querySelectorAll('#lines [role=option]')[i].getBoundingClientRect();
    return line.top >= list.top - 1 && line.bottom <= list.bottom + 1 && line.bottom <= innerHeight + 1;
  }, i);
  expect(await inListView(native.length - 1)).toBe(false); // a long list: its end starts out of view
  await page.keyboard.press('End');
  await expect(lines.nth(native.length - 1)).toBeFocused();
  expect(await inListView(native.length - 1)).toBe(true);
  await page.keyboard.press('Home');
  await expect(lines.nth(0)).toBeFocused();
  expect(await inListView(0)).toBe(true);
  await page.keyboard.press('PageDown');
  const afterPage = await lines.evaluateAll((ls) => ls.indexOf(document.activeElement));
  expect(afterPage).toBeGreaterThan(2);
  expect(await inListView(afterPage)).toBe(true);
  await page.keyboard.press('PageUp');
  await expect(lines.nth(0)).toBeFocused();
  // Still one tab stop, on the focused line.
  await page.keyboard.press('ArrowDown');
  expect(await page.locator('#lines [tabindex="0"]').evaluateAll((ls) => ls.map((l) => l.dataset.index))).toEqual(['1']);
  // Enter copies the focused line (the real clipboard) and the page says so; Ctrl+C too.
  await page.keyboard.press('Enter');
  await expect.poll(() => clipboard(page)).toBe(native[1].text);
  await expect(page.locator('#toast')).toHaveText('Line copied');
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('Control+c');
  await expect.poll(() => clipboard(page)).toBe(native[2].text);
  // Space selects (as a click does): the box is marked, the option says it is selected.
  await page.keyboard.press('Space');
  await expect(lines.nth(2)).toHaveAttribute('aria-selected', 'true');
  await expect(page.locator('#figure polygon').nth(2)).toHaveClass(/selected/);
});

test('a11y: the component host page after a result has no axe violations (light, dark); its lines copy by keyboard', async ({ app, servers }) => {
  const { page, context } = app;
  const FORM = join(DATA, '..', 'testset', 'pages', 'hard_form_scan.png'); // long, with low-confidence lines
  const form = nativeResult(FORM);
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  await page.setViewportSize(DESKTOP);
  await page.goto(`${servers.isolated}embed-example/`);
  await page.locator('#first').locator('input[type=file]').setInputFiles(FORM);
  const native = (await form).lines;
  const lines = page.locator('#first').locator('[role=option]');
  await expect(lines).toHaveCount(native.length, { timeout: OCR_TIMEOUT });
  await expect(page.locator('#second').locator('[role=option]').first()).toBeVisible({ timeout: OCR_TIMEOUT });
  await expectNoViolations(page, 'embed-example');
  // ...with the host page's own styles applied (a blocked inline <style> would hide its colours from axe).
  expect(app.logs.filter((l) => /Content Security Policy/.test(l))).toEqual([]);
  await page.screenshot({ path: join(ARTEFACTS, 'screen-7-component-dark.png'), fullPage: true }); // dark: the last scheme checked

  // The element's lines: one tab stop, arrows, Enter copies and the line says "Copied".
  await lines.nth(0).focus();
  await page.keyboard.press('ArrowDown');
  await expect(lines.nth(1)).toBeFocused();
  await page.keyboard.press('Enter');
  await expect.poll(() => clipboard(page)).toBe(native[1].text);
  await expect(lines.nth(1)).toHaveAttribute('data-copied', 'Copied');
  expect(await page.locator('#first').locator('[role=option][tabindex="0"]').count()).toBe(1);
});
