#!/usr/bin/env node
// Benchmark (not a test): the default set's accuracy levers in the browser (Pyodide + onnxruntime-web wasm, all
// cores), the variants of scripts/bench/lib/levers.json, each in its own worker of one page, alternating page by page
// within every round; median wall time of warm recognize() calls per page, summed, and the ratio to the first
// variant (the old default). Default pages: those of scripts/bench/vs_tesseract.mjs.
//   node scripts/bench/levers_browser.mjs [--rounds 3] [--pages english_prose,...] [--variants 0,4] [--out f.json]
// Needs: scripts/setup/setup_web.sh (dist/) and scripts/data/make_testset.py (tests/testset/pages).
// bench-results: --out (scripts/bench/run.py writes the JSON into bench-results/<date>/)
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium } from '@playwright/test';
import { startServer } from '../serve_static.mjs';
import { ROOT, opt, pagesOpt, CHROMIUM_ARGS, median, PAGES_DIR, pageUrl } from './lib/args.mjs';

const ROUNDS = Math.max(1, Number(opt('--rounds', 3)));
const PAGES = pagesOpt();
const LEVERS = JSON.parse(readFileSync(join(ROOT, 'scripts', 'bench', 'lib', 'levers.json'), 'utf8')).variants;
const PICK = opt('--variants', LEVERS.map((_, i) => i).join(',')).split(',').map(Number);
const VARIANTS = PICK.map((i) => LEVERS[i]);

const server = await startServer({ dir: join(ROOT, 'dist'), isolation: true, mounts: { '/__pages__/': PAGES_DIR } });
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', args: CHROMIUM_ARGS });
const times = VARIANTS.map(() => Object.fromEntries(PAGES.map((p) => [p, []])));
try {
  const page = await (await browser.newContext()).newPage();
  await page.goto(`${server.url}dev.html?boot=0`);
  await page.evaluate(async (variants) => {
    window.engines = [];
    for (const v of variants) window.engines.push(await window.Retto.create({ backend: 'wasm', models: v.set, config: v.config }));
  }, VARIANTS);
  for (const p of PAGES) { // warm-up: every variant reads every page once (opens the optional models too)
    await page.evaluate(async (url) => { const b = await (await fetch(url)).arrayBuffer(); for (const e of window.engines) await e.recognize(b.slice(0)); }, pageUrl(p));
  }
  for (let r = 0; r < ROUNDS; r++) {
    for (const p of PAGES) {
      const order = VARIANTS.map((_, i) => i);
      if (r % 2) order.reverse(); // alternate which variant goes first
      const ms = await page.evaluate(async ({ url, order }) => {
        const bytes = await (await fetch(url)).arrayBuffer();
        const out = {};
        for (const i of order) {
          const t0 = performance.now();
          await window.engines[i].recognize(bytes.slice(0));
          out[i] = performance.now() - t0;
        }
        return out;
      }, { url: pageUrl(p), order });
      for (const [i, t] of Object.entries(ms)) times[i][p].push(t);
      console.error(`round ${r + 1} ${p.padEnd(20)} ${VARIANTS.map((_, i) => `${ms[i].toFixed(0)} ms`).join('  ')}`);
    }
  }
} finally {
  await browser.close();
  await server.close();
}
const totals = times.map((t) => PAGES.reduce((a, p) => a + median(t[p]), 0));
console.log(`\nbrowser (wasm, ${ROUNDS} alternating rounds, medians per page, summed over ${PAGES.length} pages)`);
console.log('| variant | ' + PAGES.join(' | ') + ' | total s | × first |');
console.log('|---|' + PAGES.map(() => '---|').join('') + '---|---|');
VARIANTS.forEach((v, i) => console.log(`| ${v.label} | ${PAGES.map((p) => (median(times[i][p]) / 1000).toFixed(2)).join(' | ')} | ${(totals[i] / 1000).toFixed(2)} | ${(totals[i] / totals[0]).toFixed(2)} |`));
const out = opt('--out', null);
if (out) writeFileSync(out, JSON.stringify({ pages: PAGES, variants: VARIANTS, times, totals }, null, 1));
