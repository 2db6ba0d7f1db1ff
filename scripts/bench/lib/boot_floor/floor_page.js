// scripts/bench/boot_floor.mjs: start one floor worker (mode: empty | ort | idb) and resolve when it answers.
window.floor = (mode) => new Promise((resolve, reject) => {
  const worker = new Worker(`floor_worker.js?${mode}`, { type: 'module' });
  worker.onmessage = (e) => { resolve({ ms: performance.now(), info: e.data }); worker.terminate(); };
  worker.onerror = (e) => { reject(new Error(e.message)); worker.terminate(); };
});
