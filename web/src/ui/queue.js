// The page's queue: every image or PDF gets a job with a status (waiting → detecting → reading → done | failed),
// run one at a time through the shared engine. A failing file only fails its own job; the queue goes on. A PDF
// is one job whose pages arrive one by one (job.pages: page records; job.previews: an object URL per page).
// The person controls it: cancel (→ cancelled), retry (failed, cancelled or unfinished → waiting), remove, clear
// all. Jobs restored from history may have no file (its image was not kept): they cannot be retried.
import { newKey } from './history.js';

let nextId = 1;

export const STATUS_LABEL = { waiting: 'Waiting', detecting: 'Detecting', reading: 'Reading', done: 'Done', failed: 'Failed',
  cancelled: 'Cancelled', unfinished: 'Not finished' };

const RUNNING = new Set(['detecting', 'reading']);
export const isRunning = (job) => RUNNING.has(job.status);
export const canCancel = (job) => job.status === 'waiting' || isRunning(job);
export const canRetry = (job) => Boolean(job.file) && ['failed', 'cancelled', 'unfinished'].includes(job.status);

export class OcrQueue extends EventTarget {
  /** engine(): Promise<Retto client>, called per job (so a backend switch takes effect for the next job). */
  constructor(engine) {
    super();
    this.engine = engine;
    this.jobs = [];
    this.running = false;
  }

  add(entries) {
    const jobs = entries.map(({ file, path }) => ({
      id: nextId++, key: newKey(), added: performance.timeOrigin + performance.now(), name: path || file.name, file,
      url: URL.createObjectURL(file), status: 'waiting', stage: null, result: null, error: null, ...noPages(),
    }));
    this.jobs.push(...jobs);
    for (const job of jobs) this.changed(job);
    this.pump();
    return jobs;
  }

  /** Put jobs from history back (done, failed, cancelled or unfinished; none of them runs by itself). */
  restore(records) {
    const jobs = records.map((r) => {
      const previewBlobs = r.previews ?? [];
      return {
        id: nextId++, key: r.key, added: r.added, name: r.name, file: r.file ?? null,
        url: r.file ? URL.createObjectURL(r.file) : null, status: r.status === 'pending' ? 'unfinished' : r.status,
        stage: null, result: r.result, error: r.error, restored: true, ...noPages(),
        previewBlobs, previews: Array.from(previewBlobs, (b) => (b ? URL.createObjectURL(b) : null)),
      };
    });
    this.jobs.unshift(...jobs);
    this.dispatchEvent(new CustomEvent('reset'));
    return jobs;
  }

  /** Stop a waiting or running job: it says "Cancelled", the others go on. */
  cancel(job) {
    if (job.status === 'waiting') {
      job.status = 'cancelled';
      this.changed(job);
    } else if (isRunning(job)) {
      job.cancelled = true;
      job.controller?.abort(); // runJob's catch marks it cancelled
    }
  }

  /** A failed, cancelled or unfinished job goes back in line (its bytes are needed). */
  retry(job) {
    if (!canRetry(job)) return;
    revokePreviews(job);
    Object.assign(job, { status: 'waiting', stage: null, result: null, error: null, cancelled: false, ...noPages() });
    this.changed(job);
    this.pump();
  }

  /** Remove one job, whatever its state (a running one is cancelled first). */
  remove(job) {
    const i = this.jobs.indexOf(job);
    if (i < 0) return;
    if (isRunning(job)) this.cancel(job);
    this.jobs.splice(i, 1);
    forget(job);
    this.dispatchEvent(new CustomEvent('remove', { detail: { job, index: i } }));
  }

  /** Remove jobs matching a test (all by default), running and waiting ones included. */
  clear(which = () => true) {
    const gone = this.jobs.filter(which);
    for (const job of gone) {
      if (isRunning(job)) this.cancel(job);
      forget(job);
    }
    this.jobs = this.jobs.filter((j) => !gone.includes(j));
    this.dispatchEvent(new CustomEvent('reset', { detail: { gone } }));
  }

  /** The engine is being replaced (backend switch): a job it cuts off goes back in line. */
  engineRestarted() {
    this.restarted = this.jobs.some((j) => j.status === 'detecting' || j.status === 'reading');
  }

  changed(job) {
    if (job.removed) return; // a removed running job still settles: nobody shows it any more
    this.dispatchEvent(new CustomEvent('change', { detail: job }));
  }

  async pump() {
    if (this.running) return;
    this.running = true;
    try {
      for (let job = this.nextWaiting(); job; job = this.nextWaiting()) await this.runJob(job);
    } finally {
      this.running = false;
    }
  }

  nextWaiting() {
    return this.jobs.find((j) => j.status === 'waiting');
  }

  async runJob(job) {
    job.status = 'detecting';
    job.stage = { stage: 'queued' };
    this.changed(job);
    job.controller = new AbortController();
    const { signal } = job.controller;
    try {
      const ocr = await this.engine();
      if (job.cancelled) throw new Error('cancelled before it started');
      job.result = await ocr.recognize(job.file, {
        name: job.name,
        signal,
        onProgress: (ev) => {
          if (signal.aborted) return; // a cancelled job's worker may still report until its next model call
          job.stage = ev;
          if (ev.stage === 'page') { // a PDF: the next page starts with detection
            Object.assign(job, { page: ev.page, pageCount: ev.pageCount, status: 'detecting' });
          }
          // det is finished once its progress event arrives; orientation and recognition follow.
          if (['det', 'cls', 'orientation', 'stacks', 'rec', 'reread'].includes(ev.stage)) job.status = 'reading';
          this.changed(job);
        },
        onPage: ({ page, pageCount, record, preview }) => {
          if (signal.aborted) return;
          job.pageCount = pageCount;
          job.pages[page - 1] = record;
          if (preview) {
            job.previewBlobs[page - 1] = preview;
            job.previews[page - 1] = URL.createObjectURL(preview);
          }
          this.changed(job);
        },
      });
      job.status = 'done';
    } catch (e) {
      if (job.cancelled) { // the person stopped it (or removed it): no error, no partial pages
        revokePreviews(job);
        Object.assign(job, { status: 'cancelled', stage: null, result: null, controller: null, ...noPages() });
        this.changed(job);
        return;
      }
      if (e?.code === 'terminated' && this.restarted) { // the backend was switched under it: run it again
        this.restarted = false;
        revokePreviews(job);
        Object.assign(job, { status: 'waiting', stage: null, ...noPages() });
        this.changed(job);
        return;
      }
      job.error = { code: e?.code || 'internal_error', message: e?.message || String(e) };
      job.status = 'failed';
    }
    job.stage = null;
    job.controller = null;
    this.changed(job);
  }
}

function noPages() {
  return { page: 0, pageCount: 0, pages: [], previews: [], previewBlobs: [] };
}

function revokePreviews(job) {
  for (const url of job.previews) if (url) URL.revokeObjectURL(url);
  job.previews = [];
  job.previewBlobs = [];
}

function forget(job) {
  if (job.url) URL.revokeObjectURL(job.url);
  revokePreviews(job);
  job.removed = true;
}

/** The job's result as pages: a PDF's page records, or the one image result as page 1 (no page number). */
export function pagesOf(job) {
  if (job.status !== 'done') return [];
  return job.result.pages ?? [job.result];
}
