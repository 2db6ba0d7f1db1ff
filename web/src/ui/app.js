// The Retto OCR page: wires inputs (drop, pick, paste) to the queue, the queue to the shared engine, and the
// JSON results to the views. Data flows one way: bytes -> worker (py/retto) -> JSON -> UI.
import { acquireEngine, releaseEngine } from '../shared/engine.js';
import { FILE_ACCEPT, filesFromClipboard, filesFromDataTransfer, filesFromInput, looksReadable } from '../shared/input_files.js';
import { downloadAllPdf, downloadBatch, downloadOne, downloadTable, downloadZip, plainText, tableText } from './downloads.js';
import { History } from './history.js';
import { explainError } from '../shared/error_text.js';
import { h } from '../shared/dom.js';
import { plural } from '../shared/units.js';
import { OcrQueue, isRunning } from './queue.js';
import { QueueView } from './queue_view.js';
import { DetailView } from './detail_view.js';
import { TablesView } from './tables_view.js';
import { loadingText, statusInWords, technicalDetails } from '../shared/engine_text.js';
import { BACKEND_CHOICES, GPU_BACKENDS, isBackendChoice } from '../shared/backends_list.js';
import { receiveFiles, saveGroupOffline, saveModelSetOffline, setUpOffline } from './pwa.js';
import { ModelSetChoice } from './model_set_choice.js';
import { backendForSet, listModelSets } from '../shared/model_sets.js';

const $ = (id) => document.getElementById(id);
const ASSET_BASE = new URL('assets/', document.baseURI).href;

const state = { engineKey: null, engine: null, info: null, selected: null };
let markStarted;
const started = new Promise((resolve) => { markStarted = resolve; }); // images added before the first boot wait

// ---- engine -------------------------------------------------------------------------------------------
/** (Re)start the engine for the chosen backend and model set. A switch ends the old worker at once; the job it
 *  cuts off and the waiting ones run on the new engine (the page is not reloaded).
 *  fallback: {from, reason} when restarting on 'auto' because the chosen graphics-card backend cannot run here. */
function startEngine(fallback = null) {
  if (state.engineKey) {
    queue.engineRestarted();
    releaseEngine(state.engineKey, { now: true });
  }
  const set = sets.current; // null if the list could not be read: the build's default set
  const chosen = backendForSet($('backend').value, set).backend;
  const backend = fallback ? 'auto' : chosen;
  sets.describe($('backend').value);
  state.info = null;
  showDetails([]);
  setEngineState('loading', 'Starting…'); // the load band below says which phase, in words
  const t0 = performance.now();
  $('loading').dataset.state = 'loading';
  showLoading({ stage: 'load', phase: 'download', loaded: 0, total: 0 });
  const { key, engine } = acquireEngine({ backend, assetBase: ASSET_BASE, models: set?.name, config: engineConfig() },
    showLoading);
  state.engineKey = key;
  state.engine = engine;
  markStarted();
  engine.then((ocr) => {
    if (state.engine !== engine) return;
    state.info = ocr.info;
    endLoading('ready', `OCR engine ready in ${((performance.now() - t0) / 1000).toFixed(1)} s.`);
    const usesGpu = Object.values(ocr.info.backend).some((b) => GPU_BACKENDS.has(b));
    const fellBack = !fallback ? '' : usesGpu ? ` “${fallback.from}” could not be used here, so OCR runs on what works `
      + '(chosen automatically).' : ' The graphics card could not be used here, so OCR runs on the CPU.';
    setEngineState('ready', fellBack ? `${statusInWords(ocr.info)}.${fellBack}` : statusInWords(ocr.info));
    showDetails(technicalDetails(ocr.info, fallback));
    if (state.selected) details.show(state.selected, state.info);
    if (import.meta.env.PROD) saveModelSetOffline(ocr.info.modelSet?.name);
  }, (err) => {
    if (state.engine !== engine) return;
    endLoading('error', 'The OCR engine could not start: see above.');
    const why = explainError(err);
    // A graphics-card backend that cannot run here must not leave the engine down: fall back by itself.
    if (!fallback && GPU_BACKENDS.has(backend) && why.code === 'backend_unavailable') {
      startEngine({ from: labelOf(backend), reason: `${why.code}: ${why.detail}` });
      return;
    }
    setEngineState('error', `${why.title} ${why.advice}`);
    showDetails([...(fallback ? [[`Fallback from ${fallback.from}`, fallback.reason]] : []), ['Error', `${why.code}: ${why.detail}`]]);
  });
}

/** The settings object the engine is made with (Retto.create's config, the CLI's --config): the page's one
 *  setting is "Tables" (layout.tables, with layout.regions when on for every page). Their models are fetched
 *  only when a page needs them. */
const TABLES_CONFIG = {
  auto: { layout: { tables: 'auto' } },
  on: { layout: { regions: true, tables: true } },
  off: { layout: { tables: false } },
};
function engineConfig() {
  return TABLES_CONFIG[$('tables-mode').value];
}

function setEngineState(s, text) {
  $('engine').dataset.state = s;
  document.body.dataset.engine = s; // app.css: rows added meanwhile say they wait for the engine
  $('backend-info').textContent = text;
}

/** The "Technical details" disclosure: [term, description] rows (nothing while the engine starts). */
function showDetails(rows) {
  $('engine-details').hidden = rows.length === 0;
  $('engine-details-list').replaceChildren(...rows.flatMap(([term, text]) => [h('dt', {}, term), h('dd', {}, text)]));
}

const labelOf = (backend) => BACKEND_CHOICES.find((c) => c.value === backend)?.label ?? backend;

/** The load band (never hidden, so the page does not jump): the phase in words, and how many files wait. */
function showLoading(ev) {
  if (ev.stage !== 'load' || $('loading').dataset.state === 'ready') return;
  const waiting = queue.jobs.filter((j) => j.status === 'waiting' || isRunning(j)).length;
  $('loading').dataset.state = 'loading';
  $('loading-text').textContent = ev.total ? loadingText(ev, sets.current?.label)
    + (waiting ? ` · ${plural(waiting, 'file')} will be read once it is ready` : '') : 'Loading the OCR engine…';
  $('loading-bar').max = ev.total || 1;
  $('loading-bar').value = ev.loaded;
}

function endLoading(s, text) {
  $('loading').dataset.state = s;
  $('loading-text').textContent = text;
}

// ---- queue and views -------------------------------------------------------------------------------------
const queue = new OcrQueue(currentEngine);

/** The engine for the next job: if the one awaited fails and is replaced meanwhile (the fallback from a
 *  graphics-card backend, or a switch), the replacement; a failure of the current engine fails the job. */
async function currentEngine() {
  await started;
  for (;;) {
    const engine = state.engine;
    try {
      return await engine;
    } catch (err) {
      if (state.engine === engine) throw err;
    }
  }
}

const queueView = new QueueView($('queue'), $('queue-empty'), {
  select: (job) => select(job, true),
  cancel: (job) => queue.cancel(job),
  retry: (job) => queue.retry(job),
  remove: (job) => queue.remove(job),
}, $('queue-title'));
const sets = new ModelSetChoice({ select: $('model-set'), summary: $('model-set-summary'), note: $('model-set-note') },
  () => startEngine());
const details = new DetailView({
  title: $('result-title'), status: $('result-status'), body: $('result-body'), actions: $('result-actions'),
  count: $('line-count'), timings: $('timings'), timingsList: $('timings-list'), figure: $('figure'),
  lines: $('lines'), showBoxes: $('show-boxes'), readWith: $('result-set'),
  pageNav: $('page-nav'), pagePrev: $('page-prev'), pageNext: $('page-next'), pageSelect: $('page-select'),
  pdfButton: $('download-pdf'),
}, {
  onCopyLine: (text) => copy(text, 'Line copied'),
  modelSetLabel: (name) => sets.labelOf(name),
  tables: new TablesView({ panel: $('tables-panel'), list: $('tables'), count: $('table-count') },
    { onAction: (format, index) => tableAction(format, index) }),
});

function select(job, byUser = false) {
  state.selected = job;
  queueView.select(job);
  details.show(job, state.info);
  if (byUser && window.matchMedia('(max-width: 760px)').matches) $('results').focus(); // phone: jump to it
}

queue.addEventListener('change', (ev) => {
  const job = ev.detail;
  if (import.meta.env.PROD && job.status === 'done' && job.result.pages) saveGroupOffline('pdfjs');
  // A page the layout model ran on (tables on, or a table page with "auto"): keep the layout and table models
  // offline. The service worker saves them as they are fetched only when it already controlled the OCR worker
  // (not when the setting was on at first visit). (Not `p.regions`: every result has that list, empty or not.)
  if (import.meta.env.PROD && job.status === 'done'
      && [job.result, ...(job.result.pages ?? [])].some((p) => p.timings?.infer?.layout != null)) {
    saveGroupOffline('tables');
  }
  queueView.update(job);
  // The first image added is shown at once; after that the person picks what to look at.
  if (!state.selected) select(job);
  else if (job === state.selected) details.show(job, state.info);
  updateBulkActions();
  saveToHistory(job);
});
queue.addEventListener('reset', (ev) => {
  queueView.reset(queue.jobs);
  if (!queue.jobs.includes(state.selected)) { state.selected = null; details.show(null); }
  if (!state.selected) { // after a reload: show the latest result from history
    const latest = queue.jobs.findLast((j) => j.status === 'done');
    if (latest) select(latest);
  }
  updateBulkActions();
  for (const job of ev.detail?.gone ?? []) historyStore.remove(job).catch(historyFailed);
});
queue.addEventListener('remove', ({ detail: { job, index } }) => {
  queueView.remove(job, index);
  if (job === state.selected) { state.selected = null; details.show(null); }
  updateBulkActions();
  historyStore.remove(job).catch(historyFailed);
});

/** Names for a notice: "a.txt", "a.txt and b.doc", "a.txt, b.doc and 3 more". */
function nameList(names) {
  if (names.length <= 2) return names.join(' and ');
  return names.length === 3 ? `${names[0]}, ${names[1]} and ${names[2]}` : `${names[0]}, ${names[1]} and ${names.length - 2} more`;
}

/** Files dropped, picked or pasted: images and PDFs join the queue; anything else is turned away at once, by
 *  name and type (the bytes are still checked by py/retto when the job runs). */
function addFiles({ files, skipped }) {
  const rejected = files.filter((f) => !looksReadable(f.file)).map((f) => f.path || f.file.name);
  const taken = files.filter((f) => looksReadable(f.file));
  const notes = [];
  if (rejected.length) notes.push(`${nameList(rejected)} ${rejected.length === 1 ? 'was' : 'were'} not added: not an image or PDF.`);
  if (skipped) notes.push(`Skipped ${plural(skipped, 'file')} in folders that are neither images nor PDFs.`);
  if (taken.length) notes.push(`Added ${plural(taken.length, 'file')}.`);
  $('notice').textContent = notes.join(' ') || 'No images or PDFs found in what was added.';
  if (taken.length) queue.add(taken);
}

// ---- history (web/src/ui/history.js: IndexedDB) ---------------------------------------------------------------
const historyStore = new History({ onNotice: (text) => { $('notice').textContent = text; } });
const historyFailed = (e) => { $('notice').textContent = `History could not be saved: ${e?.name || ''} ${e?.message || e}`.trim(); };

/** Save a job when it is added and when it ends (not on every progress event). */
function saveToHistory(job) {
  const phase = job.status === 'waiting' || isRunning(job) ? 'pending' : job.status;
  if (job.savedPhase === phase) return;
  job.savedPhase = phase;
  historyStore.save(job).catch(historyFailed);
}

/** The previous visit's queue: finished items come back with their results; unfinished ones only with their
 *  bytes (Retry), the others are dropped with a note. */
async function restoreHistory() {
  const records = await historyStore.load();
  const lost = records.filter((r) => (r.status === 'pending' || r.status === 'cancelled') && !r.file);
  const back = records.filter((r) => !lost.includes(r));
  for (const r of lost) historyStore.remove(r).catch(historyFailed);
  for (const job of queue.restore(back)) job.savedPhase = job.status === 'unfinished' ? 'pending' : job.status;
  if (lost.length) {
    const one = lost.length === 1;
    $('notice').textContent = `${nameList(lost.map((r) => r.name))} ${one ? 'was' : 'were'} not finished when the page `
      + `was closed and ${one ? 'its image was' : 'their images were'} not kept, so ${one ? 'it is' : 'they are'} gone `
      + `from the queue: add ${one ? 'it' : 'them'} again to read ${one ? 'it' : 'them'}.`;
  }
}
$('keep-images').checked = historyStore.keepImages;
$('keep-images').addEventListener('change', () => {
  historyStore.keepImages = $('keep-images').checked;
  historyStore.saveAll(queue.jobs).catch(historyFailed); // adds (or drops) the stored images of what is shown
});
$('clear-history').addEventListener('click', async () => {
  await historyStore.clear().catch(historyFailed);
  queue.clear((j) => j.restored);
  for (const job of queue.jobs) job.notSaved = true; // this visit's items stay on screen, no longer stored
  $('notice').textContent = 'History cleared: nothing from this page is stored on this device any more.';
});
restoreHistory().catch(historyFailed);

function doneJobs() {
  return queue.jobs.filter((j) => j.status === 'done' || j.status === 'failed');
}

function updateBulkActions() {
  const finished = doneJobs();
  const any = finished.some((j) => j.status === 'done');
  $('copy-all').disabled = !any;
  $('download-all-txt').disabled = !any;
  $('download-all-json').disabled = finished.length === 0;
  $('download-all-pdf').disabled = !queue.jobs.some((j) => j.status === 'done' && j.file);
  $('download-all-zip').disabled = !any;
  $('clear-queue').disabled = queue.jobs.length === 0;
}

// ---- actions -----------------------------------------------------------------------------------------------
function toast(text) {
  $('toast').textContent = text;
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => { $('toast').textContent = ''; }, 2500);
}

async function copy(text, what) {
  toast(await copyText(text) ? what : 'Copying was blocked by the browser: select the text and copy it by hand.');
}

/** Copy to the clipboard; resolves true on success (the API needs a secure context and focus). */
async function copyText(text) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    return false;
  }
}

/** Copy the finished jobs' text (py/retto's `plain` export: tables row by row); a failure is said, never silent. */
async function copyJobs(jobs, what) {
  try {
    await copy(await plainText(await state.engine, jobs.filter((j) => j.status === 'done')), what);
  } catch (e) {
    $('notice').textContent = `Copying failed: ${e.code ? `${e.code}: ` : ''}${e.message}`;
  }
}

/** Run a download; a failure (or what it left out) is said in the notice, never silently dropped. */
async function download(what, fn) {
  try {
    const leftOut = await fn(await state.engine); // [{name, why}]
    const names = (leftOut ?? []).map((j) => `${j.name} (${j.why})`);
    $('notice').textContent = names.length ? `${what}: left out ${plural(names.length, 'file')}: `
      + `${names.join(', ')}.` : '';
  } catch (e) {
    $('notice').textContent = `${what} failed: ${e.code ? `${e.code}: ` : ''}${e.message}`;
  }
}

/** After a searchable PDF was made: keep the export's wheels for offline use. */
function savedExport() {
  if (import.meta.env.PROD) saveGroupOffline('export');
}

const zipFormats = () => Array.from(document.querySelectorAll('input[name="zip-format"]:checked'), (c) => c.value);

$('copy-all').addEventListener('click', () => copyJobs(queue.jobs, 'All text copied'));
$('download-all-txt').addEventListener('click', () => download('All TXT',
  (ocr) => downloadBatch(ocr, queue.jobs, 'text', 'retto-ocr.txt')));
$('download-all-json').addEventListener('click', () => download('All JSON',
  (ocr) => downloadBatch(ocr, queue.jobs, 'json', 'retto-ocr.json')));
$('download-all-pdf').addEventListener('click', () => download('All as PDF',
  (ocr) => downloadAllPdf(ocr, doneJobs()).finally(savedExport)));
$('download-all-zip').addEventListener('click', () => {
  const formats = zipFormats();
  if (!formats.length) return toast('Choose at least one format for the zip.');
  return download('All as zip', (ocr) => downloadZip(ocr, doneJobs(), formats));
});
$('clear-queue').addEventListener('click', () => { // everything, waiting and running ones included
  queue.clear();
  $('queue-title').focus();
});
$('copy-one').addEventListener('click', () => state.selected && copyJobs([state.selected], 'Text copied'));
for (const [id, format] of [['download-txt', 'text'], ['download-json', 'json'], ['download-pdf', 'pdf'], ['download-hocr', 'hocr']]) {
  $(id).addEventListener('click', () => download(format === 'pdf' ? 'PDF' : format.toUpperCase(),
    (ocr) => downloadOne(ocr, state.selected, format).then(() => { if (format === 'pdf') savedExport(); })));
}

/** A table's button: copy it (TSV, Markdown) or download it (CSV, XLSX), as py/retto writes it. */
async function tableAction(format, index) {
  const job = state.selected;
  if (!job) return;
  if (format === 'table_tsv' || format === 'table_md') {
    const ocr = await state.engine;
    const what = format === 'table_tsv' ? 'TSV' : 'Markdown';
    try {
      await copy(await tableText(ocr, job, format, index), `Table ${index + 1} copied as ${what}`);
    } catch (e) {
      $('notice').textContent = `Copying table ${index + 1} failed: ${e.code ? `${e.code}: ` : ''}${e.message}`;
    }
    return;
  }
  await download(`Table ${index + 1} as ${format === 'table_csv' ? 'CSV' : 'XLSX'}`,
    (ocr) => downloadTable(ocr, job, format, index).then(() => {
      if (format === 'table_xlsx' && import.meta.env.PROD) saveGroupOffline('xlsx');
    }));
}

// ---- inputs -----------------------------------------------------------------------------------------------
$('pick-files').accept = FILE_ACCEPT; // the suffixes `retto <folder>` reads (retto.io.inputs, generated)
for (const id of ['pick-files', 'pick-folder', 'take-photo']) {
  $(id).addEventListener('change', (ev) => {
    addFiles(filesFromInput(ev.target));
    ev.target.value = ''; // choosing the same file again must fire change again
  });
}

// The whole window accepts drops (so a near miss never opens the file in the tab); the zone lights up.
let dragDepth = 0;
window.addEventListener('dragenter', (ev) => {
  if (!ev.dataTransfer?.types.includes('Files')) return;
  dragDepth += 1;
  $('dropzone').classList.add('dragging');
});
window.addEventListener('dragleave', () => {
  dragDepth = Math.max(0, dragDepth - 1);
  if (!dragDepth) $('dropzone').classList.remove('dragging');
});
window.addEventListener('dragover', (ev) => {
  if (!ev.dataTransfer?.types.includes('Files')) return;
  ev.preventDefault();
  ev.dataTransfer.dropEffect = 'copy';
});
window.addEventListener('drop', async (ev) => {
  if (!ev.dataTransfer?.types.includes('Files')) return;
  ev.preventDefault();
  dragDepth = 0;
  $('dropzone').classList.remove('dragging');
  addFiles(await filesFromDataTransfer(ev.dataTransfer));
});
document.addEventListener('paste', (ev) => {
  const found = filesFromClipboard(ev);
  if (!found.files.length) return; // plain text pastes go where they were aimed
  ev.preventDefault();
  addFiles(found);
});

// ---- backend selector ---------------------------------------------------------------------------------------
const params = new URLSearchParams(location.search);
$('backend').replaceChildren(...BACKEND_CHOICES.map((c) => new Option(c.label, c.value)));
$('backend').value = [params.get('backend'), localStorage.getItem('retto.backend'), 'auto'].find(isBackendChoice);
$('backend').addEventListener('change', () => {
  localStorage.setItem('retto.backend', $('backend').value);
  startEngine();
});

// ---- tables (a setting of the engine: switching it restarts the engine, like the model set) -------------------
$('tables-mode').value = TABLES_CONFIG[localStorage.getItem('retto.tables')] ? localStorage.getItem('retto.tables') : 'auto';
$('tables-mode').addEventListener('change', () => {
  localStorage.setItem('retto.tables', $('tables-mode').value);
  startEngine();
});

// ---- offline ------------------------------------------------------------------------------------------------
function showOffline(s) {
  const el = $('offline-status');
  el.dataset.state = s.state;
  el.replaceChildren(s.text);
  if (s.apply) el.append(' ', h('button', { type: 'button', class: 'button small', onclick: s.apply }, 'Reload to update'));
  if (s.keep) { // the first save only: offered once (pwa.js remembers it)
    const keep = h('button', { type: 'button', class: 'button small', id: 'keep-offline', onclick: async () => {
      keep.disabled = true;
      keep.replaceWith(await s.keep());
    } }, 'Keep offline');
    el.append(' ', keep);
  }
}

// ---- start: read the model sets (?models=NAME picks one), then boot -----------------------------------------
async function start() {
  try {
    sets.load(await listModelSets(ASSET_BASE), params.get('models'));
  } catch {
    $('model-set').replaceChildren(new Option('Default', '')); // no list: the engine reports what is wrong
  }
  startEngine();
  // Files shared to the installed app or opened with it join the queue (they wait for the engine like others).
  receiveFiles((files, { shared = false } = {}) => {
    const add = () => addFiles({ files: files.map((file) => ({ file, path: file.name })), skipped: 0 });
    if (!shared) return add(); // "Open with": the person chose the app for these files
    // A share is read only after a click here: arriving is not asking (docs/guides/pwa-and-hosting.md: the share target's limits).
    const read = h('button', { type: 'button', id: 'read-shared' }, `Read ${plural(files.length, 'shared file')}`);
    read.addEventListener('click', () => add(), { once: true });
    $('notice').replaceChildren(`${nameList(files.map((f) => f.name))} ${files.length === 1 ? 'was' : 'were'} shared with Retto. `, read);
    return undefined;
  })
    .catch((e) => { $('notice').textContent = `Shared files could not be read: ${e.message}`; });
  // The service worker precaches the app and the default set: start it once the engine has its files, so the
  // bytes mostly come from the HTTP cache instead of being downloaded twice on the first visit.
  if (import.meta.env.PROD) {
    state.engine.finally(() => setUpOffline(showOffline).catch((e) => showOffline({ state: 'error', text: `Offline mode unavailable: ${e.message}` })));
  }
}
start();
