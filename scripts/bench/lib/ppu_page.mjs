// ppu-paddle-ocr (npm, MIT: PaddleOCR with its pre- and post-processing in JS over onnxruntime-web), as the browser
// benchmarks compare it. No test needs it, so it is installed when a benchmark first asks for it, into
// scripts/bench/peers (whose lockfile pins it and its dependencies), and bundled with the project's own
// onnxruntime-web (the build our worker runs) into one module served from our origin under /__bench__/.
// It reads with the same files our default set reads: PP-OCRv6 tiny det and rec and their dictionary, from dist/.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './args.mjs';

const PEERS = join(ROOT, 'scripts', 'bench', 'peers');
const PACKAGE = join(PEERS, 'node_modules', 'ppu-paddle-ocr');
export const PPU_MOUNT = '/__ortweb__/'; // onnxruntime-web's wasm files, for the bundle's ort.env.wasm.wasmPaths

/** Install (npm ci, once) and bundle ppu-paddle-ocr/web with onnxruntime-web into `outDir`/ppu.mjs.
 *  Returns { version, mounts } (mounts: what the server must serve for it). */
export async function buildPpu(outDir) {
  if (!existsSync(join(PACKAGE, 'package.json'))) {
    execFileSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: PEERS, stdio: 'inherit' });
  }
  const entry = join(outDir, 'ppu_entry.mjs');
  writeFileSync(entry, "export * as ort from 'onnxruntime-web';\nexport { PaddleOcrService } from 'ppu-paddle-ocr/web';\n");
  const { build } = await import('esbuild');
  await build({ entryPoints: [entry], bundle: true, format: 'esm', platform: 'browser', outfile: join(outDir, 'ppu.mjs'),
    nodePaths: [join(PEERS, 'node_modules'), join(ROOT, 'node_modules')], logLevel: 'error' });
  const version = JSON.parse(readFileSync(join(PACKAGE, 'package.json'), 'utf8')).version;
  return { version, mounts: { [PPU_MOUNT]: join(ROOT, 'node_modules', 'onnxruntime-web', 'dist') } };
}

/** The default set's det, rec and dictionary as dist/ serves them (the manifest's paths under /assets/). */
export function ppuModel(dist) {
  const files = JSON.parse(readFileSync(join(dist, 'assets', 'manifest.json'), 'utf8')).model_sets['ppocr-v6-tiny'].files;
  return { detection: `/assets/${files.det.file}`, recognition: `/assets/${files.rec.file}`,
    charactersDictionary: `/assets/${files.dict.file}` };
}

/** An engine for the benchmarks' round(): started on a blank page of ours, on wasm with `threads` threads (0: as many
 *  as the machine has cores; onnxruntime-web's own default would be half of them). */
export const ppuEngine = (model, threads) => ({
  url: (base) => `${base}__bench__/blank.html`,
  ready: (page) => page.evaluate(async ({ model, threads, wasmPaths }) => {
    const m = await import('/__bench__/ppu.mjs');
    m.ort.env.wasm.wasmPaths = wasmPaths; // its own default is a CDN
    m.ort.env.wasm.numThreads = threads || navigator.hardwareConcurrency;
    window.ppu = new m.PaddleOcrService({ model, session: { executionProviders: ['wasm'], graphOptimizationLevel: 'all' } });
    await window.ppu.initialize();
    return { ms: performance.now(), threads: m.ort.env.wasm.numThreads };
  }, { model, threads, wasmPaths: PPU_MOUNT }),
  read: (page, url) => page.evaluate(async (url) => {
    const bytes = await (await fetch(url)).arrayBuffer();
    const t0 = performance.now();
    const r = await window.ppu.recognize(bytes);
    const ms = performance.now() - t0;
    const lines = r.lines.flat().filter((w) => w.text.trim()).map(({ text, box: { x, y, width, height } }) => ({
      text: text.trim(), box: [[x, y], [x + width, y], [x + width, y + height], [x, y + height]] }));
    return { ms, lines };
  }, url),
});
