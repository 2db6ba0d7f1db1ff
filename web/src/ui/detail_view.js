// The right-hand panel: the selected image (or a PDF's page, with a page switcher) with its boxes and lines, its
// actions, its timings, or its error.
import { h } from '../shared/dom.js';
import { explainError } from '../shared/error_text.js';
import { ResultView } from '../shared/result_view.js';
import { STATUS_LABEL, pagesOf } from './queue.js';
import { stageText, timingRows } from './stage_text.js';

export class DetailView {
  /** modelSetLabel(name): the words for the set that read a result (result.model_set). */
  constructor(els, { onCopyLine, modelSetLabel = (name) => name, tables = null }) {
    this.els = els; // {title, status, body, actions, count, timings, timingsList, figure, lines, showBoxes, readWith,
    //                  pageNav, pagePrev, pageNext, pageSelect, pdfButton}
    this.modelSetLabel = modelSetLabel;
    this.view = new ResultView({ figure: els.figure, list: els.lines, onCopyLine });
    this.tables = tables; // TablesView: the result's tables as HTML tables with their buttons
    this.job = null;
    this.shownResult = null;
    this.pageIndex = 0; // the page shown of a PDF job
    els.showBoxes.addEventListener('change', () => { this.view.boxesVisible = els.showBoxes.checked; });
    els.pagePrev.addEventListener('click', () => this.showPage(this.pageIndex - 1));
    els.pageNext.addEventListener('click', () => this.showPage(this.pageIndex + 1));
    els.pageSelect.addEventListener('change', () => this.showPage(Number(els.pageSelect.value)));
  }

  showPage(i) {
    if (!this.job) return;
    this.pageIndex = i;
    this.show(this.job, this.info);
  }

  /** The page switcher of a finished PDF (hidden for images): "Page 2 of 5", a failed page says so. */
  updatePageNav(job, pages) {
    const e = this.els;
    e.pageNav.hidden = !job.result?.pages;
    if (e.pageNav.hidden) return;
    const n = pages.length;
    const options = pages.map((p, i) => new Option(`Page ${i + 1} of ${n}${p.error ? ' — failed' : ` (${p.lines.length} lines)`}`, String(i)));
    e.pageSelect.replaceChildren(...options);
    e.pageSelect.value = String(this.pageIndex);
    e.pagePrev.disabled = this.pageIndex <= 0;
    e.pageNext.disabled = this.pageIndex >= n - 1;
  }

  /** Show a job (or refresh it after a change). info: the engine info, for the threads row. */
  show(job, info) {
    const e = this.els;
    if (job !== this.job) this.pageIndex = 0;
    this.job = job;
    this.info = info;
    e.pageNav.hidden = true;
    if (!job) {
      e.title.textContent = 'Result';
      e.status.replaceChildren('Add an image or a PDF to see its text here.');
      e.body.hidden = e.actions.hidden = e.timings.hidden = e.readWith.hidden = true;
      this.view.clear();
      this.tables?.show([]);
      this.shownResult = null;
      return;
    }
    // Which set read it: results from before a switch keep the set that made them.
    const modelSet = job.status === 'done' ? pagesOf(job).find((p) => p.model_set)?.model_set : null;
    e.readWith.hidden = !modelSet;
    if (modelSet) e.readWith.textContent = `Read with: ${this.modelSetLabel(modelSet)}`;
    e.title.textContent = job.name;
    const pages = pagesOf(job);
    this.pageIndex = Math.max(0, Math.min(this.pageIndex, pages.length - 1));
    const result = pages[this.pageIndex];
    if (job.status === 'done') this.updatePageNav(job, pages);
    if (job.status === 'done' && result.error) { // one failed page of a PDF: its error, the others stay reachable
      this.view.clear();
      this.tables?.show([]);
      this.shownResult = null;
      e.body.hidden = e.timings.hidden = true;
      e.actions.hidden = e.status.hidden = false;
      e.status.replaceChildren(errorBox(result.error, `Page ${result.page} could not be read.`));
      return;
    }
    if (job.status === 'done') {
      if (this.shownResult !== result) { // rebuild only when the result changes (keeps focus and selection)
        const imageUrl = job.result.pages ? job.previews[this.pageIndex] : job.url;
        const name = job.result.pages ? `${job.name}, page ${result.page}` : job.name;
        this.view.show({ imageUrl, name, result });
        this.tables?.show(result.tables, tablesBefore(pages, this.pageIndex));
        this.view.boxesVisible = e.showBoxes.checked;
        // From history without its image: the text alone, and a word on why (not an empty frame).
        e.figure.classList.toggle('no-picture', !imageUrl);
        if (!imageUrl) e.figure.replaceChildren(noPicture());
        e.showBoxes.closest('label').hidden = !imageUrl; // no picture, no boxes to show
        this.shownResult = result;
        e.timingsList.replaceChildren(...timingRows(result, info, this.modelSetLabel).flatMap(([k, v]) => [h('dt', {}, k), h('dd', {}, v)]));
      }
      const n = result.lines.length;
      e.count.textContent = `(${n} line${n === 1 ? '' : 's'})`;
      e.status.replaceChildren(n ? '' : `No text was found in this ${job.result.pages ? 'page' : 'image'}.`);
      e.status.hidden = n > 0;
      e.body.hidden = e.actions.hidden = e.timings.hidden = false;
      e.pdfButton.disabled = !job.file; // a searchable PDF needs the picture
      e.pdfButton.title = job.file ? 'The picture with an invisible, selectable text layer' : 'Needs the image, which was not kept';
      return;
    }
    this.view.clear();
    this.tables?.show([]);
    this.shownResult = null;
    e.body.hidden = e.actions.hidden = e.timings.hidden = true;
    e.status.hidden = false;
    if (job.status === 'failed') {
      e.status.replaceChildren(errorBox(job.error));
    } else if (job.status === 'cancelled' || job.status === 'unfinished') {
      const why = job.status === 'cancelled' ? 'Cancelled before it finished.' : 'Not finished: the page was closed before it was read.';
      e.status.replaceChildren(`${why} ${job.file ? 'Retry (in the queue) reads it again.' : ''}`.trim());
    } else {
      const page = job.pageCount ? `page ${job.page} / ${job.pageCount}: ` : '';
      const stage = job.stage?.stage === 'page' ? 'rendering…' : stageText(job.stage); // pdf.js draws the page
      e.status.replaceChildren(`${STATUS_LABEL[job.status]}… ${page}${stage}`);
    }
  }
}

/** How many tables a PDF's pages before page i hold (failed pages hold none): the record-wide index of page
 *  i's first table, as retto.export.record_tables counts them. */
function tablesBefore(pages, i) {
  return pages.slice(0, i).reduce((n, p) => n + (p.error ? 0 : p.tables?.length ?? 0), 0);
}

function noPicture() {
  return h('div', { class: 'no-picture-note' },
    h('p', { class: 'no-picture-title' }, 'Text only: the image was not kept'),
    h('p', {}, 'This result comes from your history, which keeps images only when “Keep images in history” is ticked.'));
}

function errorBox(error, title = null) {
  const why = explainError(error);
  return h('div', { class: 'error', role: 'alert' },
    h('p', { class: 'error-title' }, title ?? why.title),
    h('p', { class: 'error-advice' }, title ? why.title : why.advice),
    h('p', { class: 'error-detail' }, `Details: ${why.code}${why.detail ? ` — ${why.detail}` : ''}`));
}
