// Retto's service worker: the app (shell + Pyodide + onnxruntime-web + the default model set) in one versioned
// cache. The build (vite_plugin_pwa.js) prepends `const PRECACHE = {version, defaultModelSet, files: [{url,
// sha256, size}], onDemand: [{url, sha256, size, sets}]}`: `files` are saved at install; `onDemand` (the other
// model sets, pdf.js and the PDF export's wheels) are saved into the same cache the first time the OCR worker
// fetches them, so a set (or PDFs) used once works offline afterwards. Every file is verified against its
// sha256 before it is stored. A new build means new bytes in this script, so the browser installs the new
// version beside the old one (carrying over the on-demand files that did not change); it takes over only when
// no page runs the old one (or the person clicks "Reload to update"), then deletes the old cache: a page never
// sees a mix of versions. It also receives the Share menu's POST (manifest share_target; see receiveShare).
/* global PRECACHE */
const CACHE_PREFIX = 'retto-';
const CACHE_NAME = `${CACHE_PREFIX}${PRECACHE.version}`;
const PARALLEL = 4;
const scope = new URL(self.registration.scope);
const absolute = (rel) => new URL(rel, scope).href;
const PRECACHED = new Set(PRECACHE.files.map((f) => absolute(f.url)));
const ON_DEMAND = new Map(PRECACHE.onDemand.map((f) => [absolute(f.url), f]));

async function tell(message) {
  for (const client of await self.clients.matchAll({ includeUncontrolled: true, type: 'window' })) {
    client.postMessage(message);
  }
}

async function sha256Hex(buffer) {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', buffer));
  return Array.from(digest, (b) => b.toString(16).padStart(2, '0')).join('');
}

/** Read a body stream into a Response to store (same headers, so COOP/COEP and content types survive), once
 *  it matches the size and sha256 the build recorded; throws otherwise. */
async function verifiedResponse(file, stream, headers, onBytes = () => {}) {
  // The build recorded every size: read straight into a buffer of that size (a longer body is corrupt too).
  const body = new Uint8Array(file.size);
  let offset = 0;
  const reader = stream.getReader();
  for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
    if (offset + chunk.value.length > body.length) throw new Error(`${file.url}: larger than the build recorded`);
    body.set(chunk.value, offset);
    offset += chunk.value.length;
    onBytes(chunk.value.length);
  }
  const got = await sha256Hex(offset === body.length ? body : body.subarray(0, offset));
  if (got !== file.sha256) throw new Error(`${file.url}: sha256 ${got} does not match the build manifest`);
  // The body is stored decoded: drop the encoding of a pre-compressed answer (scripts/build/precompress.mjs), or the
  // page would be told to decode it again and given the compressed length.
  const stored = new Headers(headers);
  stored.delete('Content-Encoding');
  stored.delete('Content-Length');
  return new Response(body, { status: 200, statusText: 'OK', headers: stored });
}

/** Fetch one file, counting bytes as they arrive; resolves to a verified Response to store. */
async function fetchVerified(file, onBytes) {
  // 'no-cache' revalidates: on a first visit the page has just downloaded these files, so most come back as
  // 304 from the HTTP cache instead of being downloaded twice.
  const res = await fetch(absolute(file.url), { cache: 'no-cache' });
  if (!res.ok) throw new Error(`${file.url}: HTTP ${res.status}`);
  return verifiedResponse(file, res.body, res.headers, onBytes);
}

/** On-demand files an older version saved (a set used before this update) move into the new cache when their
 *  bytes are still what this build recorded: an update does not make a used set need the network again. */
async function carryOverOnDemand(cache) {
  const older = (await caches.keys()).filter((n) => n.startsWith(CACHE_PREFIX) && n !== CACHE_NAME);
  for (const file of PRECACHE.onDemand) {
    const url = absolute(file.url);
    if (await cache.match(url)) continue;
    for (const name of older) {
      const hit = await (await caches.open(name)).match(url);
      if (!hit) continue;
      try {
        await cache.put(url, await verifiedResponse(file, hit.body, hit.headers));
        break;
      } catch { /* changed in this build: it will be fetched again when used */ }
    }
  }
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
  await carryOverOnDemand(cache);
}

/** Save one on-demand file from a response the page is reading (a tee of its body), if it verifies. */
async function saveOnDemand(file, stream, headers) {
  const cache = await caches.open(CACHE_NAME);
  await cache.put(absolute(file.url), await verifiedResponse(file, stream, headers));
}

/** Save a model set's files now (the page asks for the set it runs on: it may have been loaded before this
 *  worker was active). Its WebGL variants are saved only when fetched: most never run on WebGL. */
async function saveModelSet(name) {
  const cache = await caches.open(CACHE_NAME);
  for (const file of PRECACHE.onDemand) {
    if (!file.sets.includes(name) || /\/webgl\//.test(file.url) || await cache.match(absolute(file.url))) continue;
    await cache.put(absolute(file.url), await fetchVerified(file, () => {}));
  }
  tell({ type: 'model-set-saved', set: name });
}

/** Save every file of an on-use group ('pdfjs', 'export', 'xlsx', 'tables': the layout and table models) once the
 *  page has used it. */
async function saveGroup(group) {
  const cache = await caches.open(CACHE_NAME);
  for (const file of PRECACHE.onDemand) {
    if (file.group !== group || await cache.match(absolute(file.url))) continue;
    await cache.put(absolute(file.url), await fetchVerified(file, () => {}));
  }
  tell({ type: 'group-saved', group });
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
  if (event.data?.type === 'offline-size') event.waitUntil(offlineBytes().then((bytes) => event.ports[0]?.postMessage({ bytes })));
  if (event.data?.type === 'cache-group') {
    event.waitUntil(saveGroup(String(event.data.group)).catch((e) => tell({ type: 'group-error', group: event.data.group, message: e.message })));
  }
  if (event.data?.type === 'cache-model-set' && event.data.set !== PRECACHE.defaultModelSet) {
    event.waitUntil(saveModelSet(String(event.data.set)).catch((e) => tell({ type: 'model-set-error', set: event.data.set, message: e.message })));
  }
});

/** The cache key for a request: app files by path (the query is ignored), folders by their index.html. */
function cacheKey(request) {
  const url = new URL(request.url);
  if (url.origin !== scope.origin) return null;
  url.search = '';
  url.hash = '';
  if (url.pathname.endsWith('/')) url.pathname += 'index.html';
  return PRECACHED.has(url.href) || ON_DEMAND.has(url.href) ? url.href : null;
}

/** What the offline copy holds, in bytes: every file of this version's cache, by the sizes the build recorded. */
async function offlineBytes() {
  const cache = await caches.open(CACHE_NAME);
  const sizes = new Map([...PRECACHE.files, ...PRECACHE.onDemand].map((f) => [absolute(f.url), f.size]));
  return (await cache.keys()).reduce((sum, r) => sum + (sizes.get(r.url) ?? 0), 0);
}

// The Share menu (manifest share_target: POST multipart, field "files"): keep the shared files in a cache the
// page empties, and open the page, which queues them (pwa.js receiveFiles). 303: the page is fetched with GET.
// Only this app's own pages and the browser itself (the system share sheet: Sec-Fetch-Site "none") may share:
// a form on another site, even another port of the same host, is refused before its body is read, so visiting
// a hostile page cannot queue anything. At most SHARE_MAX_FILES files and SHARE_MAX_BYTES in all (docs/guides/pwa-and-hosting.md).
const SHARE_ACTION = absolute('share-target');
const SHARED_CACHE = 'shared-files';
const SHARE_MAX_FILES = 20;
const SHARE_MAX_BYTES = 100 * 1024 * 1024;

/** Why a share POST is refused (null: it is from this origin, or from the browser's own share sheet). */
function shareRefusal(request) {
  const site = request.headers.get('Sec-Fetch-Site');
  if (site && site !== 'same-origin' && site !== 'none') return `it came from another site (${site})`;
  const origin = request.headers.get('Origin');
  if (origin && origin !== self.location.origin) return `it came from ${origin}`;
  if (request.referrer && new URL(request.referrer).origin !== self.location.origin) {
    return `it came from ${new URL(request.referrer).origin}`;
  }
  return null;
}

/** The request's body, or null past `limit` bytes (read as it arrives: a huge body is never held whole). */
async function bodyUpTo(request, limit) {
  const declared = Number(request.headers.get('Content-Length'));
  if (declared > limit) return null;
  const reader = request.body.getReader();
  const parts = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      return null;
    }
    parts.push(value);
  }
  return new Blob(parts);
}

function refused(status, why) {
  return new Response(`Retto did not take the shared files: ${why}.`, { status,
    headers: { 'Content-Type': 'text/plain;charset=utf-8' } });
}

async function receiveShare(request) {
  const refusal = shareRefusal(request);
  if (refusal) return refused(403, refusal);
  // Multipart framing adds a few hundred bytes per file to the files' own size.
  const body = request.body ? await bodyUpTo(request, SHARE_MAX_BYTES + 64 * 1024) : new Blob([]);
  if (!body) return refused(413, `more than ${SHARE_MAX_BYTES / 1024 / 1024} MB were shared at once`);
  const form = await new Response(body, { headers: { 'Content-Type': request.headers.get('Content-Type') ?? '' } })
    .formData().catch(() => null);
  if (!form) return refused(400, 'the shared data was not a multipart form');
  const files = form.getAll('files').filter((f) => typeof f !== 'string');
  if (files.length > SHARE_MAX_FILES) return refused(413, `${files.length} files were shared; the limit is ${SHARE_MAX_FILES}`);
  if (files.reduce((sum, f) => sum + f.size, 0) > SHARE_MAX_BYTES) {
    return refused(413, `more than ${SHARE_MAX_BYTES / 1024 / 1024} MB were shared at once`);
  }
  const cache = await caches.open(SHARED_CACHE);
  for (const [i, file] of files.entries()) {
    await cache.put(absolute(`shared-files/${Date.now()}-${i}`), new Response(file, { headers: {
      'Content-Type': file.type || 'application/octet-stream', 'X-File-Name': encodeURIComponent(file.name) } }));
  }
  return Response.redirect(absolute(`./?shared=${files.length}`), 303);
}

self.addEventListener('fetch', (event) => {
  if (event.request.method === 'POST' && event.request.url.split('?')[0] === SHARE_ACTION) {
    event.respondWith(receiveShare(event.request));
    return;
  }
  if (event.request.method !== 'GET') return;
  const key = cacheKey(event.request);
  if (!key) return; // not part of the app (e.g. an image URL): the network as usual
  event.respondWith((async () => {
    const cache = await caches.open(CACHE_NAME);
    const hit = await cache.match(key);
    if (hit) return hit;
    const res = await fetch(event.request); // precached: the cache was cleared under us; on demand: first use
    const file = ON_DEMAND.get(key);
    if (!file || !res.ok || !res.body || event.request.headers.has('range')) return res;
    // The page reads one branch as it arrives (its byte progress stays live); the other is verified and saved.
    const [forPage, forCache] = res.body.tee();
    event.waitUntil(saveOnDemand(file, forCache, res.headers).catch(() => {})); // a bad file is just not saved
    return new Response(forPage, { status: res.status, statusText: res.statusText, headers: res.headers });
  })());
});
