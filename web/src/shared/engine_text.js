// The engine's state in words, shared by the page and <retto-ocr>: loading progress in bytes, which backend runs
// det / cls / rec and on how many threads (and why), from the info the worker reports. The page's status uses
// plain words (statusInWords) and keeps the rest behind a disclosure (technicalDetails).
import { formatBytes } from './units.js';

/** "wasm for det, cls and rec · 2 threads"; adds why when not cross-origin isolated (one thread). */
export function describeBackends(info, { withReason = false } = {}) {
  const b = info.backend;
  const same = b.det === b.cls && b.cls === b.rec;
  const eps = same ? `${b.det} for det, cls and rec` : `det ${b.det} · cls ${b.cls} · rec ${b.rec}`;
  const usesWasm = Object.values(b).includes('wasm');
  const threads = usesWasm ? ` · ${info.wasm.threads} thread${info.wasm.threads === 1 ? '' : 's'}` : '';
  const why = withReason && usesWasm && !info.wasm.crossOriginIsolated ? ` (${info.wasm.threadsReason})` : '';
  return `${eps}${threads}${why}`;
}

/** Longer explanation (tooltip and the timings panel): why this many threads, why not other backends. */
export function explainBackends(info) {
  const parts = [`Threads: ${info.wasm.threadsReason}.`];
  for (const [model, why] of Object.entries(info.fallbacks ?? {})) parts.push(`${model}: ${why.join('; ')}.`);
  return parts.join(' ');
}

const GPU_NAMES = { webgpu: 'WebGPU', webgl: 'WebGL' };
const threadsText = (n) => (n === 1 ? 'one thread' : `${n} threads`);

/** The page's status line in words: "Ready · runs on this device (CPU, 2 threads)", "Ready · using the graphics
 * card (WebGPU)", or both; without cross-origin isolation, why the CPU uses one thread. */
export function statusInWords(info) {
  const used = new Set(Object.values(info.backend));
  const gpus = [...used].filter((b) => GPU_NAMES[b]).map((b) => GPU_NAMES[b]);
  const cpu = used.has('wasm');
  const isolated = info.wasm.crossOriginIsolated;
  const threads = isolated ? threadsText(info.wasm.threads) : '';
  let text;
  if (!gpus.length) text = `Ready · runs on this device (CPU${threads ? `, ${threads}` : ''})`;
  else text = `Ready · using the graphics card (${gpus.join(' and ')})${cpu ? ` and the CPU${threads ? ` (${threads})` : ''}` : ''}`;
  if (cpu && !isolated) text += ' · Runs on one thread: this page is not cross-origin isolated';
  return text;
}

/** The engine's technical details, [term, description] rows for the page's "Technical details" disclosure:
 * per-model backend, threads and why, why other backends were not used, the GPU adapter, versions.
 * fallback: {from, reason} when the page itself fell back from a chosen backend that could not run. */
export function technicalDetails(info, fallback = null) {
  const rows = [];
  if (fallback) rows.push([`Fallback from ${fallback.from}`, fallback.reason]);
  rows.push(['Backend per model', Object.entries(info.backend).map(([m, b]) => `${m}: ${b}`).join(' · ')]);
  rows.push(['wasm threads', `${info.wasm.threads} (${info.wasm.threadsReason})`]);
  for (const [model, why] of Object.entries(info.fallbacks ?? {})) rows.push([`Not used for ${model}`, why.join('; ')]);
  for (const w of info.warnings ?? []) rows.push(['Warning', w]);
  for (const [name, probe] of Object.entries(info.probes ?? {})) {
    if (probe.info) rows.push([`${name} adapter`, Object.entries(probe.info).map(([k, v]) => `${k}: ${v}`).join(' · ')]);
  }
  if (info.runtime) rows.push(['onnxruntime-web build', info.runtime]);
  if (info.modelSet?.name) rows.push(['Model set', info.modelSet.name]);
  for (const [name, v] of Object.entries(info.versions ?? {})) {
    rows.push([`${name} version`, typeof v === 'object' ? Object.entries(v).map(([k, x]) => `${k}: ${x}`).join(' · ') : String(v)]);
  }
  return rows;
}

/** The worker's load events (boot_progress.js) in words: bytes while downloading, then the start-up steps.
 * setLabel: the model set being loaded, named when given ("… for “Chinese & English (classic)” …"). */
export function loadingText(ev, setLabel) {
  const forSet = setLabel ? ` for “${setLabel}”` : '';
  if (ev.phase === 'start') return `Starting the OCR engine${forSet}… (step ${Math.min(ev.steps.done + 1, ev.steps.total)} of ${ev.steps.total})`;
  return `Downloading the OCR engine${forSet}… ${formatBytes(ev.loaded)} of ${formatBytes(ev.total)}`;
}
