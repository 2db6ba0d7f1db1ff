#!/usr/bin/env node
// Benchmark (not a test): time to ready of one or more builds of dist/, alternating, to weigh a boot lever.
// Each round and build: a fresh browser context (cold: empty HTTP cache and IndexedDB), then two reloads (warm).
// Prints median cold and warm time to ready (navigation start -> Retto.create resolved, backend auto) and the
// worker's boot timeline of the last warm start. A build given as `dir#nosnap` starts Python without the memory
// snapshot (diagnostics.noPythonSnapshot). Also prints, per build, the median warm timeline on the page's clock
// (ms since navigation start): the worker made, init received, then every phase of the worker's info.timings.
//   node scripts/bench/boot.mjs dist[,/tmp/old-dist,dist#nosnap] [--rounds 3]
import { basename, dirname, join } from 'node:path';
import { loadavg } from 'node:os';
import { chromium } from '@playwright/test';
import { startServer } from '../serve_static.mjs';
import { ROOT, args, opt, CHROMIUM_ARGS, median } from './lib/args.mjs';

const builds = (args[0] && !args[0].startsWith('--') ? args[0] : join(ROOT, 'dist')).split(',');
const rounds = Math.max(1, Number(opt('--rounds', 3)));
// --page FILE: after each start, read FILE once: time to its result since navigation (the first page, as a
// person who drops a file at once sees it) and the job alone
const pageFile = opt('--page', null);
const pageUrl = pageFile ? `/__bench__/${basename(pageFile)}` : null; // served beside the build, fetched by the page
const WARM = 2;

const mounts = pageFile ? { '/__bench__/': dirname(pageFile) } : {};
const servers = await Promise.all(builds.map((b) => startServer({ dir: b.split('#')[0], mounts })));
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', args: CHROMIUM_ARGS });
const res = Object.fromEntries(builds.map((b) => [b, { cold: [], warm: [], timeline: null, phases: {}, coldPhases: {} }]));
const load = [loadavg()[0]];
try {
  for (let r = 0; r < rounds; r++) {
    for (const [i, build] of builds.entries()) {
      const context = await browser.newContext();
      const page = await context.newPage();
      for (let k = 0; k <= WARM; k++) {
        await page.goto(`${servers[i].url}dev.html?boot=0`);
        const o = await page.evaluate(([nosnap, url]) => window.Retto.create({ backend: 'auto',
          ...(nosnap ? { diagnostics: { noPythonSnapshot: true } } : {}) })
          .then(async (ocr) => {
            const ms = performance.now();
            let first = null;
            if (url) {
              const lines = (await ocr.recognize(await (await fetch(url)).arrayBuffer())).lines.length;
              first = { ms: performance.now(), job: performance.now() - ms, lines };
            }
            const s = ocr.info.started; // epoch ms; absent in builds before it was reported
            const init = s ? s.init - performance.timeOrigin : 0;
            const onPage = { ...(s ? { 'worker made': s.worker - performance.timeOrigin, 'init received': init } : {}),
              ...Object.fromEntries(Object.entries(ocr.info.timings).map(([k, v]) => [k, v + init])), ready: ms };
            ocr.terminate();
            return { ms, timeline: ocr.info.timings, onPage, first };
          }), [build.endsWith('#nosnap'), pageUrl]);
        const into = k === 0 ? res[build].coldPhases : res[build].phases;
        for (const [p, v] of Object.entries(o.onPage)) (into[p] ??= []).push(v);
        if (o.first) (res[build][k === 0 ? 'coldFirst' : 'warmFirst'] ??= []).push(o.first);
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
  for (const [label, f] of [['warm', r.warmFirst], ['cold', r.coldFirst]]) {
    if (f) console.log(`  ${label} first page: result ${(median(f.map((x) => x.ms)) / 1000).toFixed(2)} s after navigation, the job ${(median(f.map((x) => x.job)) / 1000).toFixed(2)} s (${f[0].lines} lines)`);
  }
  for (const [label, phases] of [['warm', r.phases], ['cold', r.coldPhases]]) {
    const rows = Object.entries(phases).map(([p, v]) => [p, median(v)]).sort((a, b) => a[1] - b[1]);
    console.log(`  ${label}, median ms since navigation: ${rows.map(([p, v]) => `${p} ${Math.round(v)}`).join(' · ')}`);
  }
}
