// The engine's state in words, shared by the page and <retto-ocr>: loading progress in bytes, which backend runs
// det / cls / rec and on how many threads (and why), from the info the worker reports.
import { formatBytes } from './format.js';

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

/** setLabel: the model set being loaded, named when given ("… for “Chinese & English (classic)” …"). */
export function loadingText(ev, setLabel) {
  const what = ev.file === 'models' ? 'OCR models' : ev.file === 'python runtime' ? 'Python runtime' : ev.file;
  const forSet = setLabel ? ` for “${setLabel}”` : '';
  return `Loading the OCR engine${forSet} (${what}): ${formatBytes(ev.loaded)} of ${formatBytes(ev.total)}`;
}
