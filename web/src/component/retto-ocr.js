// <retto-ocr>: OCR on the user's device as a custom element, no framework.
//
//   <script type="module" src="/retto-ocr.js"></script>
//   <retto-ocr src="scan.png" backend="auto" show-boxes></retto-ocr>
//
// Attributes (and properties): src, backend ('auto' | 'wasm' | 'webgpu' | 'webgl'), models (a model set's name,
// e.g. "ppocr-v6-tiny"; default: the build's default set), asset-base (default: assets/ next to this module),
// allow / block (read only / never these characters: a class such as "digits" or "latin", or the characters
// themselves; config rec.allow / rec.block), show-boxes, fetch-timeout (ms for a src/URL download, default 30000), max-bytes (largest download, default
// 200 MB: file_too_large past it), allow-cross-origin-redirects (follow a src that redirects to another origin;
// refused by default, fetch_failed). The newest recognize() (or src) wins: an older call still resolves for its
// caller, but its result and events never replace a newer one's. Method: recognize(blob | file | url) -> Promise<result JSON> (an image or a PDF; a PDF resolves
// with the document record {path, kind: 'pdf', page_count, pages}). Events (bubbling, composed):
// retto-progress {detail: progress event; a PDF adds {stage: 'page', page, pageCount}}, retto-result {detail:
// result JSON; for a PDF one event per page, the page's result with its `page` number}, retto-error {detail:
// {code, message, title, advice}, + `page` for a PDF page that failed, + `status` for fetch_failed: a src/URL
// that could not be downloaded, 0 = network error}; an error clears the previous result from view. method export(format) -> Blob: the
// last result in one of retto.export's formats (text, json, hocr, pdf, ...). All elements on a page with the same backend, asset base and model set share one
// web worker (shared/engine.js). Styling: ::part(...) and --retto-* custom properties (retto-ocr.css).
// Built alone (vite.component.config.js): dist/retto-ocr.js is one module, its worker in dist/assets/retto-ocr/,
// so a host copies retto-ocr.js + assets/ and nothing else. Types: web/types/retto-ocr.d.ts.
import { elementAssetBase } from '../client/build_paths.js';
import { acquireEngine, releaseEngine } from '../shared/engine.js';
import { h } from '../shared/dom.js';
import { explainError } from '../shared/error_text.js';
import { loadingText, whereItRuns } from '../shared/engine_text.js';
import { FILE_ACCEPT, filesFromClipboard, filesFromDataTransfer } from '../shared/input_files.js';
import { ResultView } from '../shared/result_view.js';
import ownCss from './retto-ocr.css?inline';
import viewCss from '../shared/result_view.css?inline';

const DEFAULT_ASSET_BASE = elementAssetBase();

let sheet = null; // one constructed stylesheet shared by every instance
function styles() {
  if (!sheet) {
    sheet = new CSSStyleSheet();
    sheet.replaceSync(`${viewCss}\n${ownCss}`);
  }
  return sheet;
}

/** "Chinese & English (classic) · runs on this device (CPU, 2 threads)": which set, where it runs, in words. */
function describeEngine(info) {
  const set = info.modelSet?.label ? `${info.modelSet.label} · ` : '';
  return `${set}${whereItRuns(info)}`;
}

export class RettoOcrElement extends HTMLElement {
  static observedAttributes = ['src', 'backend', 'models', 'asset-base', 'show-boxes', 'allow', 'block'];

  static DEFAULT_FETCH_TIMEOUT_MS = 30_000;
  static DEFAULT_MAX_BYTES = 200 * 1024 * 1024; // the CLI's --max-file-bytes default

  constructor() {
    super();
    const root = this.attachShadow({ mode: 'open' });
    root.adoptedStyleSheets = [styles()];
    this.fileInput = h('input', { type: 'file', accept: FILE_ACCEPT, class: 'retto-sr', tabindex: '-1', 'aria-hidden': 'true' });
    this.chooseButton = h('button', { type: 'button', class: 'choose', part: 'button' }, 'choose a file');
    this.dropzone = h('div', { class: 'dropzone', part: 'dropzone', tabindex: '0', role: 'group',
      'aria-label': 'Image or PDF input: drop one here, paste it, or choose a file' },
    h('p', {}, 'Drop an image or a PDF here, paste it, or ', this.chooseButton, '.'), this.fileInput);
    this.statusEl = h('p', { class: 'status', part: 'status', role: 'status', 'aria-live': 'polite' }, 'Starting…');
    this.progressEl = h('progress', { part: 'progress', max: 1, value: 0, hidden: true, 'aria-label': 'progress' });
    this.errorEl = h('div', { class: 'error', part: 'error', role: 'alert', hidden: true });
    this.figure = h('figure', { class: 'figure', part: 'figure' });
    this.linesEl = h('ol', { class: 'lines', part: 'lines', 'aria-label': 'Recognised text' });
    this.pageSelect = h('select', { class: 'pages', part: 'pages', 'aria-label': 'Page', hidden: true });
    this.pageSelect.addEventListener('change', () => this.showPage(Number(this.pageSelect.value)));
    this.resultEl = h('div', { class: 'result', part: 'result', hidden: true }, this.figure, this.linesEl);
    root.append(h('div', { class: 'container', part: 'container' },
      this.dropzone, this.statusEl, this.progressEl, this.errorEl, this.pageSelect, this.resultEl));
    this.pages = []; // a PDF's pages shown: [{record, url}]
    this.view = new ResultView({ figure: this.figure, list: this.linesEl });
    this.engineRef = null;
    this.busy = 0; // recognize() calls in flight
    this.latest = 0; // the newest recognize() call's token: only its results reach the view and the events
    this.result = null;
    this.info = null;
    this.imageUrl = null;
    this.wireInputs();
  }

  // ---- attributes <-> properties ----
  get src() { return this.getAttribute('src') ?? ''; }
  set src(v) { this.setAttribute('src', v); }
  get backend() { return this.getAttribute('backend') || 'auto'; }
  set backend(v) { this.setAttribute('backend', v); }
  get models() { return this.getAttribute('models') || ''; } // '' = the build's default set
  set models(v) { if (v) this.setAttribute('models', v); else this.removeAttribute('models'); }
  get allow() { return this.getAttribute('allow') || ''; } // read only these characters ('' = all)
  set allow(v) { if (v) this.setAttribute('allow', v); else this.removeAttribute('allow'); }
  get block() { return this.getAttribute('block') || ''; } // never read these characters
  set block(v) { if (v) this.setAttribute('block', v); else this.removeAttribute('block'); }
  get assetBase() { return this.getAttribute('asset-base') || DEFAULT_ASSET_BASE; }
  set assetBase(v) { this.setAttribute('asset-base', v); }
  get fetchTimeout() { return positive(this.getAttribute('fetch-timeout'), RettoOcrElement.DEFAULT_FETCH_TIMEOUT_MS); }
  set fetchTimeout(v) { this.setAttribute('fetch-timeout', String(v)); }
  get maxBytes() { return positive(this.getAttribute('max-bytes'), RettoOcrElement.DEFAULT_MAX_BYTES); }
  set maxBytes(v) { this.setAttribute('max-bytes', String(v)); }
  get allowCrossOriginRedirects() { return this.hasAttribute('allow-cross-origin-redirects'); }
  set allowCrossOriginRedirects(v) { this.toggleAttribute('allow-cross-origin-redirects', Boolean(v)); }
  get showBoxes() { return this.hasAttribute('show-boxes'); }
  set showBoxes(v) { this.toggleAttribute('show-boxes', Boolean(v)); }

  attributeChangedCallback(name, old, value) {
    if (old === value) return;
    if (name === 'show-boxes') this.view.boxesVisible = this.showBoxes;
    if (['backend', 'models', 'asset-base', 'allow', 'block'].includes(name) && this.engineRef) this.connectEngine();
    if (name === 'src' && value && this.isConnected) this.recognize(value).catch(() => {}); // reported as an event
  }

  connectedCallback() {
    this.view.boxesVisible = this.showBoxes;
    if (!this.engineRef) this.connectEngine();
    if (this.src && !this.result && !this.busy) this.recognize(this.src).catch(() => {});
  }

  disconnectedCallback() {
    if (this.engineRef) releaseEngine(this.engineRef.key);
    this.engineRef = null;
  }

  // ---- engine ----
  connectEngine() {
    if (this.engineRef) releaseEngine(this.engineRef.key);
    this.info = null;
    const ref = acquireEngine({ backend: this.backend, assetBase: this.assetBase, models: this.models || undefined,
      allow: this.allow || undefined, block: this.block || undefined },
      (ev) => this.onProgress(ev));
    this.engineRef = ref;
    ref.engine.then((ocr) => {
      if (this.engineRef !== ref) return;
      this.info = ocr.info;
      this.progressEl.hidden = true;
      if (!this.busy) this.setStatus(`Ready · ${describeEngine(ocr.info)}`);
      this.emit('retto-progress', { stage: 'ready', info: ocr.info });
    }, (e) => {
      if (this.engineRef === ref) this.fail(e);
    });
    return ref.engine;
  }

  /** OCR one image: a Blob/File, or a URL (string or URL) fetched with the page's credentials rules. */
  async recognize(input) {
    const engineRef = this.engineRef ?? (this.connectEngine(), this.engineRef);
    const token = ++this.latest;
    const current = () => token === this.latest; // a newer call started: this one's outcome is not shown
    this.busy += 1;
    this.errorEl.hidden = true;
    this.setStatus('Working…');
    try {
      const blob = await toBlob(input, { timeoutMs: this.fetchTimeout, maxBytes: this.maxBytes,
        crossOriginRedirects: this.allowCrossOriginRedirects });
      const ocr = await engineRef.engine;
      let pdf = false;
      const result = await ocr.recognize(blob, {
        onProgress: (ev) => { if (current()) this.onProgress(ev); },
        onPage: (p) => { // a PDF: each page is shown and announced as soon as it is read
          if (!current()) return;
          if (!pdf) this.clearPages();
          pdf = true;
          this.addPage(p);
        },
      });
      if (!current()) return result;
      this.source = blob;
      if (pdf) {
        this.result = result;
        const failed = result.pages.filter((p) => p.error).length;
        this.setStatus(`${result.page_count} page${result.page_count === 1 ? '' : 's'} read${failed ? `, ${failed} failed` : ''}`);
        return result;
      }
      this.clearPages();
      this.showResult(blob, result, input);
      this.emit('retto-result', result);
      return result;
    } catch (e) {
      if (current()) this.fail(e);
      throw e;
    } finally {
      this.busy -= 1;
      this.progressEl.hidden = true;
    }
  }

  /** The last result in one of retto.export's formats, as a Blob ('pdf': a searchable PDF of its input). */
  async export(format) {
    if (!this.result) throw Object.assign(new Error('nothing recognised yet'), { code: 'invalid_image' });
    const ref = this.engineRef ?? (this.connectEngine(), this.engineRef);
    const ocr = await ref.engine;
    const record = this.result.pages ? this.result : { path: this.source?.name ?? 'image', ...this.result };
    return ocr.export(record, format, { source: this.source });
  }

  // ---- a PDF's pages ----
  clearPages() {
    for (const p of this.pages) if (p.url) URL.revokeObjectURL(p.url);
    this.pages = [];
    this.pageSelect.replaceChildren();
    this.pageSelect.hidden = true;
  }

  addPage({ page, pageCount, record, preview }) {
    this.pages.push({ record, url: preview ? URL.createObjectURL(preview) : null });
    this.pageSelect.append(new Option(`Page ${page} of ${pageCount}${record.error ? ' (failed)' : ''}`, String(this.pages.length - 1)));
    this.pageSelect.hidden = pageCount < 2;
    if (this.pages.length === 1) this.showPage(0);
    if (record.error) {
      const why = explainError(record.error);
      this.emit('retto-error', { code: why.code, message: why.detail, title: why.title, advice: why.advice, page });
    } else {
      this.emit('retto-result', record);
    }
  }

  showPage(i) {
    const p = this.pages[i];
    if (!p) return;
    this.pageSelect.value = String(i);
    if (p.record.error) {
      this.view.clear();
      this.resultEl.hidden = true;
      this.setStatus(`Page ${p.record.page}: ${explainError(p.record.error).title}`);
      return;
    }
    this.view.show({ imageUrl: p.url, name: `page ${p.record.page}`, result: p.record });
    this.view.boxesVisible = this.showBoxes;
    this.resultEl.hidden = false;
  }

  // ---- rendering ----
  onProgress(ev) {
    this.emit('retto-progress', ev);
    const bar = this.progressEl;
    if (ev.stage === 'load') {
      bar.hidden = false;
      bar.max = ev.total || 1;
      bar.value = ev.loaded;
      this.setStatus(loadingText(ev));
    } else if (ev.stage === 'det') {
      this.setStatus(`Found ${ev.boxes} text region${ev.boxes === 1 ? '' : 's'}, reading…`);
    } else if (ev.stage === 'rec') {
      bar.hidden = false;
      bar.max = ev.total || 1;
      bar.value = ev.done;
      this.setStatus(`Reading ${ev.done}/${ev.total} lines…`);
    } else if (ev.stage === 'reread') {
      this.setStatus(`Checking ${ev.done}/${ev.total} doubtful lines…`);
    } else if (ev.stage === 'decode') {
      this.setStatus(ev.pageCount ? `Page ${ev.page} of ${ev.pageCount}: finding text…` : 'Finding text…');
    } else if (ev.stage === 'page') {
      bar.hidden = false;
      bar.max = ev.pageCount;
      bar.value = ev.page - 1;
      this.setStatus(`Page ${ev.page} of ${ev.pageCount}…`);
    }
  }

  showResult(blob, result, input) {
    if (this.imageUrl) URL.revokeObjectURL(this.imageUrl);
    this.imageUrl = URL.createObjectURL(blob);
    this.result = result;
    const name = blob.name || (typeof input === 'string' ? input.split('/').pop() : 'image');
    this.view.show({ imageUrl: this.imageUrl, name, result });
    this.view.boxesVisible = this.showBoxes;
    this.resultEl.hidden = false;
    const n = result.lines.length;
    // The engine may have changed set since this result started: name the set that read it.
    const engine = this.info && this.info.modelSet?.name === result.model_set ? ` · ${describeEngine(this.info)}`
      : result.model_set ? ` · ${result.model_set}` : '';
    this.setStatus(`${n} line${n === 1 ? '' : 's'} in ${(result.timings.total / 1000).toFixed(1)} s${engine}`);
  }

  fail(e) {
    const why = explainError(e);
    // The previous image and text must not stay on screen as if they were this input's result.
    this.clearPages();
    this.view.clear();
    this.resultEl.hidden = true;
    this.result = null;
    this.errorEl.replaceChildren(h('p', { class: 'title' }, why.title), h('p', {}, why.advice));
    this.errorEl.hidden = false;
    this.setStatus(`Error: ${why.code}${why.detail ? ` — ${why.detail}` : ''}`);
    this.emit('retto-error', { code: why.code, message: why.detail, title: why.title, advice: why.advice,
      ...(e?.status !== undefined ? { status: e.status } : {}) });
  }

  setStatus(text) {
    this.statusEl.textContent = text;
  }

  emit(type, detail) {
    this.dispatchEvent(new CustomEvent(type, { detail, bubbles: true, composed: true }));
  }

  // ---- inputs inside the element: choose, drop, paste ----
  wireInputs() {
    const run = (files) => {
      for (const { file } of files) this.recognize(file).catch(() => {}); // the engine queues them in order
    };
    this.chooseButton.addEventListener('click', () => this.fileInput.click());
    this.dropzone.addEventListener('keydown', (ev) => {
      if (ev.target === this.dropzone && (ev.key === 'Enter' || ev.key === ' ')) { ev.preventDefault(); this.fileInput.click(); }
    });
    this.fileInput.addEventListener('change', () => {
      run(Array.from(this.fileInput.files, (file) => ({ file })));
      this.fileInput.value = '';
    });
    this.addEventListener('dragover', (ev) => {
      if (!ev.dataTransfer?.types.includes('Files')) return;
      ev.preventDefault();
      this.dropzone.classList.add('dragging');
    });
    this.addEventListener('dragleave', () => this.dropzone.classList.remove('dragging'));
    this.addEventListener('drop', async (ev) => {
      if (!ev.dataTransfer?.types.includes('Files')) return;
      ev.preventDefault();
      ev.stopPropagation(); // the host page's own drop handling must not take it too
      this.dropzone.classList.remove('dragging');
      run((await filesFromDataTransfer(ev.dataTransfer)).files);
    });
    this.addEventListener('paste', (ev) => {
      const { files } = filesFromClipboard(ev);
      if (!files.length) return;
      ev.preventDefault();
      ev.stopPropagation();
      run(files.slice(0, 1));
    });
  }
}

function positive(text, fallback) {
  const n = Number(text);
  return text !== null && Number.isFinite(n) && n > 0 ? n : fallback;
}

const fetchError = (message, status = 0) => Object.assign(new Error(message), { code: 'fetch_failed', status });

/** A URL's bytes as a File: within timeoutMs (the whole download) and maxBytes (file_too_large past it; read as
 *  it arrives, so an endless body stops there). A redirect to another origin is refused unless allowed: a
 *  same-origin URL is fetched in 'same-origin' mode (the browser stops at such a redirect before requesting
 *  it); a URL on another origin is not followed through any redirect. */
async function toBlob(input, { timeoutMs, maxBytes, crossOriginRedirects }) {
  if (input instanceof Blob) return input;
  if (typeof input === 'string' || input instanceof URL) {
    const url = new URL(String(input), document.baseURI);
    const signal = AbortSignal.timeout(timeoutMs);
    const sameOrigin = url.origin === location.origin;
    const options = crossOriginRedirects ? { signal } : sameOrigin ? { signal, mode: 'same-origin' } : { signal, redirect: 'manual' };
    const timedOut = () => signal.aborted && fetchError(`could not download ${url.href} within ${timeoutMs / 1000} s (fetch-timeout)`);
    // A download that fails is said as such (with the HTTP status), never as advice about image formats.
    const res = await fetch(url, options).catch((e) => {
      throw timedOut() || fetchError(`could not download ${url.href} (${e.message || 'network error'}${crossOriginRedirects ? ''
        : '; a redirect to another origin is refused unless the element has allow-cross-origin-redirects'})`);
    });
    if (res.type === 'opaqueredirect') {
      throw fetchError(`${url.href} redirects elsewhere; redirects of a URL on another origin are not followed unless the element has allow-cross-origin-redirects`, res.status);
    }
    if (!res.ok) throw fetchError(`could not download ${url.href} (${res.status})`, res.status);
    const tooLarge = () => Object.assign(new Error(`${url.href} is larger than ${maxBytes} bytes (max-bytes)`), { code: 'file_too_large' });
    if (Number(res.headers.get('Content-Length')) > maxBytes) {
      res.body?.cancel().catch(() => {});
      throw tooLarge();
    }
    const parts = [];
    let size = 0;
    try {
      const reader = res.body.getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        size += value.byteLength;
        if (size > maxBytes) {
          reader.cancel().catch(() => {});
          throw tooLarge();
        }
        parts.push(value);
      }
    } catch (e) {
      throw e.code ? e : timedOut() || fetchError(`could not download ${url.href} (${e.message || 'network error'})`);
    }
    const type = res.headers.get('Content-Type')?.split(';')[0] ?? '';
    return new File(parts, url.pathname.split('/').pop() || 'image', { type });
  }
  throw Object.assign(new Error('recognize() takes a Blob, a File or a URL'), { code: 'invalid_image' });
}

// The client too, so a host that copied this one module can also script OCR without the element.
export { Retto, RettoError, RettoPool, defaultPoolSize, EXPORT_FORMATS } from '../client/retto.js';

if (!customElements.get('retto-ocr')) customElements.define('retto-ocr', RettoOcrElement);
export default RettoOcrElement;
