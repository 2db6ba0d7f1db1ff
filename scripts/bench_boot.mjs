#!/usr/bin/env node
// Benchmark (not a test): time to ready of one or more builds of dist/, alternating, to weigh a boot lever.
// Each round and build: a fresh browser context (cold: empty HTTP cache and IndexedDB), then two reloads (warm).
// Prints median cold and warm time to ready (navigation start -> Retto.create resolved, backend auto) and the
// worker's boot timeline of the last warm start. A build given as `dir#nosnap` starts Python without the memory
// snapshot (diagnostics.noPythonSnapshot).
//   node scripts/bench_boot.mjs dist[,/tmp/old-dist,dist#nosnap] [--rounds 3]
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadavg } from 'node:os';
import { chromium } from '@playwright/test';
import { startServer } from './serve_static.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const opt = (name, dflt) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : dflt; };
const builds = (args[0] && !args[0].startsWith('--') ? args[0] : join(ROOT, 'dist')).split(',');
const rounds = Math.max(1, Number(opt('--rounds', 3)));
const WARM = 2;
const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const median = (xs) => { const s = [...xs].sort((a, b) => a - b); const m = s.length >> 1; return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2; };

const servers = await Promise.all(builds.map((b) => startServer({ dir: b.split('#')[0] })));
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', args: CHROMIUM_ARGS });
const res = Object.fromEntries(builds.map((b) => [b, { cold: [], warm: [], timeline: null }]));
const load = [loadavg()[0]];
try {
  for (let r = 0; r < rounds; r++) {
    for (const [i, build] of builds.entries()) {
      const context = await browser.newContext();
      const page = await context.newPage();
      for (let k = 0; k <= WARM; k++) {
        await page.goto(`${servers[i].url}dev.html?boot=0`);
        const o = await page.evaluate((nosnap) => window.Retto.create({ backend: 'auto',
          ...(nosnap ? { diagnostics: { noPythonSnapshot: true } } : {}) })
          .then((ocr) => ({ ms: performance.now(), timeline: ocr.info.timings })), build.endsWith('#nosnap'));
        if (k === 0) res[build].cold.push(o.ms);
        else { res[build].warm.push(o.ms); res[build].timeline = o.timeline; }
      }
      await context.close();
    }
    load.push(loadavg()[0]);
  }
} finally {
  await browser.close();
  for (const s of servers) await s.close();
}
console.log(`time to ready, medians of ${rounds} rounds (${WARM} warm starts each); load average ${load.map((x) => x.toFixed(2)).join(' → ')}`);
for (const b of builds) {
  const r = res[b];
  console.log(`${b}: cold ${(median(r.cold) / 1000).toFixed(2)} s, warm ${(median(r.warm) / 1000).toFixed(2)} s `
    + `(warm runs: ${r.warm.map((x) => (x / 1000).toFixed(2)).join(' ')})\n  last warm timeline (ms): ${JSON.stringify(r.timeline)}`);
}
