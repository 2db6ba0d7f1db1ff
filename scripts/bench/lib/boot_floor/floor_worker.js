// One part of Retto's boot alone, in a worker of its own, to bound what the whole start can reach
// (scripts/bench/boot_floor.mjs). Modes:
//   empty: nothing (a module worker made and answering);
//   ort:   onnxruntime-web imported and the default set's det session made (wasm, 2 threads), as ort_bridge.js does;
//   idb:   the stored Python snapshot record read from IndexedDB with its heap and libraries as bytes.
const mode = location.search.slice(1);
const t0 = performance.now();
const marks = {};
const mark = (k) => { marks[k] = Math.round(performance.now() - t0); };
const assets = new URL('/assets/', location.href);

if (mode === 'ort') {
  const manifest = await (await fetch(new URL('manifest.json', assets))).json();
  const set = manifest.model_sets[manifest.default_model_set];
  const det = fetch(new URL(set.files.det.file, assets)).then((r) => r.arrayBuffer());
  const ort = await import(new URL('ort/ort.wasm.min.mjs', assets).href);
  mark('imported');
  ort.env.wasm.wasmPaths = new URL('ort/', assets).href;
  ort.env.wasm.numThreads = 2;
  ort.env.wasm.proxy = false;
  const bytes = new Uint8Array(await det);
  mark('det bytes');
  await ort.InferenceSession.create(bytes, { executionProviders: ['wasm'], graphOptimizationLevel: 'all' });
  mark('det session');
} else if (mode === 'idb') {
  const db = await new Promise((resolve, reject) => {
    const open = indexedDB.open('retto-python-snapshot', 1);
    open.onupgradeneeded = () => open.result.createObjectStore('snapshot');
    open.onsuccess = () => resolve(open.result);
    open.onerror = () => reject(open.error);
  });
  const rec = await new Promise((resolve) => {
    const get = db.transaction('snapshot').objectStore('snapshot').get('interpreter');
    get.onsuccess = () => resolve(get.result);
  });
  mark('record');
  if (rec) {
    marks.heapBytes = (await rec.bytes.arrayBuffer()).byteLength;
    marks.libBytes = (await Promise.all(rec.libs.map((b) => b.arrayBuffer()))).reduce((a, b) => a + b.byteLength, 0);
  }
  mark('bytes');
} else if (mode !== 'empty') {
  throw new Error(`unknown mode ${mode}`);
}
postMessage(marks);
