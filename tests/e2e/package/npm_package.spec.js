// The npm package as a developer gets it: scripts/build/build_npm_package.sh packs the tarball, a fresh project installs
// it from that file path (npm's cache and registry for Vite only), and in Chromium
//  - a Vite app (`import { Retto } from 'retto-ocr'`, `import 'retto-ocr/element'`, the `retto-ocr/vite` plugin),
//    built and served under the app's strict CSP with cross-origin isolation, and
//  - a plain static HTML page importing the package's module from node_modules/, assets copied by the CLI
//    (`retto-ocr-assets`), served without isolation (onnxruntime single-threaded),
// each read a tiny image with the native CLI's lines (tests/e2e/compare.js), fetching nothing from another
// origin and breaking no CSP rule. The Vite app reads through Retto.createPool (2 workers): the image and a
// 3-page PDF together, then the PDF alone, with the native records, pages and files in order. The package's types (exports' `types` conditions) pass tsc --strict (not the
// Vite plugin's: Vite's own declarations need @types/node).
import { execFile } from 'node:child_process';
import { mkdtempSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startServer } from '../../../scripts/serve_static.mjs';
import { diffResults } from '../compare.js';
import { expect, launchChromium, ROOT, runNative, test } from '../fixtures.js';

const run = promisify(execFile);
const sh = (cmd, args, cwd) => run(cmd, args, { cwd, maxBuffer: 64 * 1024 * 1024, env: { ...process.env, npm_config_loglevel: 'error' } });
const VITE_VERSION = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).devDependencies.vite;

const APP_HTML = '<!doctype html><html><head><meta charset="utf-8"><title>scratch</title></head><body>'
  + '<script type="module" src="./main.js"></script></body></html>\n';
// The same page code for both: read URLs on wasm with one client, or with a pool of 2 workers (recognizeAll,
// then the PDF alone: its pages spread over both), then end the workers.
const PAGE_CODE = (from) => `import { Retto } from '${from}';
const get = async (url) => new File([await (await fetch(url)).arrayBuffer()], url.split('/').pop());
window.read = async (urls, workers) => {
  const files = await Promise.all(urls.map(get));
  if (!workers) {
    const ocr = await Retto.create({ backend: 'wasm' });
    try { return { results: [await ocr.recognize(files[0])], info: ocr.info }; } finally { ocr.terminate(); }
  }
  const pool = await Retto.createPool({ workers, backend: 'wasm' });
  try {
    const pagesSeen = [];
    const results = await pool.recognizeAll(files);
    const alone = await pool.recognize(files[1], { onPage: ({ page }) => pagesSeen.push(page) });
    // Each worker's last job: a page of the PDF read alone (stats.pages: its page count), so both read pages.
    const lastJobPages = pool.members.map((m) => m.lastStats?.pages);
    return { results, alone, pagesSeen, lastJobPages, size: pool.size, info: pool.info };
  } finally { pool.terminate(); }
};
`;

test.describe.serial('npm package', () => {
  let scratch;
  let inputs;
  let native;
  let browser;
  let servers;

  test.beforeAll(async () => {
    test.setTimeout(10 * 60 * 1000);
    const packed = (await sh('bash', ['scripts/build/build_npm_package.sh'], ROOT)).stdout.trim().split('\n').pop();
    const tarball = join(ROOT, packed);
    scratch = mkdtempSync(join(tmpdir(), 'retto-npm-'));
    inputs = join(scratch, 'inputs');
    const made = JSON.parse(await runNative(['tests/e2e/make_small_inputs.py', inputs]));
    expect(made).toEqual(['lines.png', 'pages.pdf']);
    const nativeOut = runNative(['-m', 'retto', '--images', join(inputs, 'lines.png'), join(inputs, 'pages.pdf'),
      '--format', 'json', '--no-progress']);

    const app = join(scratch, 'app');
    mkdirSync(join(app, 'static'), { recursive: true });
    writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'scratch-app', private: true, type: 'module' }));
    await sh('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', tarball, `vite@${VITE_VERSION}`], app);
    writeFileSync(join(app, 'index.html'), APP_HTML);
    writeFileSync(join(app, 'main.js'), `${PAGE_CODE('retto-ocr')}import 'retto-ocr/element';
window.elementDefined = customElements.get('retto-ocr') !== undefined;
`);
    writeFileSync(join(app, 'vite.config.js'), "import { defineConfig } from 'vite';\nimport retto from 'retto-ocr/vite';\n"
      + "export default defineConfig({ base: './', plugins: [retto()] });\n");
    await sh(join(app, 'node_modules', '.bin', 'vite'), ['build', '--logLevel', 'warn'], app);
    // The static page: the package's module straight from node_modules/, its assets copied by the CLI.
    writeFileSync(join(app, 'static', 'index.html'), APP_HTML);
    writeFileSync(join(app, 'static', 'main.js'), PAGE_CODE('../node_modules/retto-ocr/dist/index.js'));
    await sh(join(app, 'node_modules', '.bin', 'retto-ocr-assets'), ['static/retto'], app);
    writeFileSync(join(app, 'check.ts'), `import { Retto, RettoError, type OcrResult } from 'retto-ocr';
import { RettoOcrElement } from 'retto-ocr/element';
const el: RettoOcrElement | null = document.querySelector('retto-ocr');
async function go(): Promise<string[]> {
  const pool = await Retto.createPool({ workers: 2, backend: 'wasm' });
  const all = await pool.recognizeAll([new Blob()]);
  pool.terminate();
  const r = (await (await Retto.create()).recognize(new Blob())) as OcrResult;
  void el; void all; void RettoError;
  return r.lines.map((l) => l.text);
}
void go;
`);
    writeFileSync(join(app, 'tsconfig.json'), JSON.stringify({ compilerOptions: { strict: true, noEmit: true,
      target: 'es2022', module: 'esnext', moduleResolution: 'bundler', lib: ['es2022', 'dom'], types: [],
      skipLibCheck: false }, files: ['check.ts'] }));

    native = JSON.parse(await nativeOut); // [lines.png's result, pages.pdf's document record]
    const mounts = { '/__testdata__/': inputs };
    const isolated = await startServer({ dir: join(app, 'dist'), isolation: true, mounts });
    const plain = await startServer({ dir: app, isolation: false, mounts });
    servers = { isolated, plain };
    browser = await launchChromium();
  });

  test.afterAll(async () => {
    await browser?.close();
    await servers?.isolated.close();
    await servers?.plain.close();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  test('the package installs with its entry points, a bin and assets, the plugin serves them; types pass tsc --strict', async () => {
    const pkg = join(scratch, 'app', 'node_modules', 'retto-ocr');
    const meta = JSON.parse(readFileSync(join(pkg, 'package.json'), 'utf8'));
    expect(Object.keys(meta.exports)).toEqual(['.', './element', './vite', './package.json']);
    expect(meta.exports['.'].types && meta.exports['./element'].types).toBeTruthy();
    const manifest = JSON.parse(readFileSync(join(pkg, 'assets', 'manifest.json'), 'utf8'));
    // The default set only, every file of it present with the manifest's size.
    expect(Object.keys(manifest.model_sets)).toEqual([manifest.default_model_set]);
    for (const [file, { size }] of Object.entries(manifest.files)) {
      expect(readFileSync(join(pkg, 'assets', file)).length, file).toBe(size);
    }
    expect(readdirSync(join(scratch, 'app', 'dist', 'retto'))).toContain('retto-worker.js');
    // The Vite plugin in the dev server: the assets at retto/, byte for byte, with their types.
    const { createServer } = await import(join(scratch, 'app', 'node_modules', 'vite', 'dist', 'node', 'index.js'));
    const dev = await createServer({ root: join(scratch, 'app'), logLevel: 'silent',
      server: { host: '127.0.0.1', port: 0 } });
    await dev.listen();
    try {
      const base = dev.resolvedUrls.local[0];
      for (const [file, type] of [['retto-worker.js', 'text/javascript'], ['ort/ort-wasm-simd-threaded.wasm', 'application/wasm']]) {
        const res = await fetch(`${base}retto/${file}`);
        expect(res.headers.get('content-type'), file).toBe(type);
        expect(Buffer.from(await res.arrayBuffer()).equals(readFileSync(join(pkg, 'assets', file))), file).toBe(true);
      }
    } finally {
      await dev.close();
    }
    const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
    const out = await sh(process.execPath, [tsc, '-p', 'tsconfig.json'], join(scratch, 'app')).catch((e) => e);
    expect(`${out.stdout ?? ''}${out.stderr ?? ''}`, 'tsc errors').toBe('');
  });

  // The Vite app reads with a pool of 2 workers (both files, then the PDF alone), the static page with one client.
  for (const [name, where] of [['a built Vite app (strict CSP, isolated) with a pool of 2 workers', 'isolated'],
    ['a static HTML page with one client', 'plain']]) {
    test(`${name}: the native CLI's lines, in order, same-origin only`, async () => {
      const origin = new URL(servers[where].url).origin;
      const context = await browser.newContext();
      const offOrigin = [];
      context.on('request', (req) => { if (new URL(req.url()).origin !== origin && /^https?:/.test(req.url())) offOrigin.push(req.url()); });
      await context.route((url) => url.origin !== origin && /^(https?|wss?):$/.test(url.protocol), (route) => route.abort('blockedbyclient'));
      const page = await context.newPage();
      const logs = [];
      page.on('console', (m) => logs.push(`[${m.type()}] ${m.text()}`));
      page.on('pageerror', (e) => logs.push(`[pageerror] ${e.message}`));
      await page.addInitScript(() => {
        window.cspViolations = [];
        document.addEventListener('securitypolicyviolation', (e) => window.cspViolations.push(`${e.violatedDirective} ${e.blockedURI}`));
      });
      await page.goto(`${servers[where].url}${where === 'plain' ? 'static/' : ''}index.html`);
      await page.waitForFunction(() => window.read);
      const pool = where === 'isolated';
      const out = await page.evaluate(([urls, workers]) => window.read(urls, workers),
        [['/__testdata__/lines.png', '/__testdata__/pages.pdf'], pool ? 2 : 0]);
      const [nativeImage, nativePdf] = native;
      expect(nativeImage.lines.length, 'native read the tiny image').toBeGreaterThan(1);
      expect(nativePdf.page_count).toBe(3);
      const diffs = diffResults('lines.png', out.results[0], nativeImage);
      if (pool) {
        expect(await page.evaluate(() => window.elementDefined)).toBe(true);
        expect(out.info.wasm.crossOriginIsolated).toBe(true);
        expect(out.size).toBe(2);
        for (const [label, record] of [['recognizeAll', out.results[1]], ['recognize', out.alone]]) {
          const { pages, ...rest } = record;
          const { pages: nativePages, path, ...nativeRest } = nativePdf;
          expect(rest, label).toEqual({ ...nativeRest, path: 'pages.pdf' });
          expect(pages.map((p) => p.page), label).toEqual([1, 2, 3]);
          pages.forEach((p, i) => diffs.push(...diffResults(`${label} page ${p.page}`, p, nativePages[i])));
        }
        expect(out.pagesSeen.sort(), 'onPage ran for every page').toEqual([1, 2, 3]);
        expect(out.lastJobPages, 'both workers read pages of the PDF').toEqual([3, 3]);
      } else {
        expect(out.info.wasm.threads).toBe(1);
      }
      expect(diffs, `${diffs.join('\n')}\n${logs.join('\n')}`).toEqual([]);
      expect(await page.evaluate(() => window.cspViolations)).toEqual([]);
      expect(offOrigin, 'requests left the app origin').toEqual([]);
      await context.close();
    });
  }
});
