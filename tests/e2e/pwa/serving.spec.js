// Serving dist/ (scripts/serve_static.mjs): malformed requests never kill the server nor reach a file outside
// the served dir; every response carries the security headers; the page, the embed example and dev.html run
// under the CSP with zero violations (pages, workers, service worker); web/public/_headers and docs/nginx.conf
// say exactly what the server sends.
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync, existsSync } from 'node:fs';
import http from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { CSP, ISOLATION_HEADERS, SECURITY_HEADERS, startServer } from '../../../scripts/serve_static.mjs';
import { DATA, DIST, ROOT, expect, launchChromium, runNative, test } from '../fixtures.js';

const BOOT_TIMEOUT = 3 * 60_000;
const OCR_TIMEOUT = 6 * 60_000;

function walk(dir, out = []) {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p, out); else out.push(p);
  }
  return out;
}

/** One raw HTTP/1.1 request (the target is sent byte for byte); resolves to {status, headers, body}. */
function rawRequest(url, method, target) {
  const { hostname, port } = new URL(url);
  return new Promise((ok, fail) => {
    const chunks = [];
    const sock = connect(Number(port), hostname, () => {
      sock.write(Buffer.from(`${method} ${target} HTTP/1.1\r\nHost: ${hostname}\r\nConnection: close\r\n\r\n`, 'latin1'));
    });
    sock.setTimeout(20_000, () => sock.destroy(new Error(`timeout: ${method} ${target.slice(0, 80)}`)));
    // An error after the answer arrived is the server closing on an over-long request we were still sending.
    sock.on('data', (b) => chunks.push(b)).on('error', (e) => { if (!chunks.length) fail(e); }).on('close', () => {
      const all = Buffer.concat(chunks);
      const end = all.indexOf('\r\n\r\n');
      const head = all.subarray(0, end < 0 ? all.length : end).toString('latin1').split('\r\n');
      const headers = Object.fromEntries(head.slice(1).map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
      ok({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head[0])?.[1] ?? 0), headers, body: end < 0 ? Buffer.alloc(0) : all.subarray(end + 4) });
    });
  });
}

/** A few hundred malformed request targets and methods, the same on every run (seeded PRNG). */
function fuzzCases(seed = 20240601) {
  let s = seed;
  const rnd = () => { s = (s + 0x6d2b79f5) | 0; let t = Math.imul(s ^ (s >>> 15), 1 | s); t ^= t + Math.imul(t ^ (t >>> 7), 61 | t); return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32; };
  const pick = (a) => a[Math.floor(rnd() * a.length)];
  const pct = (bytes) => bytes.map((b) => `%${b.toString(16).padStart(2, '0').toUpperCase()}`).join('');
  const randomBytes = () => pct(Array.from({ length: 1 + Math.floor(rnd() * 8) }, () => Math.floor(rnd() * 256)));
  const segment = () => pick([
    randomBytes, () => pick(['%', '%A', '%G1', '%E0%A4%A', '%F0%9F', '%ZZ']), // bad / truncated escapes
    () => pick(['%C0%AE', '%C0%AE%C0%AE', '%E0%80%AE', '%C0%AF', '%E0%80%AF', '%F0%80%80%AF']), // overlong UTF-8
    () => pick(['.', '..', '%2e', '%2E%2e', '.%2e', '%2e%2e%2f', '..%2f', '..%5c', '..\\', '%5c', '%00', 'a%00b']),
    () => pick(['index.html', 'dev.html', 'embed-example', 'sample.png', 'icons', 'assets', '__m__', 'secret.txt',
      'package.json', 'README.md', '', 'etc', 'passwd']),
  ])();
  const cases = [
    '/%E0%A4%A', '//', '///', '//secret.txt', '//127.0.0.1/index.html', '/..', '/../', '/../package.json',
    '/%2e%2e/package.json', '/%2E%2E%2Fpackage.json', '/..%2fsecret.txt', '/..\\secret.txt', '/%5c..%5cpackage.json',
    '/index.html%00.png', '/%00', '/%C0%AE%C0%AE/package.json', '/__m__/../secret.txt', '/__m__/%2e%2e/secret.txt',
    '/__m__/..%5csecret.txt', '/__m__%2f..%2fsecret.txt', '/__m__/./ok.txt', '/embed-example/../../package.json',
    '*', 'http://127.0.0.1/../package.json', 'index.html', '/\0', '/a b', '/\xff\xfe', '/é',
    `/${'a'.repeat(5000)}`, `/${'a/'.repeat(3000)}`, `/${'%41'.repeat(4000)}`, `/${'a'.repeat(70_000)}`,
    `/${'../'.repeat(200)}etc/passwd`,
    '/index.html', '/%69ndex.html', '/embed-example/', '/embed-example/sample.png', '/__m__/ok.txt', '/?a=/../x#y',
  ].map((target) => ({ method: 'GET', target }));
  for (const method of ['DELETE', 'OPTIONS', 'HEAD', 'PUT', 'POST', 'PATCH', 'TRACE', 'FOO']) {
    cases.push({ method, target: '/index.html' }, { method, target: '/../package.json' });
  }
  for (let i = 0; i < 300; i += 1) {
    const target = `/${Array.from({ length: 1 + Math.floor(rnd() * 5) }, segment).join('/')}`;
    cases.push({ method: pick(['GET', 'GET', 'GET', 'HEAD', 'DELETE', 'OPTIONS', 'POST']), target });
  }
  return cases;
}

test('serving: a few hundred malformed requests, then index.html still 200 and no file from outside', async () => {
  const tmp = mkdtempSync(join(tmpdir(), 'retto-serving-'));
  const SECRET = `secret-${Date.now()}`;
  writeFileSync(join(tmp, 'secret.txt'), SECRET); // next to the mounted folder, never to be served
  mkdirSync(join(tmp, 'mounted'));
  writeFileSync(join(tmp, 'mounted', 'ok.txt'), 'ok');
  const server = await startServer({ dir: DIST, isolation: true, mounts: { '/__m__/': join(tmp, 'mounted') } });
  try {
    // What may be served: the files of dist/ and the mount (by size, then bytes).
    const bySize = new Map();
    for (const p of [...walk(DIST), join(tmp, 'mounted', 'ok.txt')]) {
      const size = statSync(p).size;
      bySize.set(size, [...(bySize.get(size) ?? []), p]);
    }
    const outside = [readFileSync(join(ROOT, 'package.json')), readFileSync(join(ROOT, 'README.md'))];

    const cases = fuzzCases();
    expect(cases.length).toBeGreaterThan(300);
    const seen = {};
    for (let i = 0; i < cases.length; i += 8) { // 8 at a time
      await Promise.all(cases.slice(i, i + 8).map(async ({ method, target }) => {
        const what = `${method} ${JSON.stringify(target.slice(0, 120))}`;
        const res = await rawRequest(server.url, method, target);
        seen[res.status] = (seen[res.status] ?? 0) + 1;
        expect(res.status, what).toBeGreaterThanOrEqual(200);
        expect(res.status, what).toBeLessThan(500);
        if (res.headers['content-security-policy'] === undefined) {
          // Only Node's own HTTP parser answers without our headers: a request line it cannot parse.
          expect([400, 414, 431], what).toContain(res.status);
        } else {
          for (const [k, v] of Object.entries({ ...SECURITY_HEADERS, ...ISOLATION_HEADERS })) {
            expect(res.headers[k.toLowerCase()], `${what}: ${k}`).toBe(v);
          }
        }
        expect(res.body.includes(SECRET), what).toBe(false);
        for (const file of outside) expect(res.body.equals(file), what).toBe(false);
        if (res.status === 200 && method === 'GET') {
          const same = (bySize.get(res.body.length) ?? []).some((p) => readFileSync(p).equals(res.body));
          expect(same, `${what} served something that is not a file of dist/ or the mount`).toBe(true);
        }
        if (!['GET', 'HEAD'].includes(method) && res.headers['content-security-policy']) {
          expect([400, 404, 405], what).toContain(res.status);
        }
      }));
    }
    console.log(`fuzz: ${cases.length} requests, statuses ${JSON.stringify(seen)}`);
    expect(seen[400]).toBeGreaterThan(50); // the cases really were malformed

    // Still serving, and the right things.
    const index = await rawRequest(server.url, 'GET', '/index.html');
    expect(index.status).toBe(200);
    expect(index.body.equals(readFileSync(join(DIST, 'index.html')))).toBe(true);
    expect((await rawRequest(server.url, 'GET', '/__m__/ok.txt')).body.toString()).toBe('ok');
    const dirNoSlash = await rawRequest(server.url, 'GET', '/embed-example');
    expect([dirNoSlash.status, dirNoSlash.headers.location]).toEqual([301, '/embed-example/']);
  } finally {
    await server.close();
    rmSync(tmp, { recursive: true, force: true });
  }
});

test('serving: security headers on every response, isolation headers only on the isolated server', async ({ servers }) => {
  for (const [variant, url] of Object.entries(servers)) {
    for (const [method, path, status] of [['GET', '/', 200], ['GET', '/assets/manifest.json', 200],
      ['GET', '/nope', 404], ['GET', '/%E0%A4%A', 400], ['DELETE', '/', 405], ['HEAD', '/dev.html', 200]]) {
      const res = await fetch(new URL(path, url), { method });
      expect(res.status, `${variant} ${method} ${path}`).toBe(status);
      for (const [k, v] of Object.entries(SECURITY_HEADERS)) expect(res.headers.get(k), `${variant} ${path} ${k}`).toBe(v);
      for (const [k, v] of Object.entries(ISOLATION_HEADERS)) {
        expect(res.headers.get(k), `${variant} ${path} ${k}`).toBe(variant === 'isolated' ? v : null);
      }
    }
  }
});

test('serving: pre-compressed copies go by Accept-Encoding and decode to the very bytes of the file', async ({ servers }) => {
  const file = 'assets/ort/ort-wasm-simd-threaded.wasm'; // 14 MB, always needed (scripts/build/precompress.mjs)
  const original = readFileSync(join(DIST, file));
  const get = (accept) => new Promise((resolve, reject) => {
    http.get(new URL(file, servers.isolated), { headers: { 'Accept-Encoding': accept } }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c)).on('end', () => resolve({ headers: res.headers, body: Buffer.concat(chunks) }));
    }).on('error', reject);
  });
  for (const [accept, encoding, decode] of [['gzip, deflate, br', 'br', brotliDecompressSync],
    ['gzip, deflate', 'gzip', gunzipSync], ['identity', undefined, (b) => b]]) {
    const { headers, body } = await get(accept);
    expect(headers['content-encoding'], accept).toBe(encoding);
    expect(headers.vary, accept).toBe('Accept-Encoding');
    expect(headers['content-type'], accept).toBe('application/wasm');
    expect(Number(headers['content-length']), accept).toBe(body.length);
    if (encoding) expect(body.length, accept).toBeLessThan(original.length / 3);
    expect(decode(body).equals(original), accept).toBe(true);
  }
});

test('serving: web/public/_headers and docs/nginx.conf say exactly what the server sends', async ({ servers }) => {
  const headersFile = readFileSync(join(ROOT, 'web', 'public', '_headers'), 'utf8');
  const fromHeadersFile = Object.fromEntries(headersFile.split('\n').filter((l) => /^\s+\S+:/.test(l))
    .map((l) => [l.trim().slice(0, l.trim().indexOf(':')), l.trim().slice(l.trim().indexOf(':') + 1).trim()]));
  const nginx = readFileSync(join(ROOT, 'docs', 'nginx.conf'), 'utf8');
  const fromNginx = Object.fromEntries([...nginx.matchAll(/^\s*add_header (\S+) "([^"]*)" always;/gm)].map((m) => [m[1], m[2]]));

  const res = await fetch(new URL('index.html', servers.isolated));
  const sent = { ...SECURITY_HEADERS, ...ISOLATION_HEADERS, 'Cache-Control': res.headers.get('cache-control') };
  for (const k of Object.keys(sent)) expect(res.headers.get(k), k).toBe(sent[k]);
  expect(fromHeadersFile).toEqual(sent);
  expect(fromNginx).toEqual(sent);
  // dist/_headers is the copy Vite made; a stale one means dist/ needs a rebuild.
  if (existsSync(join(DIST, '_headers'))) expect(readFileSync(join(DIST, '_headers'), 'utf8')).toBe(headersFile);
});

test('serving: every inline <script>/<style> of dist/ has its hash in the CSP', () => {
  const directive = (name) => CSP.split('; ').find((d) => d.startsWith(`${name} `)).split(' ');
  for (const file of walk(DIST).filter((p) => p.endsWith('.html'))) {
    const html = readFileSync(file, 'utf8');
    for (const [, tag, attrs, body] of html.matchAll(/<(script|style)\b([^>]*)>([\s\S]*?)<\/\1>/g)) {
      if (/\bsrc=/.test(attrs)) continue;
      const hash = `'sha256-${createHash('sha256').update(body).digest('base64')}'`;
      expect(directive(tag === 'script' ? 'script-src' : 'style-src'),
        `${file}: add ${hash} to the CSP in scripts/serve_static.mjs, web/public/_headers and docs/nginx.conf`).toContain(hash);
    }
  }
});

// ---- the app under the CSP -------------------------------------------------------------------------------

/** A server (isolated or not) whose CSP reports come back to us, and a fresh Chromium that only talks to it. */
async function underCsp({ isolation = true, mounts = {} } = {}) {
  const reports = [];
  const server = await startServer({ dir: DIST, isolation, mounts: { '/__testdata__/': DATA, ...mounts },
    onCspReport: (r) => reports.push(`[report] ${r?.['violated-directive']} ${r?.['blocked-uri']} in ${r?.['source-file'] ?? r?.['document-uri']}`) });
  const origin = new URL(server.url).origin;
  const browser = await launchChromium();
  const context = await browser.newContext();
  await context.route((u) => u.origin !== origin && /^(https?|wss?):$/.test(u.protocol), (route) => route.abort('blockedbyclient'));
  const page = await context.newPage();
  const logged = [];
  // Workers' violations only show up as console text (and as reports); the page's also as events.
  const onConsole = (m) => { if (/content security policy/i.test(m.text())) logged.push(`[console] ${m.text()}`); };
  context.on('console', onConsole);
  page.on('console', onConsole);
  await page.addInitScript(() => {
    window.__csp = [];
    document.addEventListener('securitypolicyviolation', (e) => window.__csp.push(
      `[event] ${e.effectiveDirective} ${e.blockedURI} at ${e.sourceFile}:${e.lineNumber}`));
  });
  return {
    url: server.url,
    page,
    reports,
    async violations() {
      await page.waitForTimeout(1000); // reports are POSTed asynchronously
      const events = await page.evaluate(() => window.__csp).catch(() => []);
      return [...new Set([...events, ...logged, ...reports])];
    },
    async close() { await browser.close(); await server.close(); },
  };
}

test('serving: the CSP collector sees a violation inside a worker (so zero below means zero)', async () => {
  const tmp = mkdtempSync(join(tmpdir(), 'retto-csp-canary-'));
  writeFileSync(join(tmp, 'canary.html'), '<!doctype html><script type="module" src="canary.js"></script>');
  writeFileSync(join(tmp, 'canary.js'), "const w = new Worker('canary-worker.js', { type: 'module' });\n"
    + 'w.onmessage = (e) => { document.title = e.data; };\n');
  writeFileSync(join(tmp, 'canary-worker.js'), "try { new Function('return 1')(); } catch { /* refused */ }\n"
    + "postMessage('done');\n");
  const env = await underCsp({ mounts: { '/__canary__/': tmp } });
  try {
    await env.page.goto(`${env.url}__canary__/canary.html`);
    await expect(env.page).toHaveTitle('done');
    await expect.poll(() => env.reports.length).toBeGreaterThan(0);
    expect(env.reports.join('\n')).toMatch(/script-src.*eval.*canary-worker\.js/);
  } finally {
    await env.close();
    rmSync(tmp, { recursive: true, force: true });
  }
});

test('serving: the product page boots, reads baiona.png and installs offline under the CSP, zero violations', async () => {
  const env = await underCsp();
  try {
    const { page } = env;
    await page.goto(env.url);
    await expect(page.locator('#engine')).toHaveAttribute('data-state', 'ready', { timeout: BOOT_TIMEOUT });
    await page.locator('#pick-files').setInputFiles(join(DATA, 'baiona.png'));
    const row = page.locator('#queue .job', { hasText: 'baiona.png' });
    await expect(row).toHaveAttribute('data-status', 'done', { timeout: OCR_TIMEOUT });
    await row.locator('.job-button').click();
    await expect(page.locator('#result-body .stage img')).toBeVisible();
    // The service worker has precached everything (its fetches are under the CSP too).
    await expect(page.locator('#offline-status')).toHaveAttribute('data-state', 'ready', { timeout: OCR_TIMEOUT });
    expect(await env.violations()).toEqual([]);
  } finally {
    await env.close();
  }
});

test('serving: /embed-example/ reads its sample under the CSP, zero violations', async () => {
  const env = await underCsp();
  try {
    await env.page.goto(`${env.url}embed-example/`);
    await expect(env.page.locator('#log')).toContainText('#second retto-result', { timeout: OCR_TIMEOUT });
    await expect(env.page.locator('#log')).toContainText('#first ready');
    expect(await env.violations()).toEqual([]);
  } finally {
    await env.close();
  }
});

// Also the single-threaded fallback itself: without COOP/COEP the engine says why it uses one thread, and still
// reads as the native CLI does.
test('serving: dev.html without isolation runs on one thread, says why, reads baiona.png as natively under the CSP, zero violations', async () => {
  const nativeOut = runNative(['-m', 'retto', '--images', join(DATA, 'baiona.png'), '--format', 'json', '--no-progress']);
  const env = await underCsp({ isolation: false });
  try {
    const { page } = env;
    await page.goto(`${env.url}dev.html`);
    await expect(page.locator('#status')).toContainText('Ready', { timeout: BOOT_TIMEOUT });
    await expect(page.locator('#status')).toContainText('threads 1');
    expect(await page.evaluate(() => self.crossOriginIsolated)).toBe(false);
    const info = await page.evaluate(() => window.retto.info);
    expect(info.wasm.crossOriginIsolated).toBe(false);
    expect(info.wasm.threads).toBe(1);
    expect(info.wasm.threadsReason).toMatch(/not cross-origin isolated.*COOP\/COEP/);
    await page.locator('#file').setInputFiles(join(DATA, 'baiona.png'));
    await expect(page.locator('#status')).toContainText(/baiona\.png: \d+ lines/, { timeout: OCR_TIMEOUT });
    const result = JSON.parse(await page.locator('#output').textContent());
    const [native] = JSON.parse(await nativeOut);
    expect(native.lines.length).toBeGreaterThanOrEqual(15);
    expect(result.lines.map((l) => l.text)).toEqual(native.lines.map((l) => l.text));
    expect(await env.violations()).toEqual([]);
  } finally {
    await env.close();
  }
});
