// A memory snapshot of the freshly started Python interpreter (Pyodide 0.27.7's experimental _makeSnapshot /
// _loadSnapshot; 21 MB), kept in IndexedDB, so a later visit skips the interpreter's own start-up.
// Only the bare interpreter: measured here, a snapshot taken after loadPackage(numpy, Pillow) is refused
// ("Unexpected hiwire entry"), and one taken after unpacking their wheels and importing them loads but crashes at
// the first C call ("table index is out of bounds": the side modules' function tables are not restored). So
// numpy, Pillow and retto are still loaded after the snapshot, on every start.
// It is stored with the sha256 of every Pyodide core file and wheel, so a new build never restores an old heap.

const DB = 'retto-python-snapshot';
const STORE = 'snapshot';
const RECORD = 'interpreter'; // one record: a new build's snapshot replaces the old one

/** A string naming this build's Pyodide: the sha256 of every core file and wheel in the asset manifest. */
export function snapshotKey(manifest, coreFiles) {
  return Object.entries(manifest.files)
    .filter(([f]) => f.startsWith('pyodide/') && (coreFiles.includes(f.slice('pyodide/'.length)) || f.endsWith('.whl')))
    .map(([f, m]) => `${f}:${m.sha256}`).sort().join(',');
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

/** The stored snapshot's bytes when it was made from this build's files, else null. */
export async function loadSnapshot(key) {
  if (!storageUsable()) return null;
  try {
    const rec = await transact('readonly', (store) => store.get(RECORD));
    return rec?.key === key ? new Uint8Array(await rec.bytes.arrayBuffer()) : null;
  } catch {
    return null; // storage blocked or evicted: start the slow way
  }
}

/** Keep this build's snapshot (replacing any older one). Not awaited by the boot. */
export async function storeSnapshot(key, bytes) {
  if (!storageUsable()) return;
  try {
    await transact('readwrite', (store) => store.put({ key, bytes: new Blob([bytes]) }, RECORD));
  } catch { /* quota: next time again */ }
}

export async function dropSnapshot() {
  if (storageUsable()) await transact('readwrite', (store) => store.delete(RECORD)).catch(() => {});
}
