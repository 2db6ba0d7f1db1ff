// The npm package's paths (it replaces web/src/client/build_paths.js in vite.package.config.js). An app copies
// the package's assets/ folder to its public dir as retto/ (the Vite plugin or the CLI does it), and the worker
// is one file in it: nothing depends on how the app's bundler treats workers or import.meta.url.
export const WORKER_FILE = 'retto-worker.js';

export function startWorker(assetBase) {
  return new Worker(new URL(WORKER_FILE, assetBase), { type: 'module', name: 'retto-ocr' });
}

/** Retto.create's and <retto-ocr>'s default: retto/ under the page's base URL. */
export function clientAssetBase() {
  return new URL('retto/', document.baseURI).href;
}

export const elementAssetBase = clientAssetBase;
