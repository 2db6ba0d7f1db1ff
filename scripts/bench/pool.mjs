#!/usr/bin/env node
// Benchmark (not a test): throughput of Retto.createPool on a 12-page PDF (tests/e2e/make_small_inputs.py --bench:
// 12 labelled test-set pages at half size) with 1, 2, ... workers, per CPU profile. A profile's cores are real
// cores: Chromium and every process it starts run under `taskset -c <cpus>` (CPU affinity, inherited by its
// renderer and worker threads), and each worker gets cores / workers onnxruntime threads (the pool's default; the
// pool's size is given). Sizes alternate within each round; medians of the rounds. Boot time is not counted: the
// clock runs from recognize() to the document record. Results are checked identical across sizes.
//   node scripts/bench/pool.mjs [--profiles 0;0,1] [--workers 1,2] [--rounds 2]
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from '@playwright/test';
import { startServer } from '../serve_static.mjs';
import { ROOT, opt, CHROMIUM_ARGS, median } from './lib/args.mjs';

const profiles = opt('--profiles', '0;0,1').split(';'); // CPU lists for taskset
const sizes = opt('--workers', '1,2').split(',').map(Number);
const rounds = Math.max(1, Number(opt('--rounds', 2)));

const tmp = mkdtempSync(join(tmpdir(), 'retto-bench-pool-'));
execFileSync(join(ROOT, '.venv', 'bin', 'python'), [join(ROOT, 'tests', 'e2e', 'make_small_inputs.py'), tmp, '--bench']);
const server = await startServer({ dir: join(ROOT, 'dist'), mounts: { '/__bench__/': tmp } });
const load = [loadavg()[0]];
const rows = [];
try {
  for (const cpus of profiles) {
    const cores = cpus.split(',').length;
    const wrapper = join(tmp, `chromium-${cores}.sh`);
    writeFileSync(wrapper, `#!/bin/sh\nexec taskset -c ${cpus} ${process.env.CHROMIUM || '/usr/bin/chromium'} "$@"\n`);
    chmodSync(wrapper, 0o755);
    const browser = await chromium.launch({ executablePath: wrapper, args: CHROMIUM_ARGS });
    const times = Object.fromEntries(sizes.map((n) => [n, []]));
    const texts = {};
    try {
      for (let r = 0; r < rounds; r++) {
        for (const n of sizes) {
          const page = await browser.newPage();
          await page.goto(`${server.url}dev.html?boot=0`);
          const out = await page.evaluate(async ({ n, cores }) => {
            const pdf = new File([await (await fetch('/__bench__/bench12.pdf')).arrayBuffer()], 'bench12.pdf');
            const pool = await window.Retto.createPool({ workers: n, backend: 'wasm',
              threads: Math.max(1, Math.floor(cores / n)) });
            try {
              const t0 = performance.now();
              const doc = await pool.recognize(pdf);
              return { ms: performance.now() - t0, text: doc.pages.map((p) => p.lines.map((l) => l.text).join('\n')) };
            } finally {
              pool.terminate();
            }
          }, { n, cores });
          await page.close();
          times[n].push(out.ms);
          const key = JSON.stringify(out.text);
          texts[n] ??= key;
          if (texts[n] !== key || texts[n] !== texts[sizes[0]]) throw new Error(`different text with ${n} workers`);
          console.log(`cores ${cpus}, workers ${n}, round ${r + 1}: ${(out.ms / 1000).toFixed(1)} s`);
        }
        load.push(loadavg()[0]);
      }
    } finally {
      await browser.close();
    }
    const base = median(times[sizes[0]]);
    for (const n of sizes) {
      const m = median(times[n]);
      rows.push(`| ${cores} (taskset -c ${cpus}) | ${n} | ${(m / 1000).toFixed(1)} | ${(12 / (m / 60000)).toFixed(1)} | ${(base / m).toFixed(2)} |`);
    }
  }
} finally {
  await server.close();
  rmSync(tmp, { recursive: true, force: true });
}
console.log(`\n12-page PDF, medians of ${rounds} rounds; identical text for every size; load average ${load.map((x) => x.toFixed(2)).join(' → ')}`);
console.log('| cores | workers | s | pages/min | × 1 worker |\n|---|---|---|---|---|');
console.log(rows.join('\n'));
