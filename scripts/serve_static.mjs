#!/usr/bin/env node
// Static server for dist/ on 127.0.0.1 with COOP/COEP (cross-origin isolation) — used by the run command,
// the e2e tests (which also start it with isolation off) and the benchmark.
//   node scripts/serve_static.mjs [--dir dist] [--port 8080] [--no-isolation]
import { createHash } from 'node:crypto';
import { createReadStream, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { extname, join, normalize, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const TYPES = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.mjs': 'text/javascript',
  '.json': 'application/json', '.wasm': 'application/wasm', '.css': 'text/css', '.svg': 'image/svg+xml',
  '.png': 'image/png', '.jpg': 'image/jpeg', '.jpeg': 'image/jpeg', '.webmanifest': 'application/manifest+json',
  '.zip': 'application/zip', '.whl': 'application/zip', '.onnx': 'application/octet-stream', '.txt': 'text/plain',
};

/** mounts: {'/prefix/': '/some/dir'} serves extra folders (the e2e tests mount tests/data/ this way). */
export function startServer({ dir = 'dist', port = 0, host = '127.0.0.1', isolation = true, mounts = {}, onRequest } = {}) {
  const server = createServer((req, res) => {
    const url = new URL(req.url, 'http://x');
    onRequest?.(req.method, url.pathname);
    const mount = Object.keys(mounts).find((m) => url.pathname.startsWith(m));
    const root = resolve(mount ? mounts[mount] : dir);
    const rel = mount ? url.pathname.slice(mount.length) : url.pathname;
    let path = normalize(join(root, decodeURIComponent(rel)));
    if (path !== root && !path.startsWith(root + sep)) { res.writeHead(403).end(); return; }
    let st;
    try {
      st = statSync(path);
      if (st.isDirectory()) { path = join(path, 'index.html'); st = statSync(path); }
    } catch {
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found');
      return;
    }
    const etag = `"${createHash('sha1').update(`${path}:${st.size}:${st.mtimeMs}`).digest('hex')}"`;
    const headers = {
      'Content-Type': TYPES[extname(path)] || 'application/octet-stream',
      'Cache-Control': 'no-cache', // revalidate (304) so a rebuilt dist/ is never stale; bodies stay cached
      ETag: etag,
    };
    if (isolation) {
      headers['Cross-Origin-Opener-Policy'] = 'same-origin';
      headers['Cross-Origin-Embedder-Policy'] = 'require-corp';
    }
    if (req.headers['if-none-match'] === etag) { res.writeHead(304, headers).end(); return; }
    headers['Content-Length'] = st.size;
    res.writeHead(200, headers);
    if (req.method === 'HEAD') res.end();
    else createReadStream(path).pipe(res);
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
