// The whole-interpreter Python snapshot (web/src/worker/python_snapshot.js), in one page: a cold start makes and
// stores it; the next engine restores it (numpy, Pillow and retto already imported) and reads what the cold one
// read; a stored snapshot whose function-table record no longer matches, one whose heap is damaged, and one of
// another build are each dropped and rebuilt, never failing the start, with the same result again. A restored
// start is ready before any wheel arrives; a damaged wheel fails the first call with model_integrity.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DIST, expect, test } from '../fixtures.js';

test.setTimeout(300_000); // eight Python starts (four fresh); ~1.7 min at load 10 on 2 cores

/** Start an engine, read baiona.png, stop it: {start, texts, boxes} and the stored record's key and sizes. */
function startAndRead() {
  return async () => {
    const o = await window.Retto.create({ backend: 'wasm' });
    try {
      // The first call after ready: a restored interpreter's site-packages are written after ready (the snapshot
      // holds the heap, not the files), and every call waits for them; cls/rec sessions are made after ready too.
      const files = await o.evalPython(`
import os, sysconfig
site = sysconfig.get_paths()['purelib']
[os.path.exists(os.path.join(site, *p.split('/'))) for p in ('retto/export/__init__.py', 'numpy/__init__.py', 'PIL/Image.py', 'pyclipper.py')]`);
      const modules = 'import sys; sorted(sys.modules)';
      const before = await o.evalPython(modules);
      const r = await o.recognize(await (await fetch('/__testdata__/baiona.png')).arrayBuffer());
      // what the read had to import (compile, in Pyodide) on top of what the start holds
      const imported = (await o.evalPython(modules)).filter((m) => !before.includes(m));
      return { start: o.info.python.start, files, imported, texts: r.lines.map((l) => l.text), boxes: r.lines.map((l) => l.box) };
    } finally {
      o.terminate();
    }
  };
}

/** Change the stored record in place (runs in the page; same origin as the worker's IndexedDB). */
function tamper(how) {
  return new Promise((resolve, reject) => {
    const open = indexedDB.open('retto-python-snapshot', 1);
    open.onerror = () => reject(open.error);
    open.onsuccess = () => {
      const db = open.result;
      const tx = db.transaction('snapshot', 'readwrite');
      const store = tx.objectStore('snapshot');
      const get = store.get('interpreter');
      get.onsuccess = async () => {
        const rec = get.result;
        if (!rec) { reject(new Error('no snapshot stored')); return; }
        const before = { key: rec.key, heap: rec.bytes.size, libs: rec.meta.libs.length, tableLength: rec.meta.tableLength };
        if (how === 'table') rec.meta = { ...rec.meta, tableLength: rec.meta.tableLength + 1 };
        if (how === 'stale') rec.key = `${rec.key}-of-another-build`;
        // the heap with its second half zeroed (the record must be written in this transaction: no await)
        if (how === 'heap') rec.bytes = new Blob([rec.bytes.slice(0, rec.bytes.size >> 1), new Uint8Array(rec.bytes.size - (rec.bytes.size >> 1))]);
        store.put(rec, 'interpreter');
        tx.oncomplete = () => { db.close(); resolve(before); };
      };
    };
  });
}

function storedRecord() {
  return new Promise((resolve, reject) => {
    const open = indexedDB.open('retto-python-snapshot', 1);
    open.onerror = () => reject(open.error);
    open.onsuccess = () => {
      const get = open.result.transaction('snapshot').objectStore('snapshot').get('interpreter');
      get.onsuccess = () => {
        const rec = get.result;
        open.result.close();
        resolve(rec && { key: rec.key, heap: rec.bytes.size, libs: rec.meta.libs.length, tableLength: rec.meta.tableLength });
      };
    };
  });
}

// Starts from an empty profile: the test makes the first snapshot itself.
test.use({ warm: false });

test('the Python snapshot: made cold, restored warm, and rebuilt when stale or damaged', async ({ app }) => {
  await app.open();
  const cold = await app.page.evaluate(startAndRead());
  expect(cold.start).toBe('fresh');
  expect(cold.texts.length).toBeGreaterThan(10);
  expect(cold.files).toEqual([true, true, true, true]);
  // The start holds every module a page's read uses: nothing is left to import (and compile) during a first page.
  expect(cold.imported).toEqual([]);
  const stored = await expect.poll(() => app.page.evaluate(storedRecord), { timeout: 20_000 }).toBeTruthy()
    .then(() => app.page.evaluate(storedRecord));
  expect(stored.libs).toBeGreaterThanOrEqual(2); // numpy's and Pillow's compiled modules at least

  const warm = await app.page.evaluate(startAndRead());
  expect(warm).toEqual({ ...cold, start: 'snapshot' });

  // Each damage is found (the function table's length, the heap's sha256, the build's key), the start goes on
  // fresh with the same result, and the snapshot is made and stored again, whole.
  for (const how of ['table', 'heap', 'stale']) {
    const before = await app.page.evaluate(tamper, how);
    expect(await app.page.evaluate(startAndRead()), how).toEqual({ ...cold, start: 'fresh' });
    await expect.poll(() => app.page.evaluate(storedRecord), { timeout: 20_000 }).toEqual(before);
  }
  expect(await app.page.evaluate(startAndRead()), 'rebuilt').toEqual({ ...cold, start: 'snapshot' });

  // A restored start needs no wheel to be ready: they are held back until it is, then fetched and written before
  // the first call runs (python_runtime.js). A wheel that fails its sha256 then fails that call, by name.
  let release;
  const held = new Promise((resolve) => { release = resolve; });
  const wheelUrl = '**/assets/pyodide/numpy-*.whl';
  await app.context.route(wheelUrl, async (route) => { await held; await route.continue(); });
  const early = await app.page.evaluate(() => window.Retto.create({ backend: 'wasm' })
    .then((o) => { window.heldOcr = o; return o.info.python.start; }));
  expect(early, 'ready with the wheels held back').toBe('snapshot');
  release();
  const read = await app.page.evaluate(async () => {
    const r = await window.heldOcr.recognize(await (await fetch('/__testdata__/baiona.png')).arrayBuffer());
    window.heldOcr.terminate();
    return r.lines.map((l) => l.text);
  });
  expect(read).toEqual(cold.texts);
  await app.context.unroute(wheelUrl);
  const wheelFile = readdirSync(join(DIST, 'assets', 'pyodide')).find((f) => /^numpy-.*\.whl$/.test(f));
  const damagedWheel = readFileSync(join(DIST, 'assets', 'pyodide', wheelFile));
  damagedWheel[damagedWheel.length >> 1] ^= 0xff;
  await app.context.route(wheelUrl, (route) => route.fulfill({ body: damagedWheel, contentType: 'application/octet-stream' }));
  const damaged = await app.page.evaluate(async () => {
    const o = await window.Retto.create({ backend: 'wasm' });
    window.damagedOcr = o;
    try {
      await o.recognize(await (await fetch('/__testdata__/baiona.png')).arrayBuffer());
      return { start: o.info.python.start, code: null };
    } catch (e) {
      return { start: o.info.python.start, code: e.code, message: e.message };
    }
  });
  expect(damaged.start).toBe('snapshot');
  expect(damaged.code, damaged.message).toBe('model_integrity');
  expect(damaged.message).toMatch(/numpy-.*\.whl: sha256/);
  // Served whole again, the same engine fetches the wheels again at its next call and reads.
  await app.context.unroute(wheelUrl);
  const again = await app.page.evaluate(async () => {
    try {
      const r = await window.damagedOcr.recognize(await (await fetch('/__testdata__/baiona.png')).arrayBuffer());
      return r.lines.map((l) => l.text);
    } finally {
      window.damagedOcr.terminate();
    }
  });
  expect(again).toEqual(cold.texts);
});
