#!/usr/bin/env node
// Benchmark (not a test): the native pipeline vs the same pipeline in the browser (Pyodide + onnxruntime-web
// wasm) at 1 thread and at N threads, warm, median of --rounds runs per image; the browser time split into
// Python pre/post (in Pyodide), ORT inference, and the bridge (typed-array copies + FFI/await overhead); and
// time to ready (page load -> worker ready) with a warm HTTP cache.
// Then one line per backend (wasm, WebGL, WebGPU, each forced for all three models) on a 300x300 crop of baiona.png
// (4 labels; its det input is the 736x736 WebGL bucket): time to ready (incl. the GPU canary) and warm recognize.
// On this machine WebGL and WebGPU run on SwiftShader (software), so those lines measure a CPU emulating a GPU.
//   node scripts/bench/browser.mjs [--rounds 3] [--images typewriter,linn,baiona] [--json out.json]
//                                  [--backends wasm,webgl,webgpu] [--gpu-rounds 1] [--only-backends]
//   node scripts/bench/browser.mjs --vs tesseract [--rounds 3] [--pages …]   (scripts/bench/vs_tesseract.mjs)
// Needs: scripts/setup/setup_web.sh (dist/), .venv (native side), tests/data (scripts/setup/fetch_test_data.py).
import { execFileSync, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { chromium } from '@playwright/test';
import { startServer } from '../serve_static.mjs';
import { ROOT, args, opt, CHROMIUM_ARGS, median } from './lib/args.mjs';

if (opt('--vs')) { // --vs tesseract: against tesseract.js (scripts/bench/vs_tesseract.mjs, its own options)
  if (opt('--vs') !== 'tesseract') throw new Error(`--vs ${opt('--vs')}: only tesseract is known`);
  const rest = args.filter((a, i) => a !== '--vs' && args[i - 1] !== '--vs');
  const r = spawnSync(process.execPath, [join(ROOT, 'scripts', 'bench', 'vs_tesseract.mjs'), ...rest], { stdio: 'inherit' });
  process.exit(r.status ?? 1);
}
const ROUNDS = Math.max(3, Number(opt('--rounds', 3)));
const IMAGES = opt('--images', 'typewriter,linn,baiona').split(',');
const N = cpus().length;

const sum = (o) => Object.values(o).reduce((a, b) => a + b, 0);

// Native: the same Session over onnxruntime CPU, bytes in (as the browser gets them), warm.
const NATIVE = `
import json, sys, time, statistics
from pathlib import Path
from retto.native.ort_worker import OrtWorker
rounds, threads, paths = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3:]
session = OrtWorker(device="cpu", threads=threads).session()
out = {}
for p in paths:
    data = Path(p).read_bytes()
    session.run(data)  # warm-up
    runs = []
    for _ in range(rounds):
        t0 = time.perf_counter(); r = session.run(data).to_dict(); runs.append((time.perf_counter() - t0) * 1000)
    out[Path(p).stem] = {"wall": runs, "lines": len(r["lines"]), "infer": r["timings"]["infer"]}
print(json.dumps(out))
`;

function native(threads) {
  const paths = IMAGES.map((i) => join(ROOT, 'tests', 'data', `${i}.png`));
  const out = execFileSync(join(ROOT, '.venv', 'bin', 'python'), ['-c', NATIVE, String(ROUNDS), String(threads), ...paths],
    { cwd: ROOT, maxBuffer: 64 << 20 });
  return JSON.parse(out);
}

async function browser(url, threads) {
  const b = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', args: CHROMIUM_ARGS });
  try {
    const page = await (await b.newContext()).newPage();
    await page.goto(`${url}dev.html?boot=0`); // the runtime page (window.Retto)
    await page.evaluate((t) => window.Retto.create({ backend: 'wasm', threads: t }).then((o) => { window.ocr = o; }), threads);
    const info = await page.evaluate(() => window.ocr.info);
    const out = { threads: info.wasm.threads };
    for (const image of IMAGES) {
      out[image] = await page.evaluate(async ({ image, rounds }) => {
        const bytes = await (await fetch(`/__testdata__/${image}.png`)).arrayBuffer();
        await window.ocr.recognize(bytes); // warm-up
        const runs = [];
        for (let i = 0; i < rounds; i++) {
          const t0 = performance.now();
          const r = await window.ocr.recognize(bytes);
          const wall = performance.now() - t0;
          const s = window.ocr.lastStats;
          const infer = r.timings.infer.det + r.timings.infer.cls + r.timings.infer.rec;
          const ort = s.models.det.ortMs + s.models.cls.ortMs + s.models.rec.ortMs;
          const copies = s.models.det.copyInMs + s.models.cls.copyInMs + s.models.rec.copyInMs + s.copyOutMs;
          runs.push({ wall, total: r.timings.total, python: r.timings.total - infer, ort, bridge: infer - ort, copies,
            lines: r.lines.length });
        }
        return runs;
      }, { image, rounds: ROUNDS });
    }
    return out;
  } finally {
    await b.close();
  }
}

async function timeToReady(url) {
  const b = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', args: CHROMIUM_ARGS });
  try {
    const page = await (await b.newContext()).newPage();
    const once = async () => {
      await page.goto(`${url}dev.html?boot=0`); // the runtime page (window.Retto)
      // performance.now() counts from navigation start: page load + worker boot + models + sessions.
      return page.evaluate(() => window.Retto.create({ backend: 'auto' }).then((o) => { window.ocr = o; return performance.now(); }));
    };
    const cold = await once(); // fills the HTTP cache
    const warm = [];
    for (let i = 0; i < ROUNDS; i++) warm.push(await once());
    return { cold, warm };
  } finally {
    await b.close();
  }
}

// Per backend: the same small crop on wasm, WebGL and WebGPU (software renderers here; see the header).
const BACKENDS = opt('--backends', 'wasm,webgl,webgpu').split(',').filter(Boolean);
const GPU_ROUNDS = Math.max(1, Number(opt('--gpu-rounds', 1)));
const CROP = [340, 240, 640, 540];

function cropPng() {
  const code = 'import base64,io,sys\nfrom PIL import Image\nb=io.BytesIO()\n'
    + `Image.open(sys.argv[1]).convert("RGB").crop((${CROP})).save(b,format="PNG")\nprint(base64.b64encode(b.getvalue()).decode())`;
  const out = execFileSync(join(ROOT, '.venv', 'bin', 'python'), ['-c', code, join(ROOT, 'tests', 'data', 'baiona.png')]);
  return Array.from(Buffer.from(out.toString().trim(), 'base64'));
}

async function perBackend(url, backend, png) {
  const b = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    args: [...CHROMIUM_ARGS, '--enable-unsafe-webgpu'] });
  try {
    const page = await (await b.newContext()).newPage();
    await page.goto(`${url}dev.html?boot=0`);
    const rounds = backend === 'wasm' ? ROUNDS : GPU_ROUNDS;
    return await page.evaluate(async ({ backend, png, rounds }) => {
      const t0 = performance.now();
      const ocr = await window.Retto.create({ backend });
      const ready = performance.now() - t0;
      const bytes = new Uint8Array(png).buffer;
      const first = performance.now();
      await ocr.recognize(bytes); // warm-up (WebGPU compiles its shaders for these shapes here)
      const firstMs = performance.now() - first;
      const runs = [];
      let r;
      for (let i = 0; i < rounds; i++) {
        const t1 = performance.now();
        r = await ocr.recognize(bytes);
        const s = ocr.lastStats.models;
        runs.push({ wall: performance.now() - t1, det: s.det.ortMs, cls: s.cls.ortMs, rec: s.rec.ortMs });
      }
      const info = ocr.info;
      ocr.terminate();
      return { ready, firstMs, runs, backend: r.backend, texts: r.lines.map((l) => l.text),
        canary: Object.fromEntries(Object.entries(info.canary).map(([m, v]) => [m, Object.fromEntries(
          Object.entries(v).map(([k, c]) => [k, { ok: c.ok, ms: c.ms }]))])),
        renderer: info.probes.webgl?.info?.renderer ?? (info.probes.webgpu?.info?.fallbackAdapter ? 'WebGPU fallback adapter' : '') };
    }, { backend, png, rounds });
  } finally {
    await b.close();
  }
}

function printBackends(rows) {
  const f = (x) => (x >= 100 ? x.toFixed(0) : x.toFixed(1)).padStart(9);
  console.log(`\nper backend, baiona crop ${CROP} (300x300, det 736x736), median warm runs, ms`);
  console.log('backend   ready(s)  1st run     warm      det      cls      rec  models            texts');
  for (const { backend, r } of rows) {
    const m = (k) => median(r.runs.map((x) => x[k]));
    console.log(`${backend.padEnd(8)}${(r.ready / 1000).toFixed(1).padStart(9)}${f(r.firstMs)}${f(m('wall'))}${f(m('det'))}`
      + `${f(m('cls'))}${f(m('rec'))}  ${Object.values(r.backend).join('/').padEnd(17)} ${r.texts.join(' | ')}`);
  }
  console.log('ready includes boot + the GPU canary (each model on the GPU and on wasm); WebGL and WebGPU run on '
    + 'SwiftShader here (software renderers), so their figures are not GPU figures.');
}

const server = await startServer({ dir: join(ROOT, 'dist'), mounts: { '/__testdata__/': join(ROOT, 'tests', 'data') } });
try {
  const backendRows = [];
  if (BACKENDS.length) {
    const png = cropPng();
    for (const backend of BACKENDS) {
      console.error(`per backend: ${backend}…`);
      backendRows.push({ backend, r: await perBackend(server.url, backend, png) });
    }
  }
  if (args.includes('--only-backends')) {
    printBackends(backendRows);
    const json = opt('--json');
    if (json) writeFileSync(json, JSON.stringify({ backends: backendRows }, null, 1));
    process.exit(0);
  }
  console.error(`native (1 and ${N} threads), ${ROUNDS} rounds…`);
  const nat1 = native(1);
  const natN = native(N);
  console.error('browser wasm, 1 thread…');
  const br1 = await browser(server.url, 1);
  console.error(`browser wasm, ${N} threads…`);
  const brN = await browser(server.url, N);
  console.error('time to ready…');
  const ttr = await timeToReady(server.url);

  const rows = IMAGES.map((image) => {
    const m = (runs, k) => median(runs.map((r) => r[k]));
    const bN = brN[image];
    const total = m(bN, 'total');
    return {
      image,
      native1: median(nat1[image].wall), nativeN: median(natN[image].wall),
      browser1: m(br1[image], 'wall'), browserN: m(bN, 'wall'),
      pythonN: m(bN, 'python'), ortN: m(bN, 'ort'), bridgeN: m(bN, 'bridge'), copiesN: m(bN, 'copies'), total,
      lines: { native: nat1[image].lines, browser: bN[0].lines },
    };
  });
  const f = (x) => (x >= 100 ? x.toFixed(0) : x.toFixed(1)).padStart(8);
  const p = (x) => `${(100 * x).toFixed(0)}%`.padStart(7);
  console.log(`\nmedians of ${ROUNDS} warm runs, ms (N = ${N}; browser threads: ${br1.threads} and ${brN.threads})`);
  console.log('image        native1  nativeN browser1 browserN  ratio1  ratioN | python      ort   bridge  copies |  py%   ort% bridge%');
  for (const r of rows) {
    console.log(`${r.image.padEnd(11)}${f(r.native1)} ${f(r.nativeN)} ${f(r.browser1)} ${f(r.browserN)} ${(r.browser1 / r.native1).toFixed(2).padStart(7)} ${(r.browserN / r.nativeN).toFixed(2).padStart(7)} |`
      + `${f(r.pythonN)} ${f(r.ortN)} ${f(r.bridgeN)} ${f(r.copiesN)} |${p(r.pythonN / r.total)}${p(r.ortN / r.total)}${p(r.bridgeN / r.total)}`);
  }
  console.log(`\ntime to ready (page load -> worker ready, backend auto): cold ${(ttr.cold / 1000).toFixed(2)} s, `
    + `warm HTTP cache median ${(median(ttr.warm) / 1000).toFixed(2)} s (runs: ${ttr.warm.map((x) => (x / 1000).toFixed(2)).join(', ')})`);
  console.log('ratio = browser wall / native wall at the same thread count; python = Session total - model calls; '
    + 'bridge = model calls as Python sees them - ORT session.run; copies = the typed-array copies inside bridge.');
  if (backendRows.length) printBackends(backendRows);
  const json = opt('--json');
  if (json) writeFileSync(json, JSON.stringify({ backends: backendRows, rows, native: { 1: nat1, [N]: natN }, browser: { 1: br1, [N]: brN }, timeToReady: ttr }, null, 1));
} finally {
  await server.close();
}
