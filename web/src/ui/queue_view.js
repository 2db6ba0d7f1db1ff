// The queue list: one row per image or PDF with its status and stage progress ("report.pdf — page 3 / 12" while
// a PDF runs); a row is a button that shows it.
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
      : job.status === 'done' ? doneText(job.result)
        : job.pageCount ? pageText(job) : stageText(job.stage);
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

/** "page 3 / 12 · reading 4/9 lines" */
function pageText(job) {
  const stage = job.stage?.stage === 'page' ? 'rendering…' : stageText(job.stage);
  return `page ${job.page} / ${job.pageCount} · ${stage}`;
}

const plural = (n, word) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** "12 lines", or for a PDF "3 pages · 40 lines · 1 page failed". */
function doneText(result) {
  if (!result.pages) return plural(result.lines.length, 'line');
  const good = result.pages.filter((p) => !p.error);
  const failed = result.pages.length - good.length;
  const lines = good.reduce((a, p) => a + p.lines.length, 0);
  return `${plural(result.pages.length, 'page')} · ${plural(lines, 'line')}${failed ? ` · ${plural(failed, 'page')} failed` : ''}`;
}

/** A rough 0..1 for the row's bar: detection is the first third, reading the rest (of each page of a PDF). */
function progressValue(job) {
  if (job.status !== 'detecting' && job.status !== 'reading') return null;
  const one = pageProgress(job.stage);
  return job.pageCount ? (job.page - 1 + one) / job.pageCount : one;
}

function pageProgress(ev) {
  if (!ev || ev.stage === 'queued' || ev.stage === 'decode' || ev.stage === 'page') return 0.02;
  if (ev.stage === 'det') return 0.33;
  if (ev.stage === 'cls') return 0.33 + 0.07 * (ev.done / Math.max(1, ev.total));
  if (ev.stage === 'rec') return 0.4 + 0.6 * (ev.done / Math.max(1, ev.total));
  return 0.99;
}
