// A memory snapshot of the Python interpreter with numpy, Pillow and retto already imported (Pyodide 0.27.7's
// experimental _makeSnapshot / _loadSnapshot), kept in IndexedDB, so a warm start neither loads packages nor
// imports them: the interpreter's heap is copied back whole.
//
// What makes it work with compiled extensions (Emscripten 3.1.58, as in Pyodide 0.27.7; a Pyodide update needs
// re-checking these private internals):
// - The wheels are unpacked, not loadPackage'd, so numpy's and Pillow's .so files are loaded lazily by dlopen at
//   import, which records each library's memory base and function-table base in its dlopen handle (a struct in
//   the heap: +8 "loaded" flag, +12 memory base, +16 memory size, +20 table base, +24 table size). After
//   loadPackage the snapshot is refused ("Unexpected hiwire entry at index 6").
// - The heap holds pointers into those libraries' data and function indices into their table slots, but not the
//   libraries' code: on restore each one is instantiated again at its recorded bases, in load order, after the
//   runtime is created and before the snapshot's memory is copied in (which then overwrites what the libraries'
//   own start-up wrote). Without this the first C call fails ("table index is out of bounds").
// - Verified on restore: every part still has its sha256; the function table ends exactly where it ended when
//   the snapshot was made; and a few C calls into numpy and Pillow run. Any mismatch or error drops the snapshot and starts afresh.
// - Python's hash seed is frozen in the snapshot (every start has the same one).
// The record is {key, meta: {libs, tableLength, site, sha256}, bytes: Blob(heap), libs: Blob[] (.so bytes)}, keyed by
// the sha256 of everything in it: Pyodide's core files, every wheel, the retto wheel, the pyclipper shim and the
// import list.

const DB = 'retto-python-snapshot';
const STORE = 'snapshot';
const RECORD = 'interpreter'; // one record: a new build's snapshot replaces the old one
const FORMAT = 'full-2'; // the record's layout and what is imported; a change makes every stored record stale

/** The dlopen handle layout of Emscripten 3.1.58 (struct dso in its libc): byte offsets. */
const HANDLE = { loaded: 8, memoryBase: 12, memorySize: 16, tableBase: 20, tableSize: 24, size: 64 };

/** The sha256 (hex) naming this build's snapshot: every input that shapes the heap. */
export async function snapshotKey(manifest, coreFiles, extra, sha256Hex) {
  const files = Object.entries(manifest.files)
    .filter(([f]) => (f.startsWith('pyodide/') && (coreFiles.includes(f.slice('pyodide/'.length)) || f.endsWith('.whl')))
      || f === manifest.retto_wheel)
    .map(([f, m]) => `${f}:${m.sha256}`).sort();
  return sha256Hex(new TextEncoder().encode([FORMAT, ...files, ...extra].join('\n')));
}

/** Every side module loaded so far, with its bases from its dlopen handle, in load (table) order. Throws when
 * one has no handle (it could not be placed again). */
export function recordLibraries(Module) {
  const libs = [];
  for (const [h, dso] of Object.entries(Module.LDSO.loadedLibsByHandle)) {
    const handle = Number(h);
    if (!handle) continue; // __main__
    const u32 = (off) => Module.HEAPU32[(handle + off) >>> 2];
    libs.push({ name: dso.name, handle, global: Boolean(dso.global), memoryBase: u32(HANDLE.memoryBase),
      memorySize: u32(HANDLE.memorySize), tableBase: u32(HANDLE.tableBase), tableSize: u32(HANDLE.tableSize) });
  }
  const loaded = Object.keys(Module.LDSO.loadedLibsByName).filter((n) => n !== '__main__');
  if (loaded.length !== libs.length) throw new Error(`${loaded.length - libs.length} side modules have no dlopen handle`);
  libs.sort((a, b) => a.tableBase - b.tableBase);
  return { libs, tableLength: Module.wasmTable.length };
}

/** Instantiate the recorded side modules again at their bases (compiled: name -> WebAssembly.Module), into a
 * runtime whose snapshot memory is not copied in yet; throws unless the table ends where it did. */
export function replayLibraries(Module, meta, compiled) {
  // A scratch handle at the top of memory, which the snapshot's heap overwrites right after.
  const scratch = (Module.HEAPU8.length - HANDLE.size * 2) & ~15;
  for (const lib of meta.libs) {
    if (Module.wasmTable.length > lib.tableBase) throw new Error(`function table already past ${lib.name}`);
    Module.HEAPU8.fill(0, scratch, scratch + HANDLE.size);
    Module.HEAPU8[scratch + HANDLE.loaded] = 1; // "already placed": Emscripten takes the bases from the handle
    Module.HEAPU32[(scratch + HANDLE.memoryBase) >>> 2] = lib.memoryBase;
    Module.HEAPU32[(scratch + HANDLE.memorySize) >>> 2] = lib.memorySize;
    Module.HEAPU32[(scratch + HANDLE.tableBase) >>> 2] = lib.tableBase;
    Module.HEAPU32[(scratch + HANDLE.tableSize) >>> 2] = lib.tableSize;
    const dso = Module.newDSO(lib.name, lib.handle, 'loading'); // registered by name and by its real handle
    dso.refcount = Infinity;
    dso.global = lib.global;
    const localScope = lib.global ? null : {};
    const exports = Module.loadWebAssemblyModule(compiled[lib.name],
      { global: lib.global, nodelete: true, loadAsync: false }, lib.name, localScope, scratch);
    if (lib.global) Module.mergeLibSymbols(exports, lib.name);
    dso.exports = exports;
  }
  if (Module.wasmTable.length !== meta.tableLength) {
    throw new Error(`function table has ${Module.wasmTable.length} entries, the snapshot ${meta.tableLength}`);
  }
}

// IndexedDB rather than Cache Storage: the service worker owns Cache Storage (one cache per app version).
function openDb() {
  return new Promise((resolve, reject) => {
    const req = indexedDB.open(DB, 1);
    req.onupgradeneeded = () => req.result.createObjectStore(STORE);
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
}

async function transact(mode, action) {
  const db = await openDb();
  try {
    return await new Promise((resolve, reject) => {
      const tx = db.transaction(STORE, mode);
      const req = action(tx.objectStore(STORE));
      tx.oncomplete = () => resolve(req.result);
      tx.onerror = () => reject(tx.error);
      tx.onabort = () => reject(tx.error);
    });
  } finally {
    db.close();
  }
}

const storageUsable = () => typeof indexedDB !== 'undefined';

/** The stored snapshot when it was made from this build's files: {meta, heap: Uint8Array, libs: {name: bytes},
 * intact: Promise} (intact rejects unless every part still has the sha256 it was stored with: a damaged heap
 * could make the restored interpreter loop instead of fail; it is checked off the main path, while the runtime
 * loads), else null (none, another build's, or unreadable). */
export async function loadSnapshot(key, sha256Hex) {
  if (!storageUsable()) return null;
  try {
    const rec = await transact('readonly', (store) => store.get(RECORD));
    if (rec?.key !== key) return null;
    const heap = new Uint8Array(await rec.bytes.arrayBuffer());
    const parts = await Promise.all(rec.meta.libs.map(async (l, i) => [l, new Uint8Array(await rec.libs[i].arrayBuffer())]));
    const intact = Promise.all([[rec.meta, heap], ...parts].map(async ([m, bytes]) => {
      if (await sha256Hex(bytes) !== m.sha256) throw new Error(`${m.name ?? 'the heap'} is damaged (sha256 differs)`);
    }));
    intact.catch(() => {}); // awaited by the restore
    return { meta: rec.meta, heap, libs: Object.fromEntries(parts.map(([l, b]) => [l.name, b])), intact };
  } catch {
    return null; // storage blocked, evicted or a record of another shape: start the slow way
  }
}

/** Keep this build's snapshot (replacing any older one), with the sha256 of each part. Not awaited by the boot. */
export async function storeSnapshot(key, meta, heap, libBytes, sha256Hex) {
  if (!storageUsable()) return;
  const bytes = new Blob([heap]); // copies now: the heap goes on changing
  const libs = meta.libs.map((l) => new Blob([libBytes[l.name]]));
  try {
    const record = { key, bytes, libs, meta: { ...meta, sha256: await sha256Hex(heap),
      libs: await Promise.all(meta.libs.map(async (l) => ({ ...l, sha256: await sha256Hex(libBytes[l.name]) }))) } };
    await transact('readwrite', (store) => store.put(record, RECORD));
  } catch { /* quota: next time again */ }
}

export async function dropSnapshot() {
  if (storageUsable()) await transact('readwrite', (store) => store.delete(RECORD)).catch(() => {});
}
