// The engine's state in words, shared by the page and <retto-ocr>: loading progress in bytes, which backend runs
// det / cls / rec and on how many threads (and why), from the info the worker reports. The status lines use
// plain words (statusInWords, whereItRuns); the rest stays behind a disclosure (technicalDetails).
import { formatBytes } from './units.js';

const GPU_NAMES = { webgpu: 'WebGPU', webgl: 'WebGL' };
const threadsText = (n) => (n === 1 ? 'one thread' : `${n} threads`);

/** The page's status line in words: "Ready · runs on this device (CPU, 2 threads)", "Ready · using the graphics
 * card (WebGPU)", or both; without cross-origin isolation, why the CPU uses one thread. */
export function statusInWords(info) {
  return `Ready · ${whereItRuns(info)}`;
}

/** Where OCR runs, in words ("runs on this device (CPU, 2 threads)"): the page's status and <retto-ocr>'s. */
export function whereItRuns(info) {
  const used = new Set(Object.values(info.backend));
  const gpus = [...used].filter((b) => GPU_NAMES[b]).map((b) => GPU_NAMES[b]);
  const cpu = used.has('wasm');
  const isolated = info.wasm.crossOriginIsolated;
  const threads = isolated ? threadsText(info.wasm.threads) : '';
  let text;
  if (!gpus.length) text = `runs on this device (CPU${threads ? `, ${threads}` : ''})`;
  else text = `using the graphics card (${gpus.join(' and ')})${cpu ? ` and the CPU${threads ? ` (${threads})` : ''}` : ''}`;
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

/** The worker's load events (boot_progress.js) in words, by phase: "Downloading the OCR engine… 31.0 MB of
 * 48.0 MB", then (every byte in) "Starting the OCR engine: loading the models… (step 2 of 7)" while the three
 * models' sessions are created, then "… starting the reader… (step 6 of 7)" (Python, the retto wheel, the
 * session). The steps finish in varying order (the boot runs them side by side), so the words follow the count:
 * the first four steps are onnxruntime and the three models in the usual order (BOOT_STEPS).
 * setLabel: the model set being loaded, named when given ("… for “Chinese & English (classic)” …"). */
export function loadingText(ev, setLabel) {
  const forSet = setLabel ? ` for “${setLabel}”` : '';
  if (ev.phase === 'start') {
    const { done, total } = ev.steps;
    const doing = done < 4 ? 'loading the models' : 'starting the reader';
    return `Starting the OCR engine${forSet}: ${doing}… (step ${Math.min(done + 1, total)} of ${total})`;
  }
  return `Downloading the OCR engine${forSet}… ${formatBytes(ev.loaded)} of ${formatBytes(ev.total)}`;
}
