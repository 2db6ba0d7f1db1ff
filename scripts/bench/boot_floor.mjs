#!/usr/bin/env node
// Benchmark (not a test): the floors under Retto's warm time to ready. In one warm browser context (an engine
// started once, so the HTTP cache and the Python snapshot are in), it alternates, per round: a bare module worker
// (empty), onnxruntime-web with the det session alone (ort), the snapshot's IndexedDB read alone (idb), Python's
// restore alone (python: Retto.create with diagnostics.pythonFirst, timed to its `python` mark, when the
// interpreter is up with retto imported; onnxruntime starts only after it), and the whole Retto.create (retto).
// Prints each one's median ms from navigation to its answer, and its last inner marks (ms since the worker
// started). Pages and worker: scripts/bench/lib/boot_floor/.
//   node scripts/bench/boot_floor.mjs [--dist dist] [--rounds 5]
import { join } from 'node:path';
import { loadavg } from 'node:os';
import { chromium } from '@playwright/test';
import { startServer } from '../serve_static.mjs';
import { ROOT, opt, CHROMIUM_ARGS, median } from './lib/args.mjs';

const rounds = Math.max(1, Number(opt('--rounds', 5)));
const server = await startServer({ dir: opt('--dist', join(ROOT, 'dist')), mounts: { '/__floor__/': join(ROOT, 'scripts', 'bench', 'lib', 'boot_floor') } });
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', args: CHROMIUM_ARGS });
const createRetto = () => window.Retto.create({ backend: 'auto' }).then((o) => { const ms = performance.now(); o.terminate(); return { ms, info: { start: o.info.python.start } }; });
// Python up (the `python` mark, on the page's clock), with onnxruntime held until then
const pythonAlone = () => window.Retto.create({ backend: 'auto', diagnostics: { pythonFirst: true } }).then((o) => {
  const { timings, started, python } = o.info;
  o.terminate();
  return { ms: started.init - performance.timeOrigin + timings.python, info: { start: python.start, ...timings } };
});
const load = [loadavg()[0]];
const res = {};
try {
  const page = await (await browser.newContext()).newPage();
  for (let k = 0; k < 2; k++) { // cold, then one warm start: the snapshot is stored and every file cached
    await page.goto(`${server.url}dev.html?boot=0`);
    await page.evaluate(createRetto);
    await page.waitForTimeout(2000);
  }
  for (let r = 0; r < rounds; r++) {
    for (const mode of ['empty', 'ort', 'idb', 'python', 'retto']) {
      let o;
      if (mode === 'retto' || mode === 'python') {
        await page.goto(`${server.url}dev.html?boot=0`);
        o = await page.evaluate(mode === 'retto' ? createRetto : pythonAlone);
      } else {
        await page.goto(`${server.url}__floor__/floor.html`);
        o = await page.evaluate((m) => window.floor(m), mode);
      }
      (res[mode] ??= []).push(o);
    }
    load.push(loadavg()[0]);
  }
} finally {
  await browser.close();
  await server.close();
}
console.log(`warm floors, medians of ${rounds} rounds (ms from navigation to the answer); load average ${load.map((x) => x.toFixed(2)).join(' → ')}`);
for (const [mode, xs] of Object.entries(res)) {
  console.log(`  ${mode.padEnd(6)} ${String(Math.round(median(xs.map((x) => x.ms)))).padStart(5)}  (${xs.map((x) => Math.round(x.ms)).join(' ')}) last: ${JSON.stringify(xs.at(-1).info)}`);
}
