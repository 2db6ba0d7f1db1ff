#!/usr/bin/env node
// Benchmark (not a test): what "Tables and regions" costs per page in the browser (dist/, Chromium, wasm), the
// counterpart of scripts/bench/regions.py natively. Two clients in one page, the default set with layout.regions
// + layout.tables off and on, warmed up (every model opened, the table model run once), then the pages read
// alternately off/on for --rounds rounds; medians of the wall time per page. Then what a table workbook costs:
// the first `table_xlsx` export (XlsxWriter's wheel fetched and unpacked, then imported) against a second one
// and a `table_csv`.
//   node scripts/bench/tables_browser.mjs [--rounds 3] [--threads 2] [--pages region_report,bank_statement]
// Needs: scripts/setup/setup_web.sh (dist/), scripts/data/make_tables.py (tests/testset/tables).
import { join } from 'node:path';
import { chromium } from '@playwright/test';
import { startServer } from '../serve_static.mjs';
import { ROOT, opt, median } from './lib/args.mjs';

const ROUNDS = Number(opt('--rounds', 3));
const THREADS = Number(opt('--threads', 2));
const PAGES = opt('--pages', 'region_report,bank_statement').split(',');

const server = await startServer({ dir: join(ROOT, 'dist'), mounts: { '/__tables__/': join(ROOT, 'tests', 'testset', 'tables') } });
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking'] });
try {
  const page = await browser.newPage();
  await page.goto(`${server.url}dev.html?boot=0`);
  await page.waitForFunction(() => window.Retto);
  const out = await page.evaluate(async ({ pages, rounds, threads }) => {
    const bytes = {};
    for (const p of pages) bytes[p] = await (await fetch(`/__tables__/${p}.png`)).arrayBuffer();
    const off = await window.Retto.create({ backend: 'wasm', threads });
    const on = await window.Retto.create({ backend: 'wasm', threads, config: { layout: { regions: true, tables: true } } });
    const run = async (ocr, p) => { const t0 = performance.now(); const r = await ocr.recognize(bytes[p].slice(0)); return [performance.now() - t0, r]; };
    for (const p of pages) { await run(off, p); await run(on, p); } // warm-up: every model opened and run
    const times = Object.fromEntries(pages.map((p) => [p, { off: [], on: [], tables: 0 }]));
    let record = null;
    for (let k = 0; k < rounds; k++) {
      for (const p of pages) {
        const order = k % 2 ? [['on', on], ['off', off]] : [['off', off], ['on', on]];
        for (const [mode, ocr] of order) {
          const [ms, r] = await run(ocr, p);
          times[p][mode].push(ms);
          if (mode === 'on') { times[p].tables = r.tables.length; if (r.tables.length) record = { path: `${p}.png`, ...r }; }
        }
      }
    }
    const timed = async (format) => { const t0 = performance.now(); await on.export(record, format, { table: 0 }); return performance.now() - t0; };
    const xlsxFirst = await timed('table_xlsx');
    const xlsxSecond = await timed('table_xlsx');
    const csv = await timed('table_csv');
    return { times, xlsxFirst, xlsxSecond, csv, cores: navigator.hardwareConcurrency };
  }, { pages: PAGES, rounds: ROUNDS, threads: THREADS });
  console.log(`browser (Chromium, wasm, ${THREADS} threads), default set, medians of ${ROUNDS} alternating rounds:`);
  for (const [p, t] of Object.entries(out.times)) {
    const [a, b] = [median(t.off), median(t.on)];
    console.log(`  ${p.padEnd(16)} off ${(a / 1000).toFixed(2)} s  on ${(b / 1000).toFixed(2)} s  (+${((b - a) / 1000).toFixed(2)} s, ${t.tables} table(s))`);
  }
  console.log(`  table_xlsx: first ${out.xlsxFirst.toFixed(0)} ms (XlsxWriter wheel unpacked + imported), then ${out.xlsxSecond.toFixed(0)} ms; table_csv ${out.csv.toFixed(0)} ms`);
} finally {
  await browser.close();
  await server.close();
}
