#!/usr/bin/env node
// Benchmark (not a test), issue 30's lever 2: LiteRT.js 2.5.3 (XNNPACK compiled to wasm, relaxed SIMD, threads)
// against onnxruntime-web 1.30 (the app's build and options) on the default set's real model calls: every call the
// five bench pages make natively (scripts/bench/record_model_inputs.py), each engine in its own Chromium worker,
// the two alternating call by call (the order flips every call and every round). Per role and engine: the sum
// over a round's calls, median over the rounds; LiteRT.js's compiles (one per new input shape, cleared every round,
// as a page would meet them) are part of its time and also shown alone. Outputs are compared with
// onnxruntime-web's: the largest difference, and for the recognisers the share of time steps whose best class
// agrees. The .tflite files come from scripts/bench/tflite_models.py (run first, cached).
//   .venv/bin/python scripts/bench/record_model_inputs.py --out /tmp/retto-model-inputs
//   node scripts/bench/litert_vs_ort.mjs [--inputs /tmp/retto-model-inputs] [--roles det,cls,rec,reread]
//        [--threads 1,2] [--rounds 3] [--json f]
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CHROMIUM_ARGS, ROOT, median, opt } from './lib/args.mjs';

const INPUTS = opt('--inputs', '/tmp/retto-model-inputs');
const ROLES = opt('--roles', 'det,cls,rec,reread').split(',');
const THREADS = opt('--threads', '1,2').split(',').map(Number);
const ROUNDS = Number(opt('--rounds', 3));
const PEERS = join(ROOT, 'scripts', 'bench', 'peers');

const { set, calls: META } = JSON.parse(readFileSync(join(INPUTS, 'meta.json'), 'utf8'));
execFileSync(join(ROOT, '.venv', 'bin', 'python'), [join(ROOT, 'scripts', 'bench', 'tflite_models.py'),
  '--inputs', INPUTS, '--roles', ROLES.join(',')], { stdio: ['ignore', 'inherit', 'inherit'] });
const TFLITE = join(ROOT, '.cache', 'tflite', set);
const index = JSON.parse(readFileSync(join(TFLITE, 'index.json'), 'utf8'));
const manifest = JSON.parse(readFileSync(join(ROOT, 'web', 'public', 'assets', 'manifest.json'), 'utf8'));

if (!existsSync(join(PEERS, 'node_modules', '@litertjs', 'core', 'package.json'))) {
  execFileSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: PEERS, stdio: 'inherit' });
}
const litertVersion = JSON.parse(readFileSync(join(PEERS, 'node_modules', '@litertjs', 'core', 'package.json'), 'utf8')).version;
const benchDir = mkdtempSync(join(tmpdir(), 'retto-litert-'));
writeFileSync(join(benchDir, 'blank.html'), '<!doctype html><meta charset="utf-8"><title>LiteRT.js bench</title>\n');
const { build } = await import('esbuild');
await build({ entryPoints: [join(ROOT, 'scripts', 'bench', 'lib', 'engine_litert_worker.js')], bundle: true,
  format: 'iife', platform: 'browser', outfile: join(benchDir, 'engine_litert_worker.js'),
  nodePaths: [join(PEERS, 'node_modules')], logLevel: 'error' });

const load = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
const calls = Object.fromEntries(ROLES.map((role) => [role, META.filter((m) => m.role === role).map((m) => ({
  dims: m.dims, file: `${String(m.i).padStart(3, '0')}.bin`, out: index.calls[String(m.i)].out }))]));
const models = {
  ort: Object.fromEntries(ROLES.map((r) => [r, `/__assets__/${manifest.model_sets[set].files[r].file}`])),
  litert: Object.fromEntries(ROLES.flatMap((r) => Object.entries(index.roles[r].files).map(([b, f]) => [`${r}@${b}`, `/__tflite__/${f}`]))),
};

const { chromium } = await import('@playwright/test');
const { startServer } = await import('../serve_static.mjs');
const server = await startServer({ dir: benchDir, isolation: true, mounts: {
  '/__ort__/': join(ROOT, 'node_modules', 'onnxruntime-web', 'dist'), '/__inputs__/': INPUTS,
  '/__assets__/': join(ROOT, 'web', 'public', 'assets'), '/__tflite__/': TFLITE,
  '/__litert__/': join(PEERS, 'node_modules', '@litertjs', 'core', 'wasm'),
  '/__lib__/': join(ROOT, 'scripts', 'bench', 'lib'), '/__bench__/': benchDir } });
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', args: CHROMIUM_ARGS });
const report = { set, rounds: ROUNDS, litert: litertVersion, load: [load()], threads: {} };
console.error(`load average ${load()}; ${set}; LiteRT.js ${litertVersion} against onnxruntime-web; ${ROUNDS} rounds`);
try {
  for (const threads of THREADS) {
    const page = await browser.newPage();
    page.on('console', (m) => { if (m.type() === 'error') console.error(`[chromium] ${m.text()}`); });
    await page.goto(`${server.url}__bench__/blank.html`); // a cross-origin-isolated page of ours: threads need it
    report.threads[threads] = await page.evaluate(async ({ threads, roles, rounds, calls, models }) => {
      const start = (url, type) => {
        const w = new Worker(url, type ? { type } : undefined);
        w.ask = (msg) => new Promise((resolve, reject) => {
          w.onmessage = ({ data }) => (data.error ? reject(new Error(data.error)) : resolve(data));
          w.postMessage(msg);
        });
        return w;
      };
      const engines = { ort: start('/__lib__/engine_ort_worker.mjs', 'module'), litert: start('/__bench__/engine_litert_worker.js') };
      const made = {};
      for (const [name, w] of Object.entries(engines)) made[name] = (await w.ask({ init: { threads, models: models[name] } })).made;
      const out = {};
      for (const role of roles) {
        const sums = { ort: [], litert: [], compile: [] };
        let maxDiff = 0; let agree = 0; let steps = 0;
        for (let r = 0; r < rounds + 1; r++) { // round 0 warms both engines up and is not counted
          await engines.litert.ask({ clear: true });
          const sum = { ort: 0, litert: 0, compile: 0 };
          for (const [k, c] of calls[role].entries()) {
            const order = (k + r) % 2 ? ['litert', 'ort'] : ['ort', 'litert'];
            const got = {};
            for (const name of order) {
              got[name] = await engines[name].ask({ run: { role, ...c, keep: r === 1 } });
              sum[name] += got[name].ms;
              sum.compile += got[name].compileMs;
            }
            if (r === 1) {
              const a = got.ort.out; const b = got.litert.out;
              for (let i = 0; i < a.length; i++) maxDiff = Math.max(maxDiff, Math.abs(a[i] - b[i]));
              if (c.dims.length === 4 && c.out.length === 3) { // a recogniser: [N, T, classes]
                const k2 = c.out[2];
                for (let s = 0; s < a.length / k2; s++) {
                  let ia = 0; let ib = 0;
                  for (let j = 1; j < k2; j++) {
                    if (a[s * k2 + j] > a[s * k2 + ia]) ia = j;
                    if (b[s * k2 + j] > b[s * k2 + ib]) ib = j;
                  }
                  agree += ia === ib; steps += 1;
                }
              }
            }
          }
          if (r > 0) for (const key of Object.keys(sums)) sums[key].push(sum[key]);
        }
        out[role] = { calls: calls[role].length, sums, maxDiff, argmaxAgree: steps ? agree / steps : null,
          sessionMs: made.ort[role] };
      }
      Object.values(engines).forEach((w) => w.terminate());
      return out;
    }, { threads, roles: ROLES, rounds: ROUNDS, calls, models });
    await page.close();
    console.error(`${threads} thread(s) done (load ${load()})`);
  }
} finally {
  await browser.close();
  await server.close();
}
report.load.push(load());

const ms = (x) => `${Math.round(x)} ms`.padStart(9);
console.log(`role    thr calls  onnxruntime-web   LiteRT.js (compiles)   ort/litert   largest diff  best class agrees`);
const total = {};
for (const [threads, roles] of Object.entries(report.threads)) {
  for (const [role, r] of Object.entries(roles)) {
    const o = median(r.sums.ort); const l = median(r.sums.litert); const c = median(r.sums.compile);
    total[threads] = total[threads] ?? { ort: 0, litert: 0 };
    total[threads].ort += o; total[threads].litert += l;
    console.log(`${role.padEnd(7)} ${threads.padStart(3)} ${String(r.calls).padStart(5)}  ${ms(o)}        ${ms(l)} (${ms(c).trim()})`
      + `   ${(o / l).toFixed(2).padStart(6)}     ${r.maxDiff.toExponential(1).padStart(9)}   ${r.argmaxAgree == null ? '-' : `${(100 * r.argmaxAgree).toFixed(2)} %`}`);
  }
}
for (const [threads, t] of Object.entries(total)) {
  console.log(`all     ${threads.padStart(3)}        ${ms(t.ort)}        ${ms(t.litert)}             ${(t.ort / t.litert).toFixed(2).padStart(6)}`);
}
console.log(`load average ${report.load.join(' -> ')}`);
if (opt('--json', null)) writeFileSync(opt('--json'), JSON.stringify(report, null, 1));
process.exit(0);
