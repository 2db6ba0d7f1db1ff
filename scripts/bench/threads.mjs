#!/usr/bin/env node
// Benchmark (not a test): adaptive wasm threads (web/src/worker/thread_choice.js) against fixed counts, with and
// without one busy core. One page, one worker per engine: `threads: 2` (fixed: the old default), `threads: 1`
// (fixed), and the default (adaptive). Every round reads each page on every engine, alternating the order; the
// busy phase runs `yes > /dev/null` pinned to the last core with taskset (started and stopped here). Prints
// median ms per page, the sum, growth busy/quiet per engine, and the thread count the adaptive worker ended on.
// Idle recycling is off (idleRecycleBytes 0): each engine waits while the others read, and a recycled worker
// would boot inside the next timed call.
//   node scripts/bench/threads.mjs [--rounds 2] [--pages english_prose,...] [--engines 2,1,auto,2-nospin,auto-nospin] [--json out.json]
// (an engine `<n|auto>-nospin` sets onnxruntime's session.intra_op.allow_spinning to 0: diagnostics.spin = false)
// Needs: scripts/setup/setup_web.sh (dist/), scripts/data/make_testset.py (tests/testset/pages), taskset (util-linux).
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { chromium } from '@playwright/test';
import { startServer } from '../serve_static.mjs';
import { ROOT, opt, pagesOpt, CHROMIUM_ARGS, median, PAGES_DIR, pageUrl } from './lib/args.mjs';

const ROUNDS = Math.max(1, Number(opt('--rounds', 2)));
const PAGES = pagesOpt();
const ENGINES = opt('--engines', '2,1,auto').split(',');

const server = await startServer({ dir: join(ROOT, 'dist'), isolation: true, mounts: { '/__pages__/': PAGES_DIR } });
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', args: CHROMIUM_ARGS });
const times = { quiet: {}, busy: {} }; // phase -> engine -> page -> [ms]
const finalThreads = { quiet: {}, busy: {} };
const loads = {};
let burner = null;
try {
  const page = await (await browser.newContext()).newPage();
  await page.goto(`${server.url}dev.html?boot=0`);
  await page.evaluate(async (engines) => {
    window.engines = {};
    for (const e of engines) {
      // `<count|auto>[-nospin]`: -nospin sets onnxruntime's session.intra_op.allow_spinning to 0
      const [count, spin] = e.split('-');
      window.engines[e] = await window.Retto.create({ backend: 'wasm', threads: count === 'auto' ? undefined : Number(count),
        idleRecycleBytes: 0, ...(spin === 'nospin' ? { diagnostics: { spin: false } } : {}) });
    }
  }, ENGINES);
  for (const p of PAGES) { // warm-up: every engine reads every page once (opens the optional models too)
    await page.evaluate(async ({ url, engines }) => { const b = await (await fetch(url)).arrayBuffer(); for (const e of engines) await window.engines[e].recognize(b.slice(0)); }, { url: pageUrl(p), engines: ENGINES });
  }
  for (const phase of ['quiet', 'busy']) {
    if (phase === 'busy') {
      burner = spawn('taskset', ['-c', String(cpus().length - 1), 'yes'], { stdio: ['ignore', 'ignore', 'inherit'] });
      await new Promise((r) => setTimeout(r, 1000));
    }
    loads[phase] = [loadavg()[0]];
    for (const e of ENGINES) times[phase][e] = Object.fromEntries(PAGES.map((p) => [p, []]));
    for (let r = 0; r < ROUNDS; r++) {
      for (const p of PAGES) {
        const order = r % 2 ? [...ENGINES].reverse() : ENGINES;
        const out = await page.evaluate(async ({ url, order }) => {
          const bytes = await (await fetch(url)).arrayBuffer();
          const res = {};
          for (const e of order) {
            const t0 = performance.now();
            await window.engines[e].recognize(bytes.slice(0));
            res[e] = { ms: performance.now() - t0, threads: window.engines[e].lastStats.threads };
          }
          return res;
        }, { url: pageUrl(p), order });
        for (const e of ENGINES) {
          times[phase][e][p].push(out[e].ms);
          if (out[e].threads) finalThreads[phase][e] = out[e].threads;
        }
        console.error(`${phase} round ${r + 1} ${p.padEnd(20)} ${ENGINES.map((e) => `${e}: ${out[e].ms.toFixed(0)} ms${out[e].threads ? ` (now ${out[e].threads.threads} thr)` : ''}`).join('  ')}`);
      }
    }
    loads[phase].push(loadavg()[0]);
    if (burner) { burner.kill(); burner = null; }
  }
} finally {
  if (burner) burner.kill();
  await browser.close();
  await server.close();
}
const label = (e) => {
  const [count, spin] = e.split('-');
  return (count === 'auto' ? 'adaptive (default)' : `fixed ${count} thread${count === '1' ? '' : 's'}`)
    + (spin === 'nospin' ? ', no spinning' : '');
};
const total = (phase, e) => PAGES.reduce((a, p) => a + median(times[phase][e][p]), 0);
console.log(`\n${ROUNDS} rounds, engines alternating, median ms per page; load average quiet ${loads.quiet.map((x) => x.toFixed(1)).join('→')}, `
  + `busy ${loads.busy.map((x) => x.toFixed(1)).join('→')} (busy: yes pinned to core ${cpus().length - 1})`);
console.log(`| engine | ${PAGES.map((p) => `${p} quiet / busy`).join(' | ')} | total quiet s | total busy s | busy / quiet |`);
console.log(`|---|${PAGES.map(() => '---|').join('')}---|---|---|`);
for (const e of ENGINES) {
  console.log(`| ${label(e)} | ${PAGES.map((p) => `${median(times.quiet[e][p]).toFixed(0)} / ${median(times.busy[e][p]).toFixed(0)}`).join(' | ')} | `
    + `${(total('quiet', e) / 1000).toFixed(2)} | ${(total('busy', e) / 1000).toFixed(2)} | ${(total('busy', e) / total('quiet', e)).toFixed(2)} |`);
}
for (const phase of ['quiet', 'busy']) {
  const t = finalThreads[phase].auto;
  if (t) console.log(`adaptive after the ${phase} phase: ${t.threads} thread(s), ${t.switches} switches in ${t.calls} calls; ${t.reason}`);
}
const json = opt('--json', null);
if (json) writeFileSync(json, JSON.stringify({ pages: PAGES, engines: ENGINES, times, finalThreads, loads }, null, 1));
