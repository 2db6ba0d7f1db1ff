// The queue list: one row per image with its status and stage progress; a row is a button that shows it.
import { h } from '../shared/dom.js';
import { explainError } from '../shared/error_text.js';
import { STATUS_LABEL } from './queue.js';
import { stageText } from './stage_text.js';

export class QueueView {
  constructor(list, empty, onSelect) {
    this.list = list;
    this.empty = empty;
    this.onSelect = onSelect;
    this.rows = new Map(); // job id -> li
    this.selectedId = null;
  }

  update(job) {
    let row = this.rows.get(job.id);
    if (!row) row = this.addRow(job);
    row.li.dataset.status = job.status;
    row.chip.className = `chip ${job.status}`;
    row.chip.textContent = STATUS_LABEL[job.status];
    row.detail.textContent = job.status === 'failed' ? explainError(job.error).title
      : job.status === 'done' ? `${job.result.lines.length} line${job.result.lines.length === 1 ? '' : 's'}`
        : stageText(job.stage);
    const progress = progressValue(job);
    row.bar.hidden = progress === null;
    if (progress !== null) row.bar.value = progress;
  }

  addRow(job) {
    // Built once and updated in place, so keyboard focus on a row survives progress updates.
    const row = {
      chip: h('span', { class: 'chip' }),
      detail: h('span', { class: 'job-detail' }),
      bar: h('progress', { max: 1, value: 0, 'aria-label': `${job.name} progress` }),
    };
    row.button = h('button', { type: 'button', class: 'job-button', onclick: () => this.onSelect(job) },
      h('span', { class: 'job-name', title: job.name }, job.name), row.chip, row.detail, row.bar);
    row.li = h('li', { class: 'job', dataset: { id: job.id } }, row.button);
    this.rows.set(job.id, row);
    this.list.append(row.li);
    this.empty.hidden = true;
    return row;
  }

  select(job) {
    this.selectedId = job?.id ?? null;
    for (const [id, row] of this.rows) {
      if (id === this.selectedId) row.button.setAttribute('aria-current', 'true');
      else row.button.removeAttribute('aria-current');
    }
  }

  reset(jobs) {
    this.list.replaceChildren();
    this.rows.clear();
    for (const job of jobs) this.update(job);
    this.empty.hidden = this.rows.size > 0;
  }
}

/** A rough 0..1 for the row's bar: detection is the first third, reading the rest. */
function progressValue(job) {
  if (job.status !== 'detecting' && job.status !== 'reading') return null;
  const ev = job.stage;
  if (!ev || ev.stage === 'queued' || ev.stage === 'decode') return 0.02;
  if (ev.stage === 'det') return 0.33;
  if (ev.stage === 'cls') return 0.33 + 0.07 * (ev.done / Math.max(1, ev.total));
  if (ev.stage === 'rec') return 0.4 + 0.6 * (ev.done / Math.max(1, ev.total));
  return 0.99;
}
