#!/usr/bin/env node
// Benchmark (not a test): every model set in the browser (Pyodide + onnxruntime-web wasm, all cores), on the
// labelled test set; median wall time of --rounds warm recognize() calls per page. Writes JSON
// {set: {page: ms}} for scripts/bench/models.py --browser, which prints it beside accuracy and native time.
//   node scripts/bench/models_browser.mjs [--rounds 1] [--sets a,b] [--out bench-browser.json]
// Needs: scripts/setup/setup_web.sh (dist/) and scripts/data/make_testset.py (tests/testset/pages).
// bench-results: --out (scripts/bench/run.py writes the JSON into bench-results/<date>/)
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium } from '@playwright/test';
import { startServer } from '../serve_static.mjs';
import { ROOT, opt, CHROMIUM_ARGS, median, PAGES_DIR } from './lib/args.mjs';

const ROUNDS = Math.max(1, Number(opt('--rounds', 1)));
const OUT = opt('--out', 'bench-browser.json');
const manifest = JSON.parse(readFileSync(join(ROOT, 'dist', 'assets', 'manifest.json'), 'utf8'));
const SETS = opt('--sets', Object.keys(manifest.model_sets).join(',')).split(',');

// The labelled pages plus the pinned typewriter scan (as scripts/bench/models.py scores them).
const pages = readdirSync(PAGES_DIR).filter((f) => f.endsWith('.gt.json'))
  .map((f) => JSON.parse(readFileSync(join(PAGES_DIR, f), 'utf8')))
  .map((gt) => ({ name: gt.name, url: `/__pages__/${gt.image}` }))
  .concat([{ name: 'typewriter', url: '/__testdata__/typewriter.png' }]);

const server = await startServer({ dir: join(ROOT, 'dist'), isolation: true,
  mounts: { '/__pages__/': PAGES_DIR, '/__testdata__/': join(ROOT, 'tests', 'data') } });
const out = {};
try {
  for (const name of SETS) {
    const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', args: CHROMIUM_ARGS });
    try {
      const page = await (await browser.newContext()).newPage();
      await page.goto(`${server.url}dev.html?boot=0`);
      const readyMs = await page.evaluate(async (models) => {
        const t0 = performance.now();
        window.ocr = await window.Retto.create({ backend: 'wasm', models });
        return performance.now() - t0;
      }, name);
      out[name] = {};
      for (const p of pages) {
        const runs = await page.evaluate(async ({ url, rounds }) => {
          const bytes = await (await fetch(url)).arrayBuffer();
          await window.ocr.recognize(bytes); // warm-up
          const times = [];
          for (let i = 0; i < rounds; i++) {
            const t0 = performance.now();
            await window.ocr.recognize(bytes);
            times.push(performance.now() - t0);
          }
          return times;
        }, { url: p.url, rounds: ROUNDS });
        out[name][p.name] = median(runs);
        console.error(`${name.padEnd(16)} ${p.name.padEnd(20)} ${out[name][p.name].toFixed(0)} ms (ready in ${readyMs.toFixed(0)} ms)`);
      }
    } finally {
      await browser.close();
    }
  }
} finally {
  await server.close();
}
writeFileSync(OUT, JSON.stringify(out, null, 1));
console.error(`wrote ${OUT}`);
