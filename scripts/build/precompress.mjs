#!/usr/bin/env node
// Pre-compressed copies of dist/ for the run server (scripts/serve_static.mjs) and any static host that serves
// them (nginx brotli_static/gzip_static): beside each compressible file, <file>.br and <file>.gz, kept only when
// at least 5 % smaller. The wasm runtimes shrink 4-5x (brotli 9: pyodide.asm.wasm 10.1 -> 2.6 MB, onnxruntime's
// 14.2 -> 2.7 MB); the models hardly (not compressed). Compressed bodies are kept in .cache/precompressed/ by content
// hash and encoder setting, so a rebuild of dist/ only copies them; files are encoded in parallel (one per core).
// Siblings left from an earlier policy (a type no longer compressed) are removed.
//   node scripts/build/precompress.mjs [--dir dist]
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { copyFile, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { dirname, extname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
// No .onnx: the models' weights shrink by only 7-16 % (brotli 0.84-0.93 of the file for 17 of 19 models; measured in
// docs/measurements/first-run.md), yet their .br/.gz copies were about half of dist/ (226 of 466 MB) and at brotli 9 most
// of this step's time; each model is fetched once per visitor and set, then comes from the HTTP/PWA cache.
// Nor .zip: python_stdlib.zip is deflated already (0.98).
const COMPRESSIBLE = new Set(['.wasm', '.js', '.mjs', '.json', '.txt', '.html', '.css', '.svg', '.webmanifest',
  '.py', '.whl']); // .whl: the boot's wheels ship with stored entries (assemble_web_assets.py stored_zip)
// Pages and the service worker are small and change in place at every deploy: always sent as they are, so a
// stale sibling can never stand in for them.
const SKIP = (rel) => rel === 'sw.js' || rel.endsWith('.html');
const MIN_SIZE = 1024;
const MAX_RATIO = 0.95;
// Chosen with scripts/bench/compression.mjs (docs/measurements/first-run.md): brotli 9 makes the boot's wasm and
// wheels 4-7 % smaller than brotli 5 for about 6x the time, so files up to 16 MB get 9 and the one bigger file (the
// WebGPU-only runtime, 28 MB: 37 s at 9, 8 s at 5, loaded by few) gets 5; brotli 11 is another ~16 % smaller but
// took 158 s on that file. gzip (for clients without brotli) at 6 is within 1 % of 9 at half the time.
// RETTO_BROTLI_QUALITY=11 overrides for a deploy build. The settings are part of the cache key.
const BIG = 16e6;
const brotliQuality = (size) => Number(process.env.RETTO_BROTLI_QUALITY) || (size <= BIG ? 9 : 5);
export const GZIP_LEVEL = 6;
const tag = (enc, size) => (enc === 'br' ? `q${brotliQuality(size)}` : `l${GZIP_LEVEL}`);

const ENCODERS = {
  br: (data) => promisify(brotliCompress)(data, { params: {
    [constants.BROTLI_PARAM_QUALITY]: brotliQuality(data.length),
    [constants.BROTLI_PARAM_LGWIN]: 24,
    [constants.BROTLI_PARAM_SIZE_HINT]: data.length } }),
  gz: (data) => promisify(gzip)(data, { level: GZIP_LEVEL }),
};

/** Run `jobs` (functions returning promises) `n` at a time; zlib's async encoders use libuv's thread pool. */
async function pool(jobs, n) {
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(n, jobs.length) }, async () => {
    while (next < jobs.length) await jobs[next++]();
  }));
}

export async function precompress(dir, cacheDir = join(ROOT, '.cache', 'precompressed')) {
  mkdirSync(cacheDir, { recursive: true });
  let before = 0;
  let after = 0;
  let encoded = 0;
  const files = readdirSync(dir, { recursive: true }).map((rel) => join(dir, rel))
    .filter((p) => statSync(p).isFile() && COMPRESSIBLE.has(extname(p)) && !SKIP(relative(dir, p).split(sep).join('/'))
      && statSync(p).size >= MIN_SIZE)
    .sort((a, b) => statSync(b).size - statSync(a).size); // biggest first: the pool ends evenly
  const wanted = new Set(files);
  for (const rel of readdirSync(dir, { recursive: true })) { // stale siblings: their file is no longer compressed
    const m = /^(.*)\.(br|gz)$/.exec(join(dir, rel));
    if (m && existsSync(m[1]) && statSync(m[1]).isFile() && !wanted.has(m[1])) await rm(join(dir, rel));
  }
  const jobs = files.map((path) => async () => {
    const data = await readFile(path);
    const hash = createHash('sha256').update(data).digest('hex');
    let best = data.length;
    for (const [enc, encode] of Object.entries(ENCODERS)) {
      const cached = join(cacheDir, `${hash}.${tag(enc, data.length)}.${enc}`);
      if (!existsSync(cached)) {
        const out = await encode(data);
        encoded += 1;
        // "none" marks a file that does not shrink enough, so it is not tried again
        await writeFile(`${cached}.${process.pid}.tmp`, out.length <= data.length * MAX_RATIO ? out : Buffer.from('none'));
        await rename(`${cached}.${process.pid}.tmp`, cached);
      }
      const size = statSync(cached).size;
      if (size === 4 && (await readFile(cached, 'utf8')) === 'none') {
        await rm(`${path}.${enc}`, { force: true });
        continue;
      }
      await copyFile(cached, `${path}.${enc}`);
      if (enc === 'br') best = size;
    }
    before += data.length;
    after += best;
  });
  await pool(jobs, Number(process.env.RETTO_PRECOMPRESS_JOBS) || availableParallelism());
  return { before, after, files: files.length, encoded };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const i = args.indexOf('--dir');
  const dir = i >= 0 ? args[i + 1] : join(ROOT, 'dist');
  const t0 = Date.now();
  const { before, after, files, encoded } = await precompress(dir);
  console.log(`precompressed ${dir}: ${files} files, ${(before / 1e6).toFixed(1)} MB -> ${(after / 1e6).toFixed(1)} MB brotli `
    + `(${encoded} bodies encoded, the rest from the cache; ${((Date.now() - t0) / 1e3).toFixed(1)} s)`);
}
