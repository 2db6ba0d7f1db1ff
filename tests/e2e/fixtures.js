// Shared e2e fixtures: the dist/ servers (isolated and not), a fresh Chromium per test (`app`) or one booted
// engine per Playwright worker for tests that only read and compare (`engine`), each with a guard that fails the
// test on any off-origin request, and helpers to drive the client API inside the page.
//
// Warm by default: each test's Chromium starts from its own copy of a profile that has visited the app once
// (made once per Playwright worker, against that worker's servers: HTTP cache, compiled wasm, the stored Python
// snapshot), which is what a returning visitor has. It spares every test a cold boot (about 10 s of wasm
// compiling and Python start-up on this 2-core machine) without sharing state between tests: each copy is
// thrown away. A test that is about a first visit, or needs the Browser object, says `test.use({ warm: false })`.
import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { test as base, expect, chromium } from '@playwright/test';
import { startServer } from '../../scripts/serve_static.mjs';
import { cachedNative } from './native_cache.js';

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

/** Run a command (the native side of a comparison); returns stdout. CLI runs are kept for the run (native_cache.js). */
export async function runNative(args, opts = {}) {
  return cachedNative(args, opts, async () => (await run(PYTHON, args, { cwd: ROOT, maxBuffer: 256 * 1024 * 1024, ...opts })).stdout);
}

export async function launchChromium({ webgpu = false } = {}) {
  return chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: [...CHROMIUM_ARGS, ...(webgpu ? ['--enable-unsafe-webgpu'] : [])],
  });
}

/** Linux process ids (numbers) with each one's command line and parent, from /proc. */
function processTable() {
  const table = new Map();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      // Zygote-forked children (renderers) rewrite their title: one string with spaces, not NUL-separated args.
      const cmdline = readFileSync(`/proc/${name}/cmdline`, 'utf8').split(/[\0 ]/).filter(Boolean);
      const ppid = Number(readFileSync(`/proc/${name}/stat`, 'utf8').split(') ').pop().split(' ')[1]);
      table.set(Number(name), { cmdline, ppid });
    } catch { /* the process ended while we looked */ }
  }
  return table;
}

/** The renderer processes under the Chromium started on user-data-dir `profile` (its children and their children). */
function rendererPidsOfProfile(profile) {
  const table = processTable();
  const root = [...table].find(([, p]) => p.cmdline.includes(`--user-data-dir=${profile}`)
    && !p.cmdline.some((a) => a.startsWith('--type=')));
  if (!root) throw new Error(`no Chromium process runs on ${profile}`);
  const under = (pid) => { for (let p = pid; p > 1; p = table.get(p)?.ppid ?? 0) if (p === root[0]) return true; return false; };
  return [...table].filter(([pid, p]) => p.cmdline.includes('--type=renderer') && under(pid)).map(([pid]) => pid);
}

/** A profile that has booted the default set on the isolated server and read one small page, then closed. */
async function makeWarmProfile(isolatedUrl) {
  const dir = mkdtempSync(join(tmpdir(), 'retto-warm-'));
  const context = await chromium.launchPersistentContext(dir, {
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium', headless: true, args: CHROMIUM_ARGS });
  try {
    const page = context.pages()[0] || await context.newPage();
    await page.goto(`${isolatedUrl}dev.html?boot=0`);
    await page.waitForFunction(() => window.Retto);
    const read = await page.evaluate(async () => {
      const ocr = await window.Retto.create({});
      const bytes = await (await fetch('/__testdata__/typewriter.png')).arrayBuffer();
      const result = await ocr.recognize(bytes);
      await ocr.terminate();
      return result.lines.length;
    });
    if (!read) throw new Error('the warm-up read found no lines');
  } finally {
    await context.close();
  }
  return dir;
}

/** In `page`, window[ocr].recognize a file of tests/data (fetched same-origin) or bytes: {result, stats} or {error}. */
function recognizeIn(page, nameOrBytes, { ocr = 'ocr' } = {}) {
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
}

/** Record every request of `context` that leaves the servers' origins in `offOrigin`, and block it, so nothing
 * leaves this machine even if the app regressed. */
async function guardOrigins(context, servers, offOrigin) {
  const origins = new Set(Object.values(servers).map((u) => new URL(u).origin));
  context.on('request', (req) => {
    const u = new URL(req.url());
    if ((u.protocol === 'http:' || u.protocol === 'https:' || u.protocol === 'ws:') && !origins.has(u.origin)) {
      offOrigin.push(req.url());
    }
  });
  await context.route((url) => !origins.has(url.origin) && /^(https?|wss?):$/.test(url.protocol),
    (route) => route.abort('blockedbyclient'));
}

function collectLogs(page, logs) {
  page.on('console', (m) => logs.push(`[${m.type()}] ${m.text()}`));
  page.on('pageerror', (e) => logs.push(`[pageerror] ${e.message}`));
}

/** Chromium on a throw-away copy of the warm profile: {context, profile} (the copy's folder, removed by the caller). */
async function launchWarmCopy(warmProfile, { webgpu = false } = {}) {
  const profile = mkdtempSync(join(tmpdir(), 'retto-profile-'));
  cpSync(warmProfile, profile, { recursive: true });
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium', headless: true,
    args: [...CHROMIUM_ARGS, ...(webgpu ? ['--enable-unsafe-webgpu'] : [])] });
  return { context, profile };
}

/** After a test: its browser console attached when it failed; no request may have left the app origin. */
async function endTest(testInfo, logs, offOrigin) {
  if (testInfo.status !== testInfo.expectedStatus) {
    await testInfo.attach('browser-console', { body: logs.join('\n'), contentType: 'text/plain' });
  }
  expect(offOrigin, 'requests left the app origin').toEqual([]);
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
  warm: [true, { option: true }],

  warmProfile: [async ({ servers }, use) => {
    const dir = await makeWarmProfile(servers.isolated);
    await use(dir);
    rmSync(dir, { recursive: true, force: true });
  }, { scope: 'worker' }],

  // A fresh browser + context per test (warm: from a copy of the worker's warm profile; cold: an empty one);
  // every request must stay on the page's origin.
  app: async ({ servers, webgpu, warm, warmProfile }, use, testInfo) => {
    let browser = null;
    let context;
    let profile = null;
    if (warm) {
      ({ context, profile } = await launchWarmCopy(warmProfile, { webgpu }));
    } else {
      browser = await launchChromium({ webgpu });
      context = await browser.newContext();
    }
    const offOrigin = [];
    await guardOrigins(context, servers, offOrigin);
    const page = context.pages()[0] || await context.newPage();
    const logs = [];
    collectLogs(page, logs);
    const api = {
      page,
      context,
      offOrigin,
      logs,
      /** Process ids of this test's Chromium renderer processes (Linux), for memory readings from /proc. */
      async rendererPids() {
        let pids;
        if (profile) pids = rendererPidsOfProfile(profile);
        else {
          const cdp = await browser.newBrowserCDPSession();
          const { processInfo } = await cdp.send('SystemInfo.getProcessInfo');
          await cdp.detach();
          pids = processInfo.filter((p) => p.type === 'renderer').map((p) => p.id);
        }
        // A page is open, so a renderer runs: none found means this lookup broke, and a memory bound over no
        // process would pass without measuring anything.
        if (!pids.length) throw new Error('no Chromium renderer process found for this test\'s browser');
        return pids;
      },
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
      recognize: (nameOrBytes, options) => recognizeIn(page, nameOrBytes, options),
    };
    await use(api);
    if (browser) await browser.close();
    else await context.close();
    if (profile) rmSync(profile, { recursive: true, force: true });
    await endTest(testInfo, logs, offOrigin);
  },

  // One engine for the tests that only read with the default set on wasm and compare what they get: booted once
  // per Playwright worker (Retto.create({ backend: 'wasm' }) as window.ocr on dev.html, from a copy of the warm
  // profile). Such a test skips its own Chromium start, boot and first read: about 9 core-seconds each on this
  // 2-core machine (test-time.md). Each test still has its own off-origin guard and console log. Playwright starts
  // a new worker (so a new engine) after a failed test. Tests about a boot, a first page, memory figures, other
  // options or a worker's end use `app` instead.
  sharedEngine: [async ({ servers, warmProfile }, use) => {
    const { context, profile } = await launchWarmCopy(warmProfile);
    const state = { offOrigin: [], logs: [] };
    await guardOrigins(context, servers, state.offOrigin);
    const page = context.pages()[0] || await context.newPage();
    collectLogs(page, state.logs);
    await page.goto(`${servers.isolated}dev.html?boot=0`);
    await page.waitForFunction(() => window.Retto);
    const info = await page.evaluate(async () => {
      window.ocr = await window.Retto.create({ backend: 'wasm' });
      return window.ocr.info;
    });
    await use({ context, page, info, state });
    await context.close();
    rmSync(profile, { recursive: true, force: true });
  }, { scope: 'worker' }],

  /** The worker's shared engine (above) for one test: {page, context, info, offOrigin, logs, recognize}. */
  engine: async ({ sharedEngine }, use, testInfo) => {
    const { page, context, info, state } = sharedEngine;
    state.offOrigin.length = 0;
    state.logs.length = 0;
    await use({ page, context, info, offOrigin: state.offOrigin, logs: state.logs,
      recognize: (nameOrBytes, options) => recognizeIn(page, nameOrBytes, options) });
    await endTest(testInfo, state.logs, state.offOrigin);
  },
});

export { expect };
