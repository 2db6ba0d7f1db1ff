// One OCR engine (client + web worker) per backend, asset base and model set, shared by everything on the page:
// the app and every <retto-ocr> element. Booting Pyodide and the models costs seconds and ~100 MB, so never twice.
import { Retto } from '../client/retto.js';

const engines = new Map(); // key -> {promise, listeners:Set, refs, lastProgress, info}
const RELEASE_DELAY_MS = 2000; // an element moved in the DOM disconnects and reconnects: don't kill the worker

function keyOf(backend, assetBase, models, allow, block, config) {
  // no models: the build's default set; config: the settings object (e.g. the page's tables setting)
  return `${backend}|${assetBase}|${models ?? ''}|${allow ?? ''}|${block ?? ''}|${config ? JSON.stringify(config) : ''}`;
}

/**
 * Get (or boot) the shared engine. onLoadProgress receives the loading events ({stage:'load', loaded, total})
 * of the boot in flight, also when another caller started it. Resolves to a Retto client.
 */
export function acquireEngine({ backend = 'auto', assetBase, models, allow, block, config }, onLoadProgress) {
  const base = new URL(assetBase, document.baseURI).href;
  const key = keyOf(backend, base, models || undefined, allow || undefined, block || undefined, config || undefined);
  let entry = engines.get(key);
  if (!entry) {
    entry = { listeners: new Set(), refs: 0, lastProgress: null, releaseTimer: null };
    entry.promise = Retto.create({
      backend,
      models: models || undefined,
      allow: allow || undefined,
      block: block || undefined,
      config: config || undefined,
      assetBase: base,
      onProgress: (ev) => {
        entry.lastProgress = ev;
        for (const fn of entry.listeners) fn(ev);
      },
    });
    entry.promise.then(() => entry.listeners.clear(), () => { // a failed boot may be retried
      if (engines.get(key) === entry) engines.delete(key);
    });
    engines.set(key, entry);
  }
  clearTimeout(entry.releaseTimer);
  entry.refs += 1;
  if (onLoadProgress) {
    entry.listeners.add(onLoadProgress);
    if (entry.lastProgress) onLoadProgress(entry.lastProgress); // a late joiner sees where loading is
  }
  return { key, engine: entry.promise };
}

/** Drop one reference; the last one terminates the worker, after a short grace period unless `now` (a switch of
 * backend or model set: its worker must not keep running a job, or hold its memory, beside the new one). */
export function releaseEngine(key, { now = false } = {}) {
  const entry = engines.get(key);
  if (!entry) return;
  entry.refs -= 1;
  if (entry.refs > 0) return;
  const end = () => {
    if (entry.refs > 0 || engines.get(key) !== entry) return;
    engines.delete(key);
    entry.promise.then((e) => e.terminate(), () => {});
  };
  if (now) end();
  else entry.releaseTimer = setTimeout(end, RELEASE_DELAY_MS);
}

/** How many distinct engines (= web workers) are alive: the component test checks that elements share one. */
export function engineCount() {
  return engines.size;
}
