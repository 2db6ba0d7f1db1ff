// Offline support, page side: register the service worker, relay its precache progress, and offer a reload
// when a new version is installed (the new worker waits, so a page never runs on a mix of versions). The
// precache holds the app and the default model set; other sets are saved when first used (sw.js). The first
// save is announced with its size and a "Keep offline" offer (navigator.storage.persist), once. Files shared to
// the installed app or opened with it arrive here too (receiveFiles).
import { formatBytes } from '../shared/units.js';

/** onStatus({state: 'saving'|'ready'|'update'|'unsupported'|'error', text, loaded?, total?, apply?, keep?}):
 *  apply() reloads into a waiting version; keep() (first save only) asks to keep the copy, resolves to words. */
export async function setUpOffline(onStatus) {
  if (!('serviceWorker' in navigator)) {
    onStatus({ state: 'unsupported', text: 'This browser cannot keep the app for offline use.' });
    return;
  }
  let installed = false; // progress messages can arrive after `ready`: don't let them undo it
  navigator.serviceWorker.addEventListener('message', (ev) => {
    const m = ev.data ?? {};
    if (m.type === 'precache-progress' && !installed) {
      onStatus({ state: 'saving', loaded: m.loaded, total: m.total,
        text: `Saving for offline use: ${formatBytes(m.loaded)} of ${formatBytes(m.total)}` });
    } else if (m.type === 'precache-error') {
      onStatus({ state: 'error', text: `Could not save the app for offline use: ${m.message}` });
    }
  });
  navigator.serviceWorker.startMessages();
  let reloading = false;
  navigator.serviceWorker.addEventListener('controllerchange', () => {
    // First install: the worker claims this page (same version), nothing to do. Update: reload into it.
    if (updating && !reloading) { reloading = true; location.reload(); }
  });
  let updating = false;
  const reg = await navigator.serviceWorker.register('./sw.js', { scope: './' });
  const announceWaiting = (worker) => onStatus({
    state: 'update', text: 'A new version is ready.',
    apply: () => { updating = true; worker.postMessage({ type: 'skip-waiting' }); },
  });
  if (reg.waiting && navigator.serviceWorker.controller) announceWaiting(reg.waiting);
  reg.addEventListener('updatefound', () => {
    const fresh = reg.installing;
    fresh?.addEventListener('statechange', () => {
      if (fresh.state === 'installed' && navigator.serviceWorker.controller) announceWaiting(fresh);
      if (fresh.state === 'redundant' && !reg.active) onStatus({ state: 'error', text: 'Offline copy failed; the app still works online.' });
    });
  });
  await navigator.serviceWorker.ready;
  installed = true;
  if (reg.waiting) return;
  if (localStorage.getItem(OFFERED_KEY)) {
    onStatus({ state: 'ready', text: 'Works offline: the app and its models are saved on this device '
      + '(another “Text to read” choice is saved the first time you use it).' });
    return;
  }
  // The first time: saving tens of MB must not be silent. Say how much, and offer to keep it (once: the offer
  // is remembered, so later visits are not asked again).
  const bytes = await offlineSize();
  localStorage.setItem(OFFERED_KEY, new Date().toISOString());
  onStatus({ state: 'ready', text: `Saved for offline use: ${formatBytes(bytes)}.`, bytes, keep: keepOffline });
}

const OFFERED_KEY = 'retto.keep-offline-offered';
const SHARED_CACHE = 'shared-files'; // sw.js writes it (not 'retto-…': those are the versioned app caches)

/** Bytes the offline copy holds (the service worker counts its cache: precached and saved-on-use files). */
async function offlineSize() {
  const reg = await navigator.serviceWorker.ready;
  const channel = new MessageChannel();
  const answer = new Promise((resolve) => { channel.port1.onmessage = (ev) => resolve(ev.data.bytes); });
  reg.active.postMessage({ type: 'offline-size' }, [channel.port2]);
  return answer;
}

/** "Keep offline": ask the browser not to clear the offline copy when space runs low; its answer in words. */
async function keepOffline() {
  const granted = await navigator.storage?.persist?.().catch(() => false);
  return granted ? 'Kept: the browser will not clear the offline copy to free up space.'
    : 'The browser decides: it did not promise to keep the offline copy and may clear it when space runs low.';
}

/** Files handed to the page from outside: the Share menu (manifest share_target: the service worker stores the
 *  POSTed files in the 'shared-files' cache and opens the page with ?shared=N) and "Open with" (manifest
 *  file_handlers: window.launchQueue, which Chromium gives only to an installed app). onFiles(File[], {shared}):
 *  shared files are the page's to confirm before reading (a share arrives without a click in the page). */
export async function receiveFiles(onFiles) {
  if ('launchQueue' in window) {
    window.launchQueue.setConsumer(async ({ files }) => {
      const opened = await Promise.all((files ?? []).map((handle) => handle.getFile()));
      if (opened.length) onFiles(opened);
    });
  }
  const url = new URL(location.href);
  if (!url.searchParams.has('shared') || !('caches' in window)) return;
  url.searchParams.delete('shared');
  window.history.replaceState(null, '', url); // a reload must not take the same files again
  const cache = await caches.open(SHARED_CACHE);
  const files = [];
  for (const request of await cache.keys()) { // in the order they were shared
    const res = await cache.match(request);
    const name = decodeURIComponent(res.headers.get('X-File-Name') ?? 'shared');
    files.push(new File([await res.blob()], name, { type: res.headers.get('Content-Type') ?? '' }));
    await cache.delete(request);
  }
  if (files.length) onFiles(files, { shared: true });
}

/** Make sure the set the page runs on is in the offline cache. The service worker saves a set's files as the
 *  OCR worker fetches them, but a set loaded before it was active (first visit, still installing) went past it. */
export function saveModelSetOffline(name) {
  if (!name || !('serviceWorker' in navigator)) return;
  navigator.serviceWorker.ready.then((reg) => reg.active?.postMessage({ type: 'cache-model-set', set: name }));
}

/** After a feature loaded on first use worked (a PDF read: 'pdfjs'; a PDF exported: 'export'), save all of its
 *  files for offline use, not just the ones that first use fetched (another PDF may need other CMaps/fonts). */
export function saveGroupOffline(group) {
  if (!('serviceWorker' in navigator)) return;
  navigator.serviceWorker.ready.then((reg) => reg.active?.postMessage({ type: 'cache-group', group }));
}
