// The right-hand panel: the selected image with its boxes and lines, its actions, its timings, or its error.
import { h } from '../shared/dom.js';
import { explainError } from '../shared/error_text.js';
import { ResultView } from '../shared/result_view.js';
import { STATUS_LABEL } from './queue.js';
import { stageText, timingRows } from './stage_text.js';

export class DetailView {
  /** modelSetLabel(name): the words for the set that read a result (result.model_set). */
  constructor(els, { onCopyLine, modelSetLabel = (name) => name }) {
    this.els = els; // {title, status, body, actions, count, timings, timingsList, figure, lines, showBoxes, readWith}
    this.modelSetLabel = modelSetLabel;
    this.view = new ResultView({ figure: els.figure, list: els.lines, onCopyLine });
    this.job = null;
    this.shownResult = null;
    els.showBoxes.addEventListener('change', () => { this.view.boxesVisible = els.showBoxes.checked; });
  }

  /** Show a job (or refresh it after a change). info: the engine info, for the threads row. */
  show(job, info) {
    const e = this.els;
    this.job = job;
    if (!job) {
      e.title.textContent = 'Result';
      e.status.replaceChildren('Add an image to see its text here.');
      e.body.hidden = e.actions.hidden = e.timings.hidden = e.readWith.hidden = true;
      this.view.clear();
      this.shownResult = null;
      return;
    }
    // Which set read it: results from before a switch keep the set that made them.
    e.readWith.hidden = job.status !== 'done' || !job.result.model_set;
    if (!e.readWith.hidden) e.readWith.textContent = `Read with: ${this.modelSetLabel(job.result.model_set)}`;
    e.title.textContent = job.name;
    if (job.status === 'done') {
      if (this.shownResult !== job.result) { // rebuild only when the result changes (keeps focus and selection)
        this.view.show({ imageUrl: job.url, name: job.name, result: job.result });
        this.view.boxesVisible = e.showBoxes.checked;
        this.shownResult = job.result;
        e.timingsList.replaceChildren(...timingRows(job.result, info, this.modelSetLabel).flatMap(([k, v]) => [h('dt', {}, k), h('dd', {}, v)]));
      }
      const n = job.result.lines.length;
      e.count.textContent = `(${n} line${n === 1 ? '' : 's'})`;
      e.status.replaceChildren(n ? '' : 'No text was found in this image.');
      e.status.hidden = n > 0;
      e.body.hidden = e.actions.hidden = e.timings.hidden = false;
      return;
    }
    this.view.clear();
    this.shownResult = null;
    e.body.hidden = e.actions.hidden = e.timings.hidden = true;
    e.status.hidden = false;
    if (job.status === 'failed') {
      const why = explainError(job.error);
      e.status.replaceChildren(h('div', { class: 'error', role: 'alert' },
        h('p', { class: 'error-title' }, why.title),
        h('p', { class: 'error-advice' }, why.advice),
        h('p', { class: 'error-detail' }, `Details: ${why.code}${why.detail ? ` — ${why.detail}` : ''}`)));
    } else {
      e.status.replaceChildren(`${STATUS_LABEL[job.status]}… ${stageText(job.stage)}`);
    }
  }
}
