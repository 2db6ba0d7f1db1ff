#!/usr/bin/env node
// Pre-compressed copies of dist/ for the run server (scripts/serve_static.mjs) and any static host that serves
// them (nginx brotli_static/gzip_static): beside each compressible file, <file>.br and <file>.gz, kept only when
// at least 5 % smaller. The wasm runtimes shrink 4-6x (pyodide.asm.wasm 10.1 -> 2.3 MB, onnxruntime's 14.2 -> 2.3
// MB); the models hardly (not compressed at all). Compressed bodies are kept in .cache/precompressed/ by content
// hash and encoder setting, so a rebuild of dist/ only copies them; files are encoded in parallel (one per core).
//   node scripts/build/precompress.mjs [--dir dist]
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { copyFile, readFile, rename, writeFile } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { dirname, extname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
// No .onnx: the models' weights hardly compress (brotli 0.90-0.93 of the file, docs/measurements/first-run.md) for
// most of the time this step took; the models are fetched once and then come from the HTTP/PWA cache anyway.
const COMPRESSIBLE = new Set(['.wasm', '.js', '.mjs', '.json', '.txt', '.html', '.css', '.svg', '.webmanifest',
  '.py', '.whl']); // .whl: the boot's wheels ship with stored entries (assemble_web_assets.py stored_zip)
// Pages and the service worker are small and change in place at every deploy: always sent as they are, so a
// stale sibling can never stand in for them.
const SKIP = (rel) => rel === 'sw.js' || rel.endsWith('.html');
const MIN_SIZE = 1024;
const MAX_RATIO = 0.95;
// Chosen by scripts/bench/compression.mjs (docs/measurements/first-run.md): brotli 9 is within a few % of 11 on the
// wasm runtimes at a fraction of the time; gzip (the fallback for clients without brotli) at 6 is as small as 9
// within 1 % and twice as fast. Part of the cache key, so a change here recompresses.
export const BROTLI_QUALITY = 9;
export const GZIP_LEVEL = 6;
const TAG = { br: `q${BROTLI_QUALITY}`, gz: `l${GZIP_LEVEL}` };

const ENCODERS = {
  br: (data) => promisify(brotliCompress)(data, { params: {
    [constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY,
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
  const jobs = files.map((path) => async () => {
    const data = await readFile(path);
    const hash = createHash('sha256').update(data).digest('hex');
    let best = data.length;
    for (const [enc, encode] of Object.entries(ENCODERS)) {
      const cached = join(cacheDir, `${hash}.${TAG[enc]}.${enc}`);
      if (!existsSync(cached)) {
        const out = await encode(data);
        encoded += 1;
        // "none" marks a file that does not shrink enough, so it is not tried again
        await writeFile(`${cached}.${process.pid}.tmp`, out.length <= data.length * MAX_RATIO ? out : Buffer.from('none'));
        await rename(`${cached}.${process.pid}.tmp`, cached);
      }
      const size = statSync(cached).size;
      if (size === 4 && (await readFile(cached, 'utf8')) === 'none') continue;
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
