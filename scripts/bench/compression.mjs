#!/usr/bin/env node
// Benchmark (not a test): brotli quality and gzip level on the big files of dist/, size and time, to set scripts/build/precompress.mjs.
// For every file of dist/ of at least --min-mb MB (default 0.5) whose type precompress.mjs considers, each encoder
// runs once (one core; other work on the machine slows all alike, so compare within a run): brotli at qualities
// 5, 9 and 11 (window 24, as precompress.mjs), gzip at levels 6 and 9. Prints per file the original size and per
// encoder the ratio and the seconds, then the totals per type (.wasm, .onnx, .whl, ...).
//   node scripts/bench/compression.mjs [--dir dist] [--min-mb 0.5] [--types .wasm,.onnx] [--only br11,gz9] [--json out.json]
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { extname, join, relative } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { ROOT, opt } from './lib/args.mjs';

const DIR = opt('--dir', join(ROOT, 'dist'));
const MIN = Number(opt('--min-mb', '0.5')) * 1e6;
const TYPES = new Set(opt('--types', '.wasm,.js,.mjs,.json,.zip,.onnx,.whl,.txt').split(','));
const br = (q) => (data) => brotliCompressSync(data, { params: {
  [constants.BROTLI_PARAM_QUALITY]: q, [constants.BROTLI_PARAM_LGWIN]: 24,
  [constants.BROTLI_PARAM_SIZE_HINT]: data.length } });
const ALL = { br5: br(5), br9: br(9), br11: br(11), gz6: (d) => gzipSync(d, { level: 6 }), gz9: (d) => gzipSync(d, { level: 9 }) };
const only = opt('--only', null)?.split(',');
const ENCODERS = Object.fromEntries(Object.entries(ALL).filter(([k]) => !only || only.includes(k)));

const files = readdirSync(DIR, { recursive: true }).map((r) => join(DIR, r))
  .filter((p) => TYPES.has(extname(p)) && statSync(p).isFile() && statSync(p).size >= MIN)
  .sort((a, b) => statSync(b).size - statSync(a).size);
const rows = [];
const pad = (s, n) => String(s).padStart(n);
console.log(`${'file'.padEnd(58)} ${pad('MB', 6)} ${Object.keys(ENCODERS).map((k) => pad(`${k} ratio/s`, 14)).join(' ')}`);
for (const path of files) {
  const data = readFileSync(path);
  const row = { file: relative(DIR, path), ext: extname(path), size: data.length, enc: {} };
  for (const [name, encode] of Object.entries(ENCODERS)) {
    const t0 = process.hrtime.bigint();
    const out = encode(data);
    row.enc[name] = { size: out.length, s: Number(process.hrtime.bigint() - t0) / 1e9 };
  }
  rows.push(row);
  console.log(`${row.file.slice(-58).padEnd(58)} ${pad((data.length / 1e6).toFixed(1), 6)} ${Object.values(row.enc)
    .map((e) => pad(`${(e.size / data.length).toFixed(3)}/${e.s.toFixed(1)}`, 14)).join(' ')}`);
}
console.log('\nper type: MB -> MB (s)');
for (const ext of [...new Set(rows.map((r) => r.ext))]) {
  const rs = rows.filter((r) => r.ext === ext);
  const size = rs.reduce((a, r) => a + r.size, 0);
  console.log(`${ext.padEnd(6)} ${rs.length} files ${(size / 1e6).toFixed(1)} MB: ${Object.keys(ENCODERS).map((k) => {
    const s = rs.reduce((a, r) => a + r.enc[k].size, 0); const t = rs.reduce((a, r) => a + r.enc[k].s, 0);
    return `${k} ${(s / 1e6).toFixed(1)} (${t.toFixed(1)} s)`;
  }).join(', ')}`);
}
const json = opt('--json', null);
if (json) writeFileSync(json, JSON.stringify(rows, null, 1));
