// Offline support, page side: register the service worker, relay its precache progress, and offer a reload
// when a new version is installed (the new worker waits, so a page never runs on a mix of versions).
import { formatBytes } from '../shared/format.js';

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
  if (!reg.waiting) onStatus({ state: 'ready', text: 'Works offline: everything is saved on this device.' });
}
