#!/usr/bin/env node
// Benchmark (not a test): where a page's time goes in the browser worker, Python (Pyodide) against model inference
// (onnxruntime-web through the bridge), per Python function. Each page is read warm with cProfile running inside
// Pyodide (started and stopped through the worker's diagnostics `python` message); a coroutine suspended on a model
// call is not charged, so the profile's total is the Python time of the page. Prints per page: wall time, ORT
// time (ocr.lastStats), Python time (the profile's total), and the functions with the largest own time summed
// over the pages. With several --dist builds (e.g. before/after a change), each build runs in its own worker and
// the builds alternate page by page, so they share the machine's load.
//   node scripts/bench/python_share.mjs [--rounds 3] [--pages english_prose,...] [--dist dist[,other]] [--top 25]
//     [--threads N] [--json out.json]
// Needs: scripts/setup/setup_web.sh (dist/) and scripts/data/make_testset.py (tests/testset/pages).
import { readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { chromium } from '@playwright/test';
import { startServer } from '../serve_static.mjs';
import { ROOT, opt, pagesOpt, CHROMIUM_ARGS, median, PAGES_DIR, pageUrl } from './lib/args.mjs';

const ROUNDS = Math.max(1, Number(opt('--rounds', 3)));
const PAGES = pagesOpt();
const DISTS = opt('--dist', join(ROOT, 'dist')).split(',');
const TOP = Number(opt('--top', 25));
const THREADS = opt('--threads', undefined) && Number(opt('--threads'));

const START = 'import cProfile\n_bench_prof = cProfile.Profile()\n_bench_prof.enable()';
// Own time per function (file:line name), and the profile's total own time, in ms.
const STOP = `
_bench_prof.disable()
import pstats, json
_s = pstats.Stats(_bench_prof).stats
_own = {}
_via = {}
for (f, line, name), (cc, nc, tt, ct, callers) in _s.items():
    key = f"{f.split('/site-packages/')[-1]}:{line} {name}"
    _own[key] = _own.get(key, 0.0) + tt * 1000.0
    if f == "~":  # a builtin (numpy, Pillow, the FFI): charge its time to each Python caller too
        for (cf, cl, cn), (_, _, ctt, _) in callers.items():
            k = f"{key}  <-  {cf.split('/site-packages/')[-1]}:{cl} {cn}"
            _via[k] = _via.get(k, 0.0) + ctt * 1000.0
json.dumps({"total": sum(_own.values()), "own": _own, "via": _via})`;

/** One page read with the profiler on: wall ms, the result's timings, ORT ms, the profile. */
async function readPage(page, engine, url) {
  return page.evaluate(async ({ engine, url, START, STOP }) => {
    const ocr = window.engines[engine];
    const bytes = await (await fetch(url)).arrayBuffer();
    await ocr.evalPython(START);
    const t0 = performance.now();
    const r = await ocr.recognize(bytes);
    const ms = performance.now() - t0;
    const prof = JSON.parse(await ocr.evalPython(STOP));
    const st = ocr.lastStats;
    const ort = Object.values(st.models).reduce((a, m) => a + m.ortMs, 0);
    return { ms, ort, python: prof.total, own: prof.own, via: prof.via, timings: r.timings, lines: r.lines.length };
  }, { engine, url, START, STOP });
}

const load0 = loadavg()[0];
const servers = await Promise.all(DISTS.map((dir) => startServer({ dir, isolation: true, mounts: { '/__pages__/': PAGES_DIR } })));
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', args: CHROMIUM_ARGS });
const runs = DISTS.map(() => Object.fromEntries(PAGES.map((p) => [p, []])));
let info = [];
try {
  const pages = [];
  for (const s of servers) { // one page (and worker) per build, each from its own server
    const page = await (await browser.newContext()).newPage();
    await page.goto(`${s.url}dev.html?boot=0`);
    info.push(await page.evaluate(async (threads) => {
      window.engines = [await window.Retto.create({ backend: 'wasm', threads, idleRecycleBytes: 0 })]; // no idle recycling: the builds take turns
      return window.engines[0].info.wasm;
    }, THREADS));
    pages.push(page);
  }
  for (const p of PAGES) for (const page of pages) await readPage(page, 0, pageUrl(p)); // warm-up
  for (let r = 0; r < ROUNDS; r++) {
    for (const p of PAGES) {
      const order = DISTS.map((_, i) => i);
      if (r % 2) order.reverse();
      for (const i of order) {
        const x = await readPage(pages[i], 0, pageUrl(p));
        runs[i][p].push(x);
        console.error(`round ${r + 1} ${p.padEnd(20)} build ${i}: ${x.ms.toFixed(0)} ms, ORT ${x.ort.toFixed(0)}, Python ${x.python.toFixed(0)}`);
      }
    }
  }
} finally {
  await browser.close();
  for (const s of servers) await s.close();
}

const ms0 = (x) => x.toFixed(0);
console.log(`\nload average ${load0.toFixed(2)} at start, ${loadavg()[0].toFixed(2)} at end; ${ROUNDS} rounds, medians, ms; wasm threads ${info.map((w) => `${w.threads} (${w.threadsReason})`).join(' / ')}`);
DISTS.forEach((d, i) => {
  console.log(`\nbuild ${i}: ${d}`);
  console.log('| page | lines | wall | ORT | Python (profile) | Python % | other (bridge, JS, messaging) |');
  console.log('|---|---|---|---|---|---|---|');
  let tw = 0; let to = 0; let tp = 0;
  for (const p of PAGES) {
    const xs = runs[i][p];
    const w = median(xs.map((x) => x.ms)); const o = median(xs.map((x) => x.ort)); const py = median(xs.map((x) => x.python));
    tw += w; to += o; tp += py;
    console.log(`| ${p} | ${xs[0].lines} | ${ms0(w)} | ${ms0(o)} | ${ms0(py)} | ${(100 * py / w).toFixed(1)} | ${ms0(w - o - py)} |`);
  }
  console.log(`| all | | ${ms0(tw)} | ${ms0(to)} | ${ms0(tp)} | ${(100 * tp / tw).toFixed(1)} | ${ms0(tw - to - tp)} |`);
  const own = {}; // function -> sum over pages of the median own time
  for (const p of PAGES) {
    const keys = new Set(runs[i][p].flatMap((x) => Object.keys(x.own)));
    for (const k of keys) own[k] = (own[k] ?? 0) + median(runs[i][p].map((x) => x.own[k] ?? 0));
  }
  const top = Object.entries(own).sort((a, b) => b[1] - a[1]).slice(0, TOP);
  console.log(`\ntop ${TOP} Python functions by own time (sum over the pages of per-page medians, ms)`);
  for (const [k, v] of top) console.log(`${ms0(v).padStart(7)}  ${k}`);
  const via = {};
  for (const p of PAGES) {
    const keys = new Set(runs[i][p].flatMap((x) => Object.keys(x.via)));
    for (const k of keys) via[k] = (via[k] ?? 0) + median(runs[i][p].map((x) => x.via[k] ?? 0));
  }
  console.log(`\ntop ${TOP} builtins (numpy, Pillow, FFI) by the Python function calling them (ms)`);
  for (const [k, v] of Object.entries(via).sort((a, b) => b[1] - a[1]).slice(0, TOP)) console.log(`${ms0(v).padStart(7)}  ${k}`);
});
const json = opt('--json', null);
if (json) writeFileSync(json, JSON.stringify({ dists: DISTS, pages: PAGES, load0, info, runs }, null, 1));
