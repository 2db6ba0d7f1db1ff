// Retto's service worker: the whole app (shell + Pyodide + onnxruntime-web + models) in one versioned cache.
// The build (vite_plugin_pwa.js) prepends `const PRECACHE = {version, files: [{url, sha256, size}]}`; every
// file is verified against its sha256 before it is stored. A new build means new bytes in this script, so the
// browser installs the new version beside the old one; it takes over only when no page runs the old one (or
// the person clicks "Reload to update"), then deletes the old cache: a page never sees a mix of versions.
/* global PRECACHE */
const CACHE_PREFIX = 'retto-';
const CACHE_NAME = `${CACHE_PREFIX}${PRECACHE.version}`;
const PARALLEL = 4;
const scope = new URL(self.registration.scope);
const absolute = (rel) => new URL(rel, scope).href;
const PRECACHED = new Set(PRECACHE.files.map((f) => absolute(f.url)));

async function tell(message) {
  for (const client of await self.clients.matchAll({ includeUncontrolled: true, type: 'window' })) {
    client.postMessage(message);
  }
}

async function sha256Hex(buffer) {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', buffer));
  return Array.from(digest, (b) => b.toString(16).padStart(2, '0')).join('');
}

/** Fetch one file, counting bytes as they arrive; returns a Response to store (same status and headers, so
 *  COOP/COEP and content types survive) once the body matches its sha256. */
async function fetchVerified(file, onBytes) {
  // 'no-cache' revalidates: on a first visit the page has just downloaded these files, so most come back as
  // 304 from the HTTP cache instead of being downloaded twice.
  const res = await fetch(absolute(file.url), { cache: 'no-cache' });
  if (!res.ok) throw new Error(`${file.url}: HTTP ${res.status}`);
  // The build recorded every size: read straight into a buffer of that size (a longer body is corrupt too).
  const body = new Uint8Array(file.size);
  let offset = 0;
  const reader = res.body.getReader();
  for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
    if (offset + chunk.value.length > body.length) throw new Error(`${file.url}: larger than the build recorded`);
    body.set(chunk.value, offset);
    offset += chunk.value.length;
    onBytes(chunk.value.length);
  }
  const got = await sha256Hex(body);
  if (got !== file.sha256) throw new Error(`${file.url}: sha256 ${got} does not match the build manifest`);
  return new Response(body, { status: 200, statusText: 'OK', headers: res.headers });
}

async function precache() {
  const cache = await caches.open(CACHE_NAME);
  const total = PRECACHE.files.reduce((a, f) => a + f.size, 0);
  let loaded = 0;
  let lastTold = 0;
  const progress = (n) => {
    loaded += n;
    const now = Date.now();
    if (now - lastTold > 200 || loaded === total) {
      lastTold = now;
      tell({ type: 'precache-progress', loaded, total, version: PRECACHE.version });
    }
  };
  const todo = [];
  for (const f of PRECACHE.files) {
    // An interrupted install left verified entries in this version's cache: keep them.
    if (await cache.match(absolute(f.url))) progress(f.size);
    else todo.push(f);
  }
  const next = () => todo.shift();
  await Promise.all(Array.from({ length: PARALLEL }, async () => {
    for (let f = next(); f; f = next()) {
      let counted = 0;
      try {
        const response = await fetchVerified(f, (n) => { counted += n; progress(n); });
        await cache.put(absolute(f.url), response);
      } catch (e) {
        progress(-counted);
        throw e;
      }
    }
  }));
  tell({ type: 'precache-progress', loaded: total, total, version: PRECACHE.version });
}

self.addEventListener('install', (event) => {
  // If anything is missing or corrupt the install fails: the previous version (if any) keeps serving.
  event.waitUntil(precache().catch((e) => {
    tell({ type: 'precache-error', message: e.message });
    throw e;
  }));
});

self.addEventListener('activate', (event) => {
  event.waitUntil((async () => {
    for (const name of await caches.keys()) {
      if (name.startsWith(CACHE_PREFIX) && name !== CACHE_NAME) await caches.delete(name);
    }
    await self.clients.claim(); // first install: serve the page that is already open (same version)
  })());
});

self.addEventListener('message', (event) => {
  if (event.data?.type === 'skip-waiting') self.skipWaiting();
  if (event.data?.type === 'version') event.source?.postMessage({ type: 'version', version: PRECACHE.version, cache: CACHE_NAME });
});

/** The cache key for a request: precached files by path (the query is ignored), folders by their index.html. */
function cacheKey(request) {
  const url = new URL(request.url);
  if (url.origin !== scope.origin) return null;
  url.search = '';
  url.hash = '';
  if (url.pathname.endsWith('/')) url.pathname += 'index.html';
  return PRECACHED.has(url.href) ? url.href : null;
}

self.addEventListener('fetch', (event) => {
  if (event.request.method !== 'GET') return;
  const key = cacheKey(event.request);
  if (!key) return; // not part of the app (e.g. an image URL): the network as usual
  event.respondWith((async () => {
    const cache = await caches.open(CACHE_NAME);
    const hit = await cache.match(key);
    return hit ?? fetch(event.request); // a miss means the cache was cleared under us
  })());
});
