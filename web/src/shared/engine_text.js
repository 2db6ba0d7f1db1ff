// The engine's state in words, shared by the page and <retto-ocr>: loading progress in bytes, which backend runs
// det / cls / rec and on how many threads (and why), from the info the worker reports.
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

/** The worker's load events (boot_progress.js) in words: bytes while downloading, then the start-up steps.
 * setLabel: the model set being loaded, named when given ("… for “Chinese & English (classic)” …"). */
export function loadingText(ev, setLabel) {
  const forSet = setLabel ? ` for “${setLabel}”` : '';
  if (ev.phase === 'start') return `Starting the OCR engine${forSet}… (step ${Math.min(ev.steps.done + 1, ev.steps.total)} of ${ev.steps.total})`;
  return `Downloading the OCR engine${forSet}… ${formatBytes(ev.loaded)} of ${formatBytes(ev.total)}`;
}
