#!/usr/bin/env node
// Static server for dist/ on 127.0.0.1 with COOP/COEP (cross-origin isolation) and a strict CSP — used by the
// run command, the e2e tests (which also start it with isolation off) and the benchmarks.
//   node scripts/serve_static.mjs [--dir dist] [--port 8080] [--no-isolation]
// A file with a pre-compressed sibling (<file>.br / <file>.gz from scripts/build/precompress.mjs, not older than the file)
// is sent as that sibling with Content-Encoding when the request accepts it (Vary: Accept-Encoding).
// Any request gets an answer (400/404/405 for bad ones) and the server keeps serving; nothing outside the
// served dir or a mount is ever read. web/public/_headers and docs/nginx.conf repeat SECURITY_HEADERS and
// ISOLATION_HEADERS for other hosts (tests/e2e/pwa/serving.spec.js keeps them equal).
import { createHash } from 'node:crypto';
import { createReadStream, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { extname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const TYPES = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.mjs': 'text/javascript',
  '.json': 'application/json', '.wasm': 'application/wasm', '.css': 'text/css', '.svg': 'image/svg+xml',
  '.png': 'image/png', '.jpg': 'image/jpeg', '.jpeg': 'image/jpeg', '.webmanifest': 'application/manifest+json',
  '.zip': 'application/zip', '.whl': 'application/zip', '.onnx': 'application/octet-stream', '.txt': 'text/plain',
};

// Everything comes from our own origin; why each extra source is there (see docs/guides/pwa-and-hosting.md):
//  - 'wasm-unsafe-eval': compiling WebAssembly (Pyodide, its wheels' .so files, onnxruntime-web). Not 'unsafe-eval'.
//  - the sha256 sources: the inline <style>/<script> blocks of dev.html and embed-example/index.html (the
//    serving spec fails, naming the new hash, if one of them changes).
//  - style-src-attr 'unsafe-inline': the result view sizes its stage with a style="aspect-ratio…" attribute
//    (web/src/shared/result_view.js). Attributes only — <style> elements stay limited to the hashes above.
//  - blob:/data: images: result images are shown from object URLs; dev.html's icon is `data:,`.
export const CSP = [
  "default-src 'self'",
  "script-src 'self' 'wasm-unsafe-eval' 'sha256-zcSCbYv68WbxjNzaPq23TiIC8iEkjjO7Xm7ACXAZXp4='",
  "style-src 'self' 'sha256-dyu2c14ofCUdrXPhrsuYp3kuADfyGAWd2710KE3a85g=' 'sha256-CUyCBPdjIF38YnbWGyJiqpfIKcXOVRYry5yQdrA5i8M='",
  "style-src-attr 'unsafe-inline'",
  "img-src 'self' blob: data:",
  "connect-src 'self'",
  "worker-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** Sent with every response. */
export const SECURITY_HEADERS = {
  'Content-Security-Policy': CSP,
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
};

/** Sent with every response unless isolation is off (onnxruntime-web needs them for threads). */
export const ISOLATION_HEADERS = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
};

/**
 * The decoded path segments of a request target, or an HTTP status to answer instead. Browsers resolve dot
 * segments before sending, so any left (raw or %2e-encoded) are refused rather than resolved; so are NUL,
 * backslashes and encoded slashes, which could mean something else to the file system than to the URL.
 */
export function parseTarget(target) {
  if (typeof target !== 'string' || !target.startsWith('/')) return 400; // absolute-form, `*`, garbage
  const raw = target.split(/[?#]/, 1)[0].split('/').slice(1);
  const segs = [];
  for (const [i, seg] of raw.entries()) {
    let s;
    try { s = decodeURIComponent(seg); } catch { return 400; } // truncated escape, invalid UTF-8
    if (s === '.' || s === '..' || /[\0\\/]/.test(s)) return 400;
    if (s === '' && i < raw.length - 1) return 404; // `//`, `/a//b`: no such file (never served as another one)
    segs.push(s);
  }
  return segs;
}

const REPORT_PATH = '/__csp-report__';

/** The pre-compressed sibling to send instead of `path` (scripts/build/precompress.mjs writes <file>.br and <file>.gz
 * at build time): {path, st, encoding}; null when the client accepts none that exists; undefined when the file
 * has no sibling at all (then the answer does not vary with Accept-Encoding). Brotli first: it is smaller. */
function precompressed(path, st, acceptEncoding = '') {
  const accepted = new Set(String(acceptEncoding).split(',').filter((e) => !/;\s*q=0(\.0*)?\s*$/i.test(e))
    .map((e) => e.split(';')[0].trim().toLowerCase())); // "br;q=0" refuses br
  let any;
  for (const encoding of ['br', 'gzip']) {
    const sibling = `${path}.${encoding === 'gzip' ? 'gz' : 'br'}`;
    let sst;
    try { sst = statSync(sibling); } catch { continue; }
    if (!sst.isFile() || sst.mtimeMs < st.mtimeMs) continue; // stale: the original was rebuilt after it
    any = null;
    if (accepted.has(encoding)) return { path: sibling, st: sst, encoding };
  }
  return any;
}

/** mounts: {'/prefix/': '/some/dir'} serves extra folders (the e2e tests mount tests/data/ this way).
 *  onCspReport (tests): adds a same-origin report-uri and gets every violation report — pages and workers
 *  alike, which a page's securitypolicyviolation listener cannot see. */
export function startServer({ dir = 'dist', port = 0, host = '127.0.0.1', isolation = true, mounts = {}, onRequest,
  onCspReport } = {}) {
  const base = { ...SECURITY_HEADERS, ...(isolation ? ISOLATION_HEADERS : {}) };
  if (onCspReport) base['Content-Security-Policy'] += `; report-uri ${REPORT_PATH}`;
  const answer = (res, status, extra = {}) => {
    res.writeHead(status, { ...base, 'Content-Type': 'text/plain; charset=utf-8', ...extra });
    res.end(status === 304 || status === 204 ? undefined : `${status}\n`);
  };

  const handle = (req, res) => {
    const segs = parseTarget(req.url);
    const pathname = typeof segs === 'number' ? req.url : `/${segs.join('/')}`;
    onRequest?.(req.method, pathname);
    if (typeof segs === 'number') return answer(res, segs);
    if (onCspReport && req.method === 'POST' && pathname === REPORT_PATH) {
      const body = [];
      req.on('data', (b) => body.push(b)).on('end', () => {
        try { onCspReport(JSON.parse(Buffer.concat(body).toString())['csp-report']); } catch { /* not a report */ }
        answer(res, 204);
      });
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') return answer(res, 405, { Allow: 'GET, HEAD' });

    const mount = Object.keys(mounts).find((m) => pathname.startsWith(m));
    const root = resolve(mount ? mounts[mount] : dir);
    let path = resolve(root, ...(mount ? pathname.slice(mount.length).split('/') : segs));
    if (path !== root && !path.startsWith(root + sep)) return answer(res, 404); // belt and braces
    let st;
    try {
      st = statSync(path);
      if (st.isDirectory()) {
        // `/embed-example` → `/embed-example/`, or its relative URLs would resolve against the parent.
        if (!pathname.endsWith('/')) return answer(res, 301, { Location: `/${segs.map(encodeURIComponent).join('/')}/` });
        path = join(path, 'index.html');
        st = statSync(path);
      }
      if (!st.isFile()) return answer(res, 404);
    } catch {
      return answer(res, 404); // missing, ENAMETOOLONG, ENOTDIR…
    }
    const type = TYPES[extname(path)] || 'application/octet-stream';
    const encoded = precompressed(path, st, req.headers['accept-encoding']);
    if (encoded) ({ path, st } = encoded);
    const etag = `"${createHash('sha1').update(`${path}:${st.size}:${st.mtimeMs}`).digest('hex')}"`;
    const headers = {
      ...base,
      'Content-Type': type,
      'Cache-Control': 'no-cache', // revalidate (304) so a rebuilt dist/ is never stale; bodies stay cached
      ETag: etag,
      ...(encoded ? { 'Content-Encoding': encoded.encoding } : {}),
      ...(encoded !== undefined ? { Vary: 'Accept-Encoding' } : {}),
    };
    if (req.headers['if-none-match'] === etag) { res.writeHead(304, headers).end(); return; }
    headers['Content-Length'] = st.size;
    res.writeHead(200, headers);
    if (req.method === 'HEAD') { res.end(); return; }
    createReadStream(path).on('error', () => res.destroy()).pipe(res); // file gone mid-read: drop the connection
  };

  const server = createServer((req, res) => {
    try {
      handle(req, res);
    } catch (e) { // a bug here must cost one request, not the server
      console.error(`serve_static: ${req.method} ${req.url}: ${e?.stack ?? e}`);
      if (!res.headersSent) answer(res, 500); else res.destroy();
    }
  });
  return new Promise((ok) => server.listen(port, host, () => {
    const url = `http://${host}:${server.address().port}/`;
    ok({ url, close: () => new Promise((done) => { server.closeAllConnections?.(); server.close(done); }) });
  }));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const opt = (name, dflt) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : dflt; };
  const { url } = await startServer({ dir: opt('--dir', 'dist'), port: Number(opt('--port', 8080)),
    isolation: !args.includes('--no-isolation') });
  console.log(`Retto OCR is served at ${url} (Ctrl+C to stop)`);
}
