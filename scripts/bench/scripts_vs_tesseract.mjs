#!/usr/bin/env node
// Benchmark (not a test): the Tesseract script sets in the browser against tesseract.js 7 on the same script pages,
// the same Chromium, one run (issue 32). Both read with the same Debian traineddata (the set file's `line_rec`
// languages: the sha256-checked files in models/<set>/tessdata that dist/ serves), so the difference is the page handling: Retto finds and
// straightens the lines with its DB detector and line orientation, then Tesseract reads each line (single-line
// mode); tesseract.js runs Tesseract's own page segmentation (its default, PSM 3) on the whole page.
// Per set, each engine is started once and reads each of the set's pages (clean, degraded, photo: tests/testset/script_pages,
// scripts/data/make_script_testset.py) once to warm up, then --rounds times, the engines alternating which goes
// first. Prints, per set, CER and WER of each engine (tests/py/ocr_metrics.py score_page on the last round's
// lines) and the median ms per page; then the medians over all sets.
//   node scripts/bench/scripts_vs_tesseract.mjs [--rounds 3] [--sets greek,arabic,...] [--json out.json]
// Needs: scripts/setup/setup_web.sh (dist/ with the sets' traineddata), scripts/data/make_script_testset.py.
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from '@playwright/test';
import { startServer } from '../serve_static.mjs';
import { readWithTesseract } from './lib/tesseract_page.mjs';
import { ROOT, opt, CHROMIUM_ARGS, median } from './lib/args.mjs';

const ROUNDS = Math.max(1, Number(opt('--rounds', 3)));
const DIST = join(ROOT, 'dist');
const PAGE_DIR = join(ROOT, 'tests', 'testset', 'script_pages');
const SET_DIR = join(ROOT, 'py', 'retto', 'sets');
const NM = join(ROOT, 'node_modules');
// The page variants make_script_testset.py writes (clean, degraded, photo), as found in its folder: clean first.
const VARIANTS = readdirSync(PAGE_DIR).map((f) => f.match(/^[a-z]+_([a-z]+)\.png$/)?.[1]).filter(Boolean)
  .filter((v, i, all) => all.indexOf(v) === i).sort((a, b) => (a === 'clean' ? -1 : b === 'clean' ? 1 : a.localeCompare(b)));

// The Tesseract sets: every set file with a `line_rec` (its languages are Tesseract's, e.g. "ell+eng").
const ALL = Object.fromEntries(readdirSync(SET_DIR).filter((f) => f.endsWith('.json'))
  .map((f) => JSON.parse(readFileSync(join(SET_DIR, f), 'utf8'))).filter((s) => s.line_rec)
  .map((s) => [s.name, s.line_rec.languages]));
const SETS = opt('--sets', Object.keys(ALL).sort().join(',')).split(',');
for (const s of SETS) if (!ALL[s]) throw new Error(`${s}: not a Tesseract set (${Object.keys(ALL).join(', ')})`);

const benchDir = mkdtempSync(join(tmpdir(), 'retto-bench-'));
writeFileSync(join(benchDir, 'blank.html'), '<!doctype html><meta charset="utf-8"><title>tesseract.js bench</title>\n');
// tesseract.js takes one folder of traineddata per worker: each set's files (models/<set>/tessdata, fetched and
// sha256-checked by retto models fetch, the bytes dist/ serves) copied into a folder of their own.
for (const set of SETS) {
  mkdirSync(join(benchDir, 'tessdata', set), { recursive: true });
  for (const f of readdirSync(join(ROOT, 'models', set, 'tessdata'))) {
    copyFileSync(join(ROOT, 'models', set, 'tessdata', f), join(benchDir, 'tessdata', set, f));
  }
}

const ENGINES = {
  retto: {
    start: (page, set) => page.evaluate(async (set) => { window.ocr = await window.Retto.create({ models: set, backend: 'wasm' }); }, set),
    read: (page, url) => page.evaluate(async (url) => {
      const bytes = await (await fetch(url)).arrayBuffer();
      const t0 = performance.now();
      const r = await window.ocr.recognize(bytes);
      return { ms: performance.now() - t0, lines: r.lines.map((l) => ({ text: l.text, box: l.box })) };
    }, url),
    stop: (page) => page.evaluate(() => window.ocr.terminate()),
  },
  tesseract: {
    start: (page, set) => page.evaluate(async ({ set, langs }) => {
      if (!window.Tesseract) {
        await new Promise((resolve, reject) => {
          const s = document.createElement('script');
          s.src = '/__tesseract__/js/tesseract.min.js';
          s.onload = resolve;
          s.onerror = reject;
          document.head.append(s);
        });
      }
      const o = new URL('/__tesseract__/', location.href).href;
      // The set's own traineddata (uncompressed .traineddata: gzip false).
      window.tess = await window.Tesseract.createWorker(langs.split('+'), 1, {
        workerPath: `${o}js/worker.min.js`, corePath: `${o}core/`,
        langPath: new URL(`/__tessdata__/${set}`, location.href).href, gzip: false,
        workerBlobURL: false, cacheMethod: 'none',
      });
    }, { set, langs: ALL[set] }),
    read: (page, url) => page.evaluate(readWithTesseract, { url, worker: 'tess' }),
    stop: (page) => page.evaluate(() => window.tess.terminate()),
  },
};
const NAMES = Object.keys(ENGINES);

function score(lines) {
  const code = `
import json, sys
sys.path.insert(0, sys.argv[1])
from ocr_metrics import score_page
data = json.load(open(sys.argv[2]))
print(json.dumps({engine: {page: score_page(ls, json.load(open(f"{data['dir']}/{page}.gt.json")))
                           for page, ls in pages.items()} for engine, pages in data["lines"].items()}))`;
  const file = join(benchDir, 'lines.json');
  writeFileSync(file, JSON.stringify({ dir: PAGE_DIR, lines }));
  return JSON.parse(execFileSync(join(ROOT, '.venv', 'bin', 'python'), ['-c', code, join(ROOT, 'tests', 'py'), file],
    { maxBuffer: 64 << 20 }));
}

const mounts = {
  '/__pages__/': PAGE_DIR,
  '/__bench__/': benchDir,
  '/__tessdata__/': join(benchDir, 'tessdata'),
  '/__tesseract__/js/': join(NM, 'tesseract.js', 'dist'),
  '/__tesseract__/core/': join(NM, 'tesseract.js-core'),
};
const version = (p) => JSON.parse(readFileSync(join(NM, p, 'package.json'), 'utf8')).version;
const server = await startServer({ dir: DIST, isolation: true, mounts });
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', args: CHROMIUM_ARGS });
const origin = new URL(server.url).origin;
const offOrigin = [];
const ms = Object.fromEntries(NAMES.map((n) => [n, {}])); // engine -> page -> [ms]
const last = Object.fromEntries(NAMES.map((n) => [n, {}])); // engine -> page -> lines (last round)
const load = [loadavg()[0]];
try {
  const context = await browser.newContext();
  context.on('request', (req) => { if (/^https?:/.test(req.url()) && new URL(req.url()).origin !== origin) offOrigin.push(req.url()); });
  const page = await context.newPage();
  page.on('pageerror', (e) => console.error(`pageerror: ${e.message}`)); // tesseract.js reports load failures here
  await page.goto(`${server.url}dev.html?boot=0`);
  await page.waitForFunction(() => window.Retto);
  for (const set of SETS) {
    const pages = VARIANTS.map((v) => `${set}_${v}`);
    for (const name of NAMES) {
      await ENGINES[name].start(page, set);
      for (const p of pages) await ENGINES[name].read(page, `/__pages__/${p}.png`); // warm-up
    }
    for (let r = 0; r < ROUNDS; r++) {
      for (const p of pages) {
        for (const name of r % 2 ? [...NAMES].reverse() : NAMES) {
          const out = await ENGINES[name].read(page, `/__pages__/${p}.png`);
          (ms[name][p] ??= []).push(out.ms);
          last[name][p] = out.lines;
        }
      }
    }
    for (const name of NAMES) await ENGINES[name].stop(page);
    console.error(`${set}: ${pages.map((p) => NAMES.map((n) => `${n} ${median(ms[n][p]).toFixed(0)} ms`).join(', ')).join(' | ')}`);
    if (offOrigin.length) throw new Error(`requests left the origin: ${[...new Set(offOrigin)].join(', ')}`);
  }
  load.push(loadavg()[0]);
} finally {
  await browser.close();
  await server.close();
}

const scores = score(last);
const pct = (x) => (x * 100).toFixed(1);
console.log(`\nRetto (our detector + Tesseract per line, wasm) against tesseract.js ${version('tesseract.js')} `
  + `(core ${version('tesseract.js-core')}, PSM 3), the same Debian traineddata; ${ROUNDS} rounds after a warm-up, `
  + `median ms per page; load average ${load.map((x) => x.toFixed(1)).join('→')}`);
console.log('| set | page | Retto CER % | tesseract.js CER % | Retto WER % | tesseract.js WER % | Retto ms | tesseract.js ms | time ratio |');
console.log('|---|---|---|---|---|---|---|---|---|');
const rows = [];
for (const set of SETS) {
  for (const v of VARIANTS) {
    const p = `${set}_${v}`;
    const [a, b] = [scores.retto[p], scores.tesseract[p]];
    const [ta, tb] = [median(ms.retto[p]), median(ms.tesseract[p])];
    rows.push({ set, variant: v, retto: { ...a, ms: ta }, tesseract: { ...b, ms: tb } });
    console.log(`| ${set} | ${v} | ${pct(a.cer)} | ${pct(b.cer)} | ${pct(a.wer)} | ${pct(b.wer)} | ${ta.toFixed(0)} | ${tb.toFixed(0)} | ${(ta / tb).toFixed(2)} |`);
  }
}
for (const v of VARIANTS) {
  const vs = rows.filter((r) => r.variant === v);
  const m = (k, e) => median(vs.map((r) => r[e][k]));
  console.log(`| **median, ${v}** | | ${pct(m('cer', 'retto'))} | ${pct(m('cer', 'tesseract'))} | ${pct(m('wer', 'retto'))} | `
    + `${pct(m('wer', 'tesseract'))} | ${m('ms', 'retto').toFixed(0)} | ${m('ms', 'tesseract').toFixed(0)} | `
    + `${median(vs.map((r) => r.retto.ms / r.tesseract.ms)).toFixed(2)} |`);
}
const json = opt('--json', null);
if (json) writeFileSync(json, JSON.stringify({ rounds: ROUNDS, load, rows, lines: last, versions: { 'tesseract.js': version('tesseract.js'), 'tesseract.js-core': version('tesseract.js-core') } }, null, 2));
