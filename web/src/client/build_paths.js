// Where the OCR worker and the runtime assets are, in this repository's builds (the page and dist/retto-ocr.js):
// Vite bundles the worker from its source, and assets/ sits beside the page (client) or the module (element).
// The npm package's build swaps this module for web/src/package/build_paths.js (vite.package.config.js).

/** A new OCR worker. Written inline: Vite bundles a worker only in this exact form. */
export function startWorker() {
  return new Worker(new URL('../worker/worker.js', import.meta.url), { type: 'module', name: 'retto-ocr' });
}

/** Retto.create's default assetBase: assets/ under the page's base URL. */
export function clientAssetBase() {
  return new URL('assets/', document.baseURI).href;
}

/** <retto-ocr>'s default asset-base: assets/ next to retto-ocr.js (the dev server serves it at /assets/). */
export function elementAssetBase() {
  return import.meta.env.DEV ? new URL('/assets/', location.href).href
    : new URL(/* @vite-ignore */ './assets/', import.meta.url).href;
}
