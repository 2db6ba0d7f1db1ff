#!/usr/bin/env node
// Benchmark (not a test): onnxruntime-web's wasm inference against native onnxruntime on the real inputs of the
// default set's five bench pages (recorded by scripts/bench/record_model_inputs.py), one lever at a time. Every engine
// (an onnxruntime-web build + session options + input shape) runs every recorded call, the engines alternating
// call by call (the order rotates), so a loaded machine slows them alike; per role, the sum over the calls of a
// round, median over the rounds. Native onnxruntime times the same calls before and after (its own process).
// Outputs are compared with the first engine's: bit-identical, or the largest difference.
//   .venv/bin/python scripts/bench/record_model_inputs.py --out /tmp/retto-model-inputs
//   node scripts/bench/inference.mjs [--inputs /tmp/retto-model-inputs] [--roles det,rec] [--threads 1]
//        [--rounds 3] [--engines base,parallel,...] [--ort-dev <dir of another onnxruntime-web package>] [--browser]
//        [--limit N] [--native 1,2] [--json f]
// --browser: the same loop in a Chromium worker (cross-origin isolated; needed for --threads > 1, which
// onnxruntime-web does not run in Node here). Engines: base (the app's options: graphOptimizationLevel 'all'),
// parallel (executionMode), extended / basic / disabled (graphOptimizationLevel), noarena (enableCpuMemArena
// false), nopattern (enableMemPattern false), nospin (intra-op threads do not spin), dev (base on the build under
// --ort-dev), batch1 (each image of a batch run alone, at the batch's shape), padN (rec widths padded with zeros
// to a multiple of N, what fixed width buckets would feed the model; changes the outputs).
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { median, runLevers } from './lib/inference_core.mjs';
import { ROOT, flag, opt } from './lib/args.mjs';

const INPUTS = opt('--inputs', '/tmp/retto-model-inputs');
const ROLES = opt('--roles', 'det,rec').split(',');
const THREADS = Number(opt('--threads', 1));
const ROUNDS = Number(opt('--rounds', 3));
const LIMIT = Number(opt('--limit', 1e9)); // at most this many calls per role (the first ones)
const ENGINES = opt('--engines', 'base').split(',');
const ORT_DEV = opt('--ort-dev', null);
const BROWSER = flag('--browser');
const NATIVE = opt('--native', '1,2').split(',').filter(Boolean).map(Number);

const { set, calls: META } = JSON.parse(readFileSync(join(INPUTS, 'meta.json'), 'utf8'));
const manifest = JSON.parse(readFileSync(join(ROOT, 'web', 'public', 'assets', 'manifest.json'), 'utf8'));
const modelPath = (role) => manifest.model_sets[set].files[role].file;
const modelFile = (role) => join(ROOT, 'web', 'public', 'assets', modelPath(role));
const callsOf = (role) => META.filter((m) => m.role === role).slice(0, LIMIT);
const binName = (m) => `${String(m.i).padStart(3, '0')}.bin`;

function nativeTimes() {
  const py = `
import json, sys, time, numpy as np, onnxruntime as ort
inputs, rounds, roles, files, threads = sys.argv[1], int(sys.argv[2]), sys.argv[3].split(','), json.loads(sys.argv[4]), json.loads(sys.argv[5])
meta = json.load(open(inputs + '/meta.json'))['calls']
out = {}
for t in threads:
    o = ort.SessionOptions(); o.intra_op_num_threads = t; o.inter_op_num_threads = 1; o.log_severity_level = 3
    for role in roles:
        s = ort.InferenceSession(files[role], o, providers=['CPUExecutionProvider'])
        name = s.get_inputs()[0].name
        xs = [np.fromfile(f"{inputs}/{m['i']:03d}.bin", dtype=np.float32).reshape(m['dims']) for m in meta if m['role'] == role][:${Number.isFinite(LIMIT) ? LIMIT : 'None'}]
        s.run(None, {name: xs[0]})
        sums = []
        for _ in range(rounds):
            t0 = time.perf_counter()
            for x in xs: s.run(None, {name: x})
            sums.append((time.perf_counter() - t0) * 1000)
        out[f'{role}@{t}'] = sums
print(json.dumps(out))`;
  const files = Object.fromEntries(ROLES.map((r) => [r, modelFile(r)]));
  return JSON.parse(execFileSync(join(ROOT, '.venv', 'bin', 'python'), ['-c', py, INPUTS, String(ROUNDS), ROLES.join(','),
    JSON.stringify(files), JSON.stringify(NATIVE)], { maxBuffer: 1 << 24 }));
}

const load = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
console.error(`load average ${load()}; ${set}; ${THREADS} wasm thread(s); engines ${ENGINES.join(', ')}`);
const native0 = NATIVE.length ? nativeTimes() : {};
const runtimes = {};
const report = { set, threads: THREADS, rounds: ROUNDS, where: BROWSER ? 'chromium' : 'node', load: [load()], native: {} };
const log = (line) => console.error(`${line}  (load ${load()})`);
report.roles = BROWSER ? await inBrowser() : await runLevers({ roles: ROLES, engines: ENGINES, rounds: ROUNDS, log,
  runtime: async (name) => { // one module instance (own wasm memory and thread pool) per build
    const dir = name === 'dev' ? ORT_DEV : join(ROOT, 'node_modules', 'onnxruntime-web');
    if (!runtimes[dir]) {
      if (THREADS > 1) throw new Error('onnxruntime-web runs one thread in Node here: use --browser for more');
      runtimes[dir] = await import(pathToFileURL(join(dir, 'dist', 'ort.wasm.min.mjs')).href);
      runtimes[dir].env.wasm.numThreads = 1;
      runtimes[dir].env.logLevel = 'error';
    }
    return runtimes[dir];
  },
  calls: async (role) => callsOf(role).map((m) => ({ dims: m.dims, data: new Float32Array(readFileSync(join(INPUTS, binName(m))).buffer) })),
  model: async (role) => readFileSync(modelFile(role)) });

// The same loop in a Chromium worker (cross-origin isolated, so onnxruntime-web may use threads), each build
// served from its own package folder, the inputs and models from this tree.
async function inBrowser() {
  const { chromium } = await import('@playwright/test');
  const { startServer } = await import('../serve_static.mjs');
  const mounts = { '/__ort__/': join(ROOT, 'node_modules', 'onnxruntime-web', 'dist'), '/__inputs__/': INPUTS,
    '/__assets__/': join(ROOT, 'web', 'public', 'assets'), '/__scripts__/': join(ROOT, 'scripts', 'bench', 'lib') };
  if (ORT_DEV) mounts['/__ortdev__/'] = join(ORT_DEV, 'dist');
  const server = await startServer({ dir: join(ROOT, 'scripts', 'bench', 'lib'), isolation: true, mounts });
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync'] });
  try {
    const page = await browser.newPage();
    page.on('console', (m) => console.error(`[chromium] ${m.text()}`));
    await page.goto(`${server.url}__scripts__/inference_core.mjs`);
    const job = { roles: ROLES, engines: ENGINES, rounds: ROUNDS, threads: THREADS,
      calls: Object.fromEntries(ROLES.map((r) => [r, callsOf(r).map((m) => ({ dims: m.dims, file: binName(m) }))])),
      models: Object.fromEntries(ROLES.map((r) => [r, modelPath(r)])) };
    return await page.evaluate(async (job) => {
      const w = new Worker('/__scripts__/inference_worker.mjs', { type: 'module' });
      const out = await new Promise((resolve) => {
        w.onmessage = (e) => resolve(e.data);
        w.onerror = (e) => resolve({ error: e.message });
        w.postMessage(job);
      });
      if (out.error) throw new Error(out.error);
      return out.roles;
    }, job);
  } finally {
    await browser.close();
    await server.close();
  }
}
const native1 = NATIVE.length ? nativeTimes() : {};
for (const k of Object.keys(native0)) report.native[k] = median([...native0[k], ...native1[k]]);
report.load.push(load());
for (const [role, es] of Object.entries(report.roles)) {
  const base = es[ENGINES[0]].ms;
  for (const [name, e] of Object.entries(es)) {
    const nat = report.native[`${role}@${THREADS}`];
    console.log(`${role.padEnd(6)} ${name.padEnd(10)} ${String(Math.round(e.ms)).padStart(7)} ms  x${(e.ms / base).toFixed(3)} of ${ENGINES[0]}`
      + `${nat ? `  ${(e.ms / nat).toFixed(2)}x native@${THREADS} (${Math.round(nat)} ms)` : ''}  ${e.identical ? 'bit-identical' : `max diff ${e.maxDiff.toExponential(2)}`}  session ${e.sessionMs} ms`);
  }
}
console.log(`load average ${report.load.join(' -> ')}`);
if (opt('--json', null)) writeFileSync(opt('--json'), JSON.stringify(report, null, 1));
process.exit(0);
