#!/usr/bin/env node
// Pre-compressed copies of dist/ for the run server (scripts/serve_static.mjs) and any static host that serves
// them (nginx brotli_static/gzip_static): beside each compressible file, <file>.br and <file>.gz, kept only when
// at least 5 % smaller. The wasm runtimes shrink 4-6x (pyodide.asm.wasm 10.1 -> 2.3 MB, onnxruntime's 14.2 -> 2.3
// MB); models and wheels hardly at all. Brotli at quality 11 takes ~30 s per big wasm, so compressed bodies are
// kept in .cache/precompressed/ by content hash and a rebuild of dist/ only copies them.
//   node scripts/build/precompress.mjs [--dir dist]
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, extname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const COMPRESSIBLE = new Set(['.wasm', '.js', '.mjs', '.json', '.txt', '.html', '.css', '.svg', '.webmanifest',
  '.onnx', '.py', '.whl']); // .whl: the boot's wheels ship with stored entries (assemble_web_assets.py stored_zip)
const CODE = new Set(['.wasm', '.js', '.mjs']); // worth brotli's slowest, best setting
// Pages and the service worker are small and change in place at every deploy: always sent as they are, so a
// stale sibling can never stand in for them.
const SKIP = (rel) => rel === 'sw.js' || rel.endsWith('.html');
const MIN_SIZE = 1024;
const MAX_RATIO = 0.95;

const ENCODERS = {
  br: (data, ext) => brotliCompressSync(data, { params: {
    [constants.BROTLI_PARAM_QUALITY]: CODE.has(ext) && data.length <= 16e6 ? 11 : 9,
    [constants.BROTLI_PARAM_LGWIN]: 24,
    [constants.BROTLI_PARAM_SIZE_HINT]: data.length } }),
  gz: (data) => gzipSync(data, { level: 9 }),
};

export function precompress(dir, cacheDir = join(ROOT, '.cache', 'precompressed')) {
  mkdirSync(cacheDir, { recursive: true });
  let before = 0;
  let after = 0;
  const files = readdirSync(dir, { recursive: true }).map((rel) => join(dir, rel)).filter((p) => statSync(p).isFile());
  for (const path of files) {
    const ext = extname(path);
    if (!COMPRESSIBLE.has(ext) || SKIP(relative(dir, path).split(sep).join('/'))) continue;
    const data = readFileSync(path);
    if (data.length < MIN_SIZE) continue;
    const hash = createHash('sha256').update(data).digest('hex');
    let best = data.length;
    for (const [enc, encode] of Object.entries(ENCODERS)) {
      const cached = join(cacheDir, `${hash}.${enc}`);
      if (!existsSync(cached)) {
        const out = encode(data, ext);
        // "none" marks a file that does not shrink enough, so it is not tried again
        writeFileSync(cached, out.length <= data.length * MAX_RATIO ? out : Buffer.from('none'));
      }
      const size = statSync(cached).size;
      if (size === 4 && readFileSync(cached, 'utf8') === 'none') continue;
      copyFileSync(cached, `${path}.${enc}`);
      if (enc === 'br') best = size;
    }
    before += data.length;
    after += best;
  }
  return { before, after };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const i = args.indexOf('--dir');
  const dir = i >= 0 ? args[i + 1] : join(ROOT, 'dist');
  const { before, after } = precompress(dir);
  console.log(`precompressed ${dir}: ${(before / 1e6).toFixed(1)} MB of compressible files -> ${(after / 1e6).toFixed(1)} MB brotli`);
}
