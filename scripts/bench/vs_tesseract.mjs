#!/usr/bin/env node
// Benchmark (not a test): Retto in the browser against tesseract.js 7 (eng), the same Chromium, the same pages,
// one run. Every round starts each engine in a fresh browser context (cold: empty HTTP cache, nothing in
// IndexedDB), reloads it twice (warm), then reads every page; the engines alternate which goes first. Prints
// medians side by side: time to ready cold and warm, bytes transferred before ready, per-page time, and CER/WER on
// the labelled pages of tests/testset (scored by tests/py/ocr_metrics.py, not here), plus Retto's boot timeline.
// tesseract.js, its core and its eng data come from node_modules and are served by our own server (workerPath,
// corePath, langPath): any request leaving the origin aborts the run.
// Then, for issue 11's goals: Retto at 1 wasm thread (per page only, in the same rounds); native Retto
// (OrtWorker(threads=2), warm) on the same page files and the browser/native ratio; the browser page time split
// into ORT, bridge, Python and messaging (from result.timings and ocr.lastStats); every engine's pages again with
// a CPU burner on one core (growth under load); renderer memory (largest renderer's VmRSS/VmHWM via CDP
// SystemInfo.getProcessInfo) after tests/data/linn.png, right after and ~10 s idle, for Retto and tesseract.js.
// Beside them, ppu-paddle-ocr (issue 30): PaddleOCR with JS pre- and post-processing over onnxruntime-web, on the
// very model files of our default set (PP-OCRv6 tiny det and rec) and the same onnxruntime-web build, at as many
// wasm threads as the machine has cores (scripts/bench/lib/ppu_page.mjs): what our Python in Pyodide costs against
// a JS-only pipeline. It has no line orientation and no re-reading, so its CER is not the same work as ours.
// --no-t1, --no-ppu, --no-native, --no-load, --no-memory skip those parts.
//   node scripts/bench/vs_tesseract.mjs [--rounds 3] [--pages english_prose,invoice,...] [--dist dist] [--json out.json]
//     [--no-t1] [--no-ppu] [--no-native] [--no-load] [--no-memory]
//   (also: node scripts/bench/browser.mjs --vs tesseract [same options])
// Needs: scripts/setup/setup_web.sh (dist/), .venv (scoring, native), tests/testset/pages (scripts/data/make_testset.py),
// tests/data (scripts/setup/fetch_test_data.py).
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir, loadavg } from 'node:os';
import { join } from 'node:path';
import { chromium } from '@playwright/test';
import { startServer } from '../serve_static.mjs';
import { readWithTesseract } from './lib/tesseract_page.mjs';
import { buildPpu, ppuEngine, ppuModel } from './lib/ppu_page.mjs';
import { ROOT, opt, flag, pagesOpt, CHROMIUM_ARGS, median } from './lib/args.mjs';

const ROUNDS = Math.max(1, Number(opt('--rounds', 3)));
const WARM = 2; // warm reloads per round
const PAGES = pagesOpt();
const DIST = opt('--dist', join(ROOT, 'dist'));
const PAGE_DIR = join(ROOT, 'tests', 'testset', 'pages');
const NM = join(ROOT, 'node_modules');
const TESS_LANG = '4.0.0_best_int'; // what tesseract.js loads by default for its default (LSTM-only) engine

const pageFile = (p) => JSON.parse(readFileSync(join(PAGE_DIR, `${p}.gt.json`), 'utf8')).image;

// A blank page of our origin for tesseract.js (no inline script: the server's CSP applies to it too).
const benchDir = mkdtempSync(join(tmpdir(), 'retto-bench-'));
writeFileSync(join(benchDir, 'blank.html'), '<!doctype html><meta charset="utf-8"><title>tesseract.js bench</title>\n');

/** Bytes transferred (encoded bodies + headers) and every URL requested, in one browser context. */
function watchNetwork(context, origin, offOrigin) {
  const net = { bytes: 0, requests: 0 };
  context.on('request', (req) => {
    const u = new URL(req.url());
    if ((u.protocol === 'http:' || u.protocol === 'https:') && u.origin !== origin) offOrigin.push(req.url());
  });
  context.on('requestfinished', async (req) => {
    try {
      const s = await req.sizes();
      net.bytes += s.responseBodySize + s.responseHeadersSize;
      net.requests += 1;
    } catch { /* the page went away */ }
  });
  return net;
}

/** Retto at a wasm thread count (undefined: the default, auto). A page read also returns the result's
 *  timings (ms per stage; timings.infer = model calls as Python awaits them) and ocr.lastStats (the worker's
 *  wallMs, ORT session.run ms per model), to split the page time. */
const rettoEngine = (threads) => ({
  url: (base) => `${base}dev.html?boot=0`,
  // performance.now() counts from navigation start: page + worker + Python + models + sessions.
  ready: (page) => page.evaluate((threads) => window.Retto.create({ backend: 'auto', threads })
    .then((o) => { window.ocr = o; return { ms: performance.now(), timeline: o.info.timings, threads: o.info.wasm?.threads }; }),
  threads),
  read: (page, url) => page.evaluate(async (url) => {
    const bytes = await (await fetch(url)).arrayBuffer();
    const t0 = performance.now();
    const r = await window.ocr.recognize(bytes);
    const ms = performance.now() - t0;
    const st = window.ocr.lastStats;
    const sum = (o, k) => Object.values(o).reduce((a, v) => a + (k ? v[k] : v), 0);
    return { ms, lines: r.lines.map((l) => ({ text: l.text, box: l.box })),
      split: { wallMs: st.wallMs, total: r.timings.total, infer: sum(r.timings.infer), ort: sum(st.models, 'ortMs'),
        copyIn: sum(st.models, 'copyInMs'), copyOut: st.copyOutMs ?? 0, heapBytes: st.heapBytes, timings: r.timings,
        threads: st.threads } };
  }, url),
});

const ENGINES = {
  retto: rettoEngine(undefined),
  'retto-t1': rettoEngine(1),
  tesseract: {
    url: (base) => `${base}__bench__/blank.html`,
    ready: async (page) => {
      await page.addScriptTag({ url: '/__tesseract__/js/tesseract.min.js' });
      return page.evaluate(async (lang) => {
        const o = new URL('/__tesseract__/', location.href).href;
        window.ocr = await window.Tesseract.createWorker('eng', 1, {
          workerPath: `${o}js/worker.min.js`, corePath: `${o}core/`, langPath: `${o}lang/${lang}`,
          workerBlobURL: false, // a blob: worker would need its own COEP story; load it from our origin
        });
        return { ms: performance.now() };
      }, TESS_LANG);
    },
    read: (page, url) => page.evaluate(readWithTesseract, { url, worker: 'ocr' }),
  },
  ppu: ppuEngine(ppuModel(DIST), 0), // 0: navigator.hardwareConcurrency threads
};

/** One round of one engine: cold start, `warm` warm starts, then every page once. */
async function round(browser, base, name, offOrigin, warm = WARM) {
  const e = ENGINES[name];
  const context = await browser.newContext();
  const net = watchNetwork(context, new URL(base).origin, offOrigin);
  try {
    const page = await context.newPage();
    const starts = [];
    for (let i = 0; i <= warm; i++) {
      const before = net.bytes;
      await page.goto(e.url(base));
      const r = await e.ready(page);
      starts.push({ ...r, bytes: net.bytes - before });
    }
    const pages = {};
    for (const p of PAGES) pages[p] = await e.read(page, `/__testdata__/${pageFile(p)}`);
    // Retto: workers started in the last context (1 = no worker was recycled between the pages).
    const boots = await page.evaluate(() => window.ocr?.boots);
    return { cold: starts[0], warm: starts.slice(1), pages, boots };
  } finally {
    await context.close();
  }
}

function score(results) {
  const code = `
import json, sys
sys.path.insert(0, sys.argv[1])
from ocr_metrics import score_page
data = json.load(open(sys.argv[2]))
out = {}
for engine, pages in data["lines"].items():
    for page, lines in pages.items():
        gt = json.load(open(f"{data['pages']}/{page}.gt.json"))
        out.setdefault(engine, {})[page] = score_page(lines, gt)
print(json.dumps(out))`;
  const file = join(benchDir, 'lines.json');
  writeFileSync(file, JSON.stringify({ pages: PAGE_DIR, lines: results }));
  return JSON.parse(execFileSync(join(ROOT, '.venv', 'bin', 'python'), ['-c', code, join(ROOT, 'tests', 'py'), file]));
}

/** The renderer processes' memory (CDP SystemInfo.getProcessInfo, then /proc/<pid>/status), as
 *  tests/e2e/runtime/robustness.spec.js rendererMemory: the largest renderer's VmRSS and VmHWM (its peak so far), MB. */
async function rendererMemory(browser) {
  const cdp = await browser.newBrowserCDPSession();
  const { processInfo } = await cdp.send('SystemInfo.getProcessInfo');
  await cdp.detach();
  const all = processInfo.filter((p) => p.type === 'renderer').flatMap(({ id }) => {
    try {
      const status = readFileSync(`/proc/${id}/status`, 'utf8');
      const kb = (k) => Number(status.match(new RegExp(`${k}:\\s+(\\d+) kB`))[1]);
      return [{ pid: id, rssMB: Math.round(kb('VmRSS') / 1024), peakMB: Math.round(kb('VmHWM') / 1024) }];
    } catch { return []; } // gone meanwhile
  });
  return { rssMB: Math.max(...all.map((p) => p.rssMB)), peakMB: Math.max(...all.map((p) => p.peakMB)), all };
}

const MEMORY_PAGE = 'linn.png'; // tests/data, 2550x3300
const IDLE_MS = 10000; // idle after the job before the last reading (Retto: recycled at 1.5 s, rebooted 5 s later)

/** Renderer memory of one engine in a fresh context: ready, right after reading MEMORY_PAGE, idle IDLE_MS later. */
async function memoryRun(browser, base, name, offOrigin) {
  const e = ENGINES[name];
  const context = await browser.newContext();
  watchNetwork(context, new URL(base).origin, offOrigin);
  try {
    const page = await context.newPage();
    await page.goto(e.url(base));
    await e.ready(page);
    const ready = await rendererMemory(browser);
    const r = await e.read(page, `/__data__/${MEMORY_PAGE}`);
    const done = await rendererMemory(browser);
    const t = Date.now();
    let rebooted = null;
    if (name.startsWith('retto')) { // the replaced worker's successor is up (or the wait gave up)
      rebooted = await page.waitForFunction(() => window.ocr.boots >= 2 && window.ocr.handle && !window.ocr.booting,
        null, { timeout: 60000 }).then(() => Date.now() - t, () => null);
    }
    await new Promise((res) => setTimeout(res, Math.max(0, IDLE_MS - (Date.now() - t))));
    const idleMs = Date.now() - t;
    const idle = await rendererMemory(browser);
    const boots = name.startsWith('retto') ? await page.evaluate(() => window.ocr.boots) : undefined;
    return { ready, done, idle, idleMs, rebootedAfterMs: rebooted, boots, ms: r.ms, lines: r.lines.length,
      heapBytes: r.split?.heapBytes };
  } finally {
    await context.close();
  }
}

// Native: the same default set over onnxruntime CPU at 2 threads, the same page files as bytes, warm (one
// warm-up run per page), timed as session.run(bytes).to_dict() (the browser's time also covers to_dict + JSON).
const NATIVE = `
import json, sys, time
from pathlib import Path
from retto.native.ort_worker import OrtWorker
rounds, pages = int(sys.argv[1]), sys.argv[2:]
session = OrtWorker(threads=2).session()
out = {}
for name, path in zip(pages[::2], pages[1::2]):
    data = Path(path).read_bytes()
    session.run(data)  # warm-up
    runs, total, infer = [], [], []
    for _ in range(rounds):
        t0 = time.perf_counter(); d = session.run(data).to_dict(); runs.append((time.perf_counter() - t0) * 1000)
        total.append(d["timings"]["total"]); infer.append(sum(d["timings"]["infer"].values()))
    out[name] = {"ms": runs, "total": total, "infer": infer, "model_set": d.get("model_set"), "lines": len(d["lines"])}
print(json.dumps(out))
`;
const NATIVE_ROUNDS = Math.max(3, ROUNDS);
function native() {
  const out = execFileSync(join(ROOT, '.venv', 'bin', 'python'), ['-c', NATIVE, String(NATIVE_ROUNDS),
    ...PAGES.flatMap((p) => [p, join(PAGE_DIR, pageFile(p))])], { cwd: ROOT, maxBuffer: 64 << 20 });
  return JSON.parse(out);
}

const mounts = {
  '/__testdata__/': PAGE_DIR,
  '/__data__/': join(ROOT, 'tests', 'data'),
  '/__bench__/': benchDir,
  '/__tesseract__/js/': join(NM, 'tesseract.js', 'dist'),
  '/__tesseract__/core/': join(NM, 'tesseract.js-core'),
  '/__tesseract__/lang/': join(NM, '@tesseract.js-data', 'eng'),
};
const versions = Object.fromEntries(['tesseract.js', 'tesseract.js-core', '@tesseract.js-data/eng'].map((p) => [p,
  JSON.parse(readFileSync(join(NM, p, 'package.json'), 'utf8')).version]));
const ppu = flag('--no-ppu') ? null : await buildPpu(benchDir);
if (ppu) {
  Object.assign(mounts, ppu.mounts);
  versions['ppu-paddle-ocr'] = ppu.version;
}
// Per-page engines: Retto at its default thread count, Retto at 1 thread (per page only), tesseract.js, ppu-paddle-ocr.
const ENGINE_NAMES = ['retto', ...(flag('--no-t1') ? [] : ['retto-t1']), 'tesseract', ...(ppu ? ['ppu'] : [])];
const server = await startServer({ dir: DIST, mounts });
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', args: CHROMIUM_ARGS });
const load = [loadavg()[0]];
const runs = Object.fromEntries(ENGINE_NAMES.map((n) => [n, []]));
const loaded = Object.fromEntries(ENGINE_NAMES.map((n) => [n, []]));
let nat = null;
let memory = null;
let burner = null;
const loadUnder = [];
const offOrigin = [];
const checkOrigin = () => {
  if (offOrigin.length) throw new Error(`requests left the origin: ${[...new Set(offOrigin)].join(', ')}`);
};
const rotate = (xs, r) => xs.map((_, i) => xs[(i + r) % xs.length]);
try {
  for (let r = 0; r < ROUNDS; r++) {
    for (const name of rotate(ENGINE_NAMES, r)) {
      console.error(`round ${r + 1}/${ROUNDS}: ${name}…`);
      runs[name].push(await round(browser, server.url, name, offOrigin, name === 'retto-t1' ? 0 : WARM));
      checkOrigin();
    }
    load.push(loadavg()[0]);
  }
  if (!flag('--no-native')) {
    console.error(`native (2 threads), ${NATIVE_ROUNDS} runs per page…`);
    nat = native();
  }
  if (!flag('--no-load')) {
    // One busy neighbour: a child process spinning on one core for the whole loaded phase.
    burner = spawn(process.execPath, ['-e', 'for(;;){}'], { stdio: 'ignore' });
    process.on('exit', () => burner?.kill());
    await new Promise((res) => setTimeout(res, 2000));
    for (let r = 0; r < ROUNDS; r++) {
      for (const name of rotate(ENGINE_NAMES, r)) {
        console.error(`under load, round ${r + 1}/${ROUNDS}: ${name}…`);
        loaded[name].push(await round(browser, server.url, name, offOrigin, 0));
        checkOrigin();
      }
      loadUnder.push(loadavg()[0]);
    }
    burner.kill();
    burner = null;
    await new Promise((res) => setTimeout(res, 2000));
  }
  if (!flag('--no-memory')) {
    memory = {};
    for (const name of ['retto', 'tesseract']) {
      console.error(`memory: ${name}, ${MEMORY_PAGE}…`);
      memory[name] = await memoryRun(browser, server.url, name, offOrigin);
      checkOrigin();
    }
  }
  load.push(loadavg()[0]);
} finally {
  burner?.kill();
  await browser.close();
  await server.close();
}

const last = Object.fromEntries(Object.entries(runs).map(([n, rs]) => [n, Object.fromEntries(
  Object.entries(rs.at(-1).pages).map(([p, v]) => [p, v.lines]))]));
const scores = score(last);
const summary = {};
for (const [name, rs] of Object.entries(runs)) {
  summary[name] = {
    coldMs: median(rs.map((r) => r.cold.ms)),
    warmMs: median(rs.flatMap((r) => r.warm.map((w) => w.ms))),
    coldBytes: median(rs.map((r) => r.cold.bytes)),
    warmBytes: median(rs.flatMap((r) => r.warm.map((w) => w.bytes))),
    pages: Object.fromEntries(PAGES.map((p) => [p, { ms: median(rs.map((r) => r.pages[p].ms)), ...scores[name][p] }])),
  };
}
const s = (ms) => `${(ms / 1000).toFixed(2)} s`;
const mb = (b) => `${(b / 1e6).toFixed(1)} MB`;
const pct = (x) => `${(100 * x).toFixed(1)} %`;
const row = (label, ...cols) => console.log(`${label.padEnd(34)}${cols.map((c) => String(c).padStart(16)).join('')}`);
console.log(`\nRetto (dist ${DIST.replace(`${ROOT}/`, '')}) vs tesseract.js ${versions['tesseract.js']} (core `
  + `${versions['tesseract.js-core']}, eng ${TESS_LANG} from @tesseract.js-data/eng ${versions['@tesseract.js-data/eng']}), `
  + `medians of ${ROUNDS} alternating rounds (${WARM} warm starts each)`
  + `${ppu ? `; ppu-paddle-ocr ${ppu.version} on the default set's det and rec, ${runs.ppu[0].cold.threads} wasm threads` : ''}`
  + `; load average ${load.map((x) => x.toFixed(2)).join(' → ')}`);
const shown = ['retto', 'tesseract', ...(ppu ? ['ppu'] : [])];
const X = shown.map((n) => summary[n]);
const R = summary.retto;
row('', 'retto', 'tesseract.js', ...(ppu ? ['ppu-paddle-ocr'] : []));
row('time to ready, cold', ...X.map((x) => s(x.coldMs)));
row('time to ready, warm', ...X.map((x) => s(x.warmMs)));
row('bytes before ready, cold', ...X.map((x) => mb(x.coldBytes)));
row('bytes before ready, warm', ...X.map((x) => mb(x.warmBytes)));
for (const p of PAGES) {
  row(`${p}: time`, ...X.map((x) => s(x.pages[p].ms)));
  row(`${p}: CER / WER`, ...X.map((x) => `${pct(x.pages[p].cer)} / ${pct(x.pages[p].wer)}`));
}
const total = (x) => PAGES.reduce((a, p) => a + x.pages[p].ms, 0);
row('all pages: time', ...X.map((x) => s(total(x))));
row('ratio retto / this engine', ...X.map((x) => (total(R) / total(x)).toFixed(2)));

// Retto's boot timeline: phase -> ms since the worker got `init` (median over cold and over warm starts).
const phases = [...new Set(runs.retto.flatMap((r) => [r.cold, ...r.warm].flatMap((x) => Object.keys(x.timeline ?? {}))))];
console.log('\nRetto boot timeline (ms since the worker started init; median; cold | warm):');
for (const ph of phases) {
  const c = median(runs.retto.map((r) => r.cold.timeline?.[ph]));
  const w = median(runs.retto.flatMap((r) => r.warm.map((x) => x.timeline?.[ph])));
  console.log(`  ${ph.padEnd(26)}${String(Math.round(c)).padStart(8)} | ${String(Math.round(w)).padStart(6)}`);
}

// Goals of issue 11 beyond the table above.
const ms0 = (x) => (x == null || Number.isNaN(x) ? '—' : String(Math.round(x)));
const pageMs = (rs, p) => median(rs.map((r) => r.pages[p].ms));
const sumPages = (rs) => PAGES.reduce((a, p) => a + pageMs(rs, p), 0);
const threadsOf = (name) => runs[name]?.[0]?.cold.threads;

// 1 + 2. Browser vs native, and where the browser's page time goes. Per page run of `retto` (quiet rounds):
//   ORT     = sum of ocr.lastStats.models[*].ortMs (onnxruntime-web session.run)
//   bridge  = sum of timings.infer - ORT (the model calls as Python awaits them, minus ORT: tensor copies, FFI)
//   Python  = lastStats.wallMs - sum of timings.infer: the worker's job minus its model calls (bytes into Python,
//             decode, pre/post-processing, to_dict + JSON, gc; JS's JSON.parse of the result is in it too)
//   message = page time (main thread, around recognize) - lastStats.wallMs (postMessage, queue, structured clone)
// Each is the median over rounds on its own (the medians need not add up exactly); shares are of the page time.
const split = {};
for (const p of PAGES) {
  const xs = runs.retto.map((r) => ({ ms: r.pages[p].ms, ...r.pages[p].split }));
  const m = (f) => median(xs.map(f));
  split[p] = { ms: m((x) => x.ms), ort: m((x) => x.ort), bridge: m((x) => x.infer - x.ort),
    python: m((x) => x.wallMs - x.infer), session: m((x) => x.total - x.infer), message: m((x) => x.ms - x.wallMs),
    pyShare: m((x) => (x.wallMs - x.infer) / x.ms), nonOrtShare: m((x) => (x.ms - x.ort) / x.ms) };
}
if (nat) {
  console.log(`\nPer page, Retto browser (threads ${threadsOf('retto')}) vs native (OrtWorker(threads=2), warm, median of `
    + `${NATIVE_ROUNDS}), and the browser time split (median ms; Python = worker job − model calls; goal ≤ 15 %)`);
  console.log(`${'page'.padEnd(20)} browser  native  ratio |  native infer/python |    ORT  bridge  Python (in Session)  message | Python%  not-ORT%`);
  let bT = 0; let nT = 0;
  for (const p of PAGES) {
    const b = split[p]; const n = nat[p]; const nm = median(n.ms);
    bT += b.ms; nT += nm;
    console.log(`${p.padEnd(20)}${ms0(b.ms).padStart(8)}${ms0(nm).padStart(8)}${(b.ms / nm).toFixed(2).padStart(7)} |`
      + `${ms0(median(n.infer)).padStart(13)}${ms0(median(n.total.map((t, i) => t - n.infer[i]))).padStart(7)} |${ms0(b.ort).padStart(7)}${ms0(b.bridge).padStart(8)}`
      + `${ms0(b.python).padStart(8)}${` (${ms0(b.session)})`.padStart(13)}${ms0(b.message).padStart(9)} |`
      + `${pct(b.pyShare).padStart(8)}${pct(b.nonOrtShare).padStart(10)}`);
  }
  const py = PAGES.reduce((a, p) => a + split[p].python, 0);
  console.log(`${'all pages'.padEnd(20)}${ms0(bT).padStart(8)}${ms0(nT).padStart(8)}${(bT / nT).toFixed(2).padStart(7)} |`
    + `${''.padStart(20)} |${''.padStart(44)}|${pct(py / bT).padStart(8)}   (goal: ratio ≤ 2, Python ≤ 15 %)`);
}
// Python by stage: the stage's time minus its model calls (decode and layout have none).
const stage = (t, k, m) => (t[k] ?? 0) - (m ? t.infer[m] : 0);
const STAGES = [['decode'], ['det', 'det'], ['cls', 'cls'], ['rec', 'rec'], ['layout']];
console.log(`Python by stage (stage time − its model calls; median ms): ${PAGES.map((p) => `${p} `
  + STAGES.map(([k, m]) => `${k} ${ms0(median(runs.retto.map((r) => stage(r.pages[p].split.timings, k, m))))}`).join(' ')).join('; ')}`);

// 3. Under load: the same pages again with a CPU burner on one core; growth = loaded / quiet (sum of page medians).
if (loaded.retto?.length) {
  console.log(`\nUnder load (one busy core: node -e 'for(;;){}'; load average ${loadUnder.map((x) => x.toFixed(2)).join(' → ')}), `
    + `per-page medians of ${ROUNDS} rounds, s (goal: growth ≤ 1.5)`);
  const names = ENGINE_NAMES;
  const label = (n) => ({ tesseract: 'tesseract.js', ppu: 'ppu-paddle-ocr' }[n] ?? `retto ${threadsOf(n) ?? '?'} thr`);
  console.log(`${'page'.padEnd(20)}${names.map((n) => `${label(n)} quiet → loaded`.padStart(32)).join('')}`);
  for (const p of PAGES) {
    console.log(`${p.padEnd(20)}${names.map((n) => `${s(pageMs(runs[n], p))} → ${s(pageMs(loaded[n], p))} (${(pageMs(loaded[n], p) / pageMs(runs[n], p)).toFixed(2)}×)`.padStart(32)).join('')}`);
  }
  console.log(`${'all pages'.padEnd(20)}${names.map((n) => `${s(sumPages(runs[n]))} → ${s(sumPages(loaded[n]))} (${(sumPages(loaded[n]) / sumPages(runs[n])).toFixed(2)}×)`.padStart(32)).join('')}`);
  if (runs['retto-t1']) {
    console.log(`retto 1 thr / ${threadsOf('retto')} thr, all pages: quiet ${(sumPages(runs['retto-t1']) / sumPages(runs.retto)).toFixed(2)}, `
      + `loaded ${(sumPages(loaded['retto-t1']) / sumPages(loaded.retto)).toFixed(2)}; retto ${threadsOf('retto')} thr / tesseract.js loaded `
      + `${(sumPages(loaded.retto) / sumPages(loaded.tesseract)).toFixed(2)}`);
  }
  console.log(`time to ready, cold, under load: ${names.map((n) => `${label(n)} ${s(median(loaded[n].map((r) => r.cold.ms)))}`).join(', ')}`);
}

// 4. Memory: the largest renderer process after reading MEMORY_PAGE (2550x3300).
if (memory) {
  console.log(`\nRenderer memory, ${MEMORY_PAGE} (2550x3300), MB RSS (peak VmHWM) of the largest renderer process (goal: ≤ 500 after, back to ready)`);
  for (const [n, m] of Object.entries(memory)) {
    console.log(`${(n === 'tesseract' ? 'tesseract.js' : 'retto').padEnd(14)} ready ${m.ready.rssMB} (${m.ready.peakMB})`
      + `  after the job ${m.done.rssMB} (${m.done.peakMB})  idle ${(m.idleMs / 1000).toFixed(1)} s ${m.idle.rssMB} (${m.idle.peakMB})`
      + `  | page ${s(m.ms)}, ${m.lines} lines${m.heapBytes ? `, wasm memory ${mb(m.heapBytes)}` : ''}`
      + `${m.boots ? `, workers started ${m.boots}${m.rebootedAfterMs != null ? ` (fresh one ready ${(m.rebootedAfterMs / 1000).toFixed(1)} s after the job)` : ''}` : ''}`
      + `; renderers ${m.idle.all.length}`);
  }
}
const recycled = Object.entries({ ...runs, ...Object.fromEntries(Object.entries(loaded).map(([n, v]) => [`${n} (loaded)`, v])) })
  .filter(([, rs]) => rs.some((r) => r.boots > 1)).map(([n]) => n);
if (recycled.length) console.log(`note: a worker was replaced between pages in: ${recycled.join(', ')}`);
const json = opt('--json');
if (json) writeFileSync(json, JSON.stringify({ versions, load, loadUnder, summary, runs, loaded, native: nat, split, memory }, null, 1));
