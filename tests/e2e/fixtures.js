// Shared e2e fixtures: the dist/ servers (isolated and not), a fresh Chromium per test with a guard that
// fails the test on any off-origin request, and helpers to drive the client API inside the page.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { test as base, expect, chromium } from '@playwright/test';
import { startServer } from '../../scripts/serve_static.mjs';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
// RETTO_DIST may point the whole suite at another build (default: dist/).
export const DIST = process.env.RETTO_DIST || join(ROOT, 'dist');
export const DATA = join(ROOT, 'tests', 'data');
export const PYTHON = join(ROOT, '.venv', 'bin', 'python');

// docs/facts.md §6: flags that work as root in this container. Playwright gives every launch a fresh temporary
// --user-data-dir (it refuses one passed in args), so each test starts from an empty profile and cache.
export const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];

const run = promisify(execFile);

/** Run a command (the native side of a comparison); returns stdout. */
export async function runNative(args, opts = {}) {
  const { stdout } = await run(PYTHON, args, { cwd: ROOT, maxBuffer: 256 * 1024 * 1024, ...opts });
  return stdout;
}

export async function launchChromium({ webgpu = false } = {}) {
  return chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: [...CHROMIUM_ARGS, ...(webgpu ? ['--enable-unsafe-webgpu'] : [])],
  });
}

export const test = base.extend({
  // Two servers of the same dist/: with COOP/COEP (the product) and without (to test the fallback).
  servers: [async ({}, use) => {
    if (!existsSync(join(DIST, 'index.html'))) throw new Error('dist/ missing: run scripts/test_e2e.sh (it builds)');
    const mounts = { '/__testdata__/': DATA };
    const isolated = await startServer({ dir: DIST, isolation: true, mounts });
    const plain = await startServer({ dir: DIST, isolation: false, mounts });
    await use({ isolated: isolated.url, plain: plain.url });
    await isolated.close();
    await plain.close();
  }, { scope: 'worker' }],

  webgpu: [false, { option: true }],

  // A fresh browser + context per test; every request must stay on the page's origin.
  app: async ({ servers, webgpu }, use, testInfo) => {
    const browser = await launchChromium({ webgpu });
    const context = await browser.newContext();
    const offOrigin = [];
    const origins = new Set(Object.values(servers).map((u) => new URL(u).origin));
    context.on('request', (req) => {
      const u = new URL(req.url());
      if ((u.protocol === 'http:' || u.protocol === 'https:' || u.protocol === 'ws:') && !origins.has(u.origin)) {
        offOrigin.push(req.url());
      }
    });
    // ...and is blocked, so nothing leaves this machine even if the app regressed (recorded above).
    await context.route((url) => !origins.has(url.origin) && /^(https?|wss?):$/.test(url.protocol),
      (route) => route.abort('blockedbyclient'));
    const page = await context.newPage();
    const logs = [];
    page.on('console', (m) => logs.push(`[${m.type()}] ${m.text()}`));
    page.on('pageerror', (e) => logs.push(`[pageerror] ${e.message}`));
    const api = {
      page,
      context,
      offOrigin,
      logs,
      async open({ isolated = true } = {}) {
        await page.goto(`${isolated ? servers.isolated : servers.plain}dev.html?boot=0`); // the runtime page
        await page.waitForFunction(() => window.Retto);
      },
      /** Retto.create(options) in the page; returns its info. Stored as window.ocr. */
      async create(options = {}) {
        return page.evaluate(async (o) => {
          window.ocr = await window.Retto.create(o);
          return window.ocr.info;
        }, options);
      },
      /** recognize a file of tests/data (fetched same-origin) or bytes; returns {result} or {error}. */
      async recognize(nameOrBytes, { ocr = 'ocr' } = {}) {
        return page.evaluate(async ({ input, ocr }) => {
          const data = typeof input === 'string'
            ? await (await fetch(`/__testdata__/${input}`)).arrayBuffer() : new Uint8Array(input).buffer;
          try {
            const result = await window[ocr].recognize(data);
            return { result, stats: window[ocr].lastStats };
          } catch (e) {
            return { error: { code: e.code, message: e.message } };
          }
        }, { input: typeof nameOrBytes === 'string' ? nameOrBytes : Array.from(nameOrBytes), ocr });
      },
    };
    await use(api);
    if (testInfo.status !== testInfo.expectedStatus) {
      await testInfo.attach('browser-console', { body: logs.join('\n'), contentType: 'text/plain' });
    }
    await browser.close();
    expect(offOrigin, 'requests left the app origin').toEqual([]);
  },
});

export { expect };
