// The queue list: one row per image or PDF with its status and stage progress ("report.pdf — page 3 / 12" while
// a PDF runs); a row is a button that shows it, followed by its controls (Cancel, Retry, Remove: each named with
// the file, e.g. "Remove linn.png", and shown only when it applies).
import { h } from '../shared/dom.js';
import { explainError } from '../shared/error_text.js';
import { STATUS_LABEL, canCancel, canRetry } from './queue.js';
import { stageText } from './stage_text.js';
import { plural } from '../shared/units.js';

export class QueueView {
  /** actions: {select(job), cancel(job), retry(job), remove(job)}; fallbackFocus: where focus goes when the
   *  list becomes empty. */
  constructor(list, empty, actions, fallbackFocus) {
    this.list = list;
    this.empty = empty;
    this.actions = actions;
    this.fallbackFocus = fallbackFocus;
    this.rows = new Map(); // job id -> row
    this.selectedId = null;
  }

  update(job) {
    let row = this.rows.get(job.id);
    if (!row) row = this.addRow(job);
    row.li.dataset.status = job.status;
    row.chip.className = `chip ${job.status}`;
    row.chip.textContent = STATUS_LABEL[job.status];
    row.detail.textContent = detailText(job);
    const progress = progressValue(job);
    row.bar.hidden = progress === null;
    if (progress !== null) row.bar.value = progress;
    // A control that disappears under the keyboard hands focus to its row's main button: not to the control
    // that replaces it (Cancel -> Retry), where the rest of the same key press could activate it.
    const focused = [row.cancel, row.retry].find((b) => b === document.activeElement);
    row.cancel.hidden = !canCancel(job);
    row.retry.hidden = !canRetry(job);
    if (focused?.hidden) row.button.focus();
  }

  addRow(job) {
    // Built once and updated in place, so keyboard focus on a row survives progress updates.
    const row = {
      chip: h('span', { class: 'chip' }),
      detail: h('span', { class: 'job-detail' }),
      bar: h('progress', { max: 1, value: 0, 'aria-label': `${job.name} progress` }),
      cancel: control('Cancel', job, () => this.actions.cancel(job)),
      retry: control('Retry', job, () => this.actions.retry(job)),
      remove: control('Remove', job, () => this.actions.remove(job)),
    };
    row.button = h('button', { type: 'button', class: 'job-button', onclick: () => this.actions.select(job) },
      h('span', { class: 'job-name', title: job.name }, job.name), row.chip, row.detail, row.bar);
    row.li = h('li', { class: 'job', dataset: { id: job.id } }, row.button,
      h('div', { class: 'job-controls' }, row.cancel, row.retry, row.remove));
    this.rows.set(job.id, row);
    this.list.append(row.li);
    this.empty.hidden = true;
    return row;
  }

  /** A job was removed (it was at index in the list): its row goes; keyboard focus moves to the row that took
   *  its place (or the one before), or to fallbackFocus when the list is empty. */
  remove(job, index) {
    const row = this.rows.get(job.id);
    if (!row) return;
    const hadFocus = row.li.contains(document.activeElement);
    row.li.remove();
    this.rows.delete(job.id);
    this.empty.hidden = this.rows.size > 0;
    if (!hadFocus) return;
    const rows = [...this.rows.values()];
    const next = rows[Math.min(index, rows.length - 1)];
    (next ? next.remove : this.fallbackFocus).focus();
  }

  select(job) {
    this.selectedId = job?.id ?? null;
    for (const [id, row] of this.rows) {
      if (id === this.selectedId) row.button.setAttribute('aria-current', 'true');
      else row.button.removeAttribute('aria-current');
    }
  }

  reset(jobs) {
    const hadFocus = this.list.contains(document.activeElement);
    this.list.replaceChildren();
    this.rows.clear();
    for (const job of jobs) this.update(job);
    this.empty.hidden = this.rows.size > 0;
    if (hadFocus) this.fallbackFocus.focus();
  }
}

/** A row control: the visible verb, the accessible name with the file ("Remove linn.png"). */
function control(verb, job, onclick) {
  return h('button', { type: 'button', class: `button small job-${verb.toLowerCase()}`, 'aria-label': `${verb} ${job.name}`, onclick }, verb);
}

function detailText(job) {
  if (job.status === 'failed') return explainError(job.error).title;
  if (job.status === 'done') return doneText(job.result) + (job.restored && !job.file ? ' · image not kept' : '');
  if (job.status === 'cancelled') return 'Stopped before it finished.';
  if (job.status === 'unfinished') return 'The page was closed before it finished.';
  return job.pageCount ? pageText(job) : stageText(job.stage);
}

/** "page 3 / 12 · reading 4/9 lines" */
function pageText(job) {
  const stage = job.stage?.stage === 'page' ? 'rendering…' : stageText(job.stage);
  return `page ${job.page} / ${job.pageCount} · ${stage}`;
}


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
  if (ev.stage === 'orientation' || ev.stage === 'stacks') return 0.4;
  if (ev.stage === 'rec') return 0.4 + 0.5 * (ev.done / Math.max(1, ev.total));
  if (ev.stage === 'reread') return 0.9 + 0.1 * (ev.done / Math.max(1, ev.total));
  return 0.99;
}
