// Offline support, page side: register the service worker, relay its precache progress, and offer a reload
// when a new version is installed (the new worker waits, so a page never runs on a mix of versions). The
// precache holds the app and the default model set; other sets are saved when first used (sw.js).
import { formatBytes } from '../shared/units.js';

/** onStatus({state: 'saving'|'ready'|'update'|'unsupported'|'error', text, loaded?, total?, apply?}) */
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
  if (!reg.waiting) {
    onStatus({ state: 'ready', text: 'Works offline: the app and its models are saved on this device '
      + '(another “Text to read” choice is saved the first time you use it).' });
  }
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
