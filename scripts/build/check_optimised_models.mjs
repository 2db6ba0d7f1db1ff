#!/usr/bin/env node
// Check (not a test; a few seconds per model): every model the web app ships pre-optimised
// (scripts/build/optimise_models.py) gives, in onnxruntime-web's wasm provider at the app's level 'all', bit-identical
// outputs to the source model from models/<set>/, on a seeded random input of a realistic shape, and how long each
// session takes to make. Prints one line per model; exits 1 on any difference.
//   node scripts/build/check_optimised_models.mjs [set ...]
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as ort from 'onnxruntime-web/wasm';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const ASSETS = join(ROOT, 'web', 'public', 'assets');
ort.env.wasm.numThreads = 1;
ort.env.logLevel = 'error';
const SHAPES = { det: [1, 3, 480, 640], cls: [6, 3, 48, 192], rec: [6, 3, 48, 320], reread: [6, 3, 48, 320], orient: [1, 3, 224, 224],
  layout: [1, 3, 800, 608], table: [1, 3, 488, 488] }; // layout and table: the fixed inputs of py/retto/ops/regions.py and tables.py

const manifest = JSON.parse(readFileSync(join(ASSETS, 'manifest.json'), 'utf8'));
const wanted = process.argv.slice(2);
let seed = 7;
const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648) * 2 - 1;

async function run(bytes, dims, data) {
  const t0 = performance.now();
  const s = await ort.InferenceSession.create(bytes, { graphOptimizationLevel: 'all' });
  const made = performance.now() - t0;
  const outs = await s.run({ [s.inputNames[0]]: new ort.Tensor('float32', data, dims) });
  await s.release();
  return { made, bits: Buffer.concat(s.outputNames.map((n) => { // every output: layout has 8, table 2
    const d = outs[n].data;
    return Buffer.from(d.buffer, d.byteOffset, d.byteLength);
  })) };
}

let bad = 0;
for (const [name, entry] of Object.entries(manifest.model_sets)) {
  if (wanted.length && !wanted.includes(name)) continue;
  for (const [role, f] of Object.entries(entry.files)) {
    if (!f.optimised) continue;
    const dims = SHAPES[role];
    const data = Float32Array.from({ length: dims.reduce((a, b) => a * b) }, rnd);
    const source = await run(readFileSync(join(ROOT, 'models', name, `${role}.onnx`)), dims, data);
    const shipped = await run(readFileSync(join(ASSETS, f.file)), dims, data);
    const same = source.bits.equals(shipped.bits);
    if (!same) bad += 1;
    console.log(`${name} ${role} ${dims.join('x')}: ${same ? 'bit-identical' : 'DIFFERENT'}; session ${source.made.toFixed(0)} -> ${shipped.made.toFixed(0)} ms`);
  }
}
process.exit(bad ? 1 : 0);
