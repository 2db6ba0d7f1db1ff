// The page's queue: every image or PDF gets a job with a status (waiting → detecting → reading → done | failed),
// run one at a time through the shared engine. A failing file only fails its own job; the queue goes on. A PDF
// is one job whose pages arrive one by one (job.pages: page records; job.previews: an object URL per page).

let nextId = 1;

export const STATUS_LABEL = { waiting: 'Waiting', detecting: 'Detecting', reading: 'Reading', done: 'Done', failed: 'Failed' };

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
      id: nextId++, name: path || file.name, file, url: URL.createObjectURL(file),
      status: 'waiting', stage: null, result: null, error: null, ...noPages(),
    }));
    this.jobs.push(...jobs);
    for (const job of jobs) this.changed(job);
    this.pump();
    return jobs;
  }

  clear() {
    // Only finished jobs go; the one in flight and the waiting ones stay.
    const keep = [];
    for (const job of this.jobs) {
      if (job.status === 'done' || job.status === 'failed') {
        URL.revokeObjectURL(job.url);
        revokePreviews(job);
      } else keep.push(job);
    }
    this.jobs = keep;
    this.dispatchEvent(new CustomEvent('reset'));
  }

  /** The engine is being replaced (backend switch): a job it cuts off goes back in line. */
  engineRestarted() {
    this.restarted = this.jobs.some((j) => j.status === 'detecting' || j.status === 'reading');
  }

  changed(job) {
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
    try {
      const ocr = await this.engine();
      job.result = await ocr.recognize(job.file, {
        name: job.name,
        onProgress: (ev) => {
          job.stage = ev;
          if (ev.stage === 'page') { // a PDF: the next page starts with detection
            Object.assign(job, { page: ev.page, pageCount: ev.pageCount, status: 'detecting' });
          }
          // det is finished once its progress event arrives; orientation and recognition follow.
          if (ev.stage === 'det' || ev.stage === 'cls' || ev.stage === 'rec') job.status = 'reading';
          this.changed(job);
        },
        onPage: ({ page, pageCount, record, preview }) => {
          job.pageCount = pageCount;
          job.pages[page - 1] = record;
          if (preview) job.previews[page - 1] = URL.createObjectURL(preview);
          this.changed(job);
        },
      });
      job.status = 'done';
    } catch (e) {
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
    this.changed(job);
  }
}

function noPages() {
  return { page: 0, pageCount: 0, pages: [], previews: [] };
}

function revokePreviews(job) {
  for (const url of job.previews) if (url) URL.revokeObjectURL(url);
  job.previews = [];
}

/** The job's result as pages: a PDF's page records, or the one image result as page 1 (no page number). */
export function pagesOf(job) {
  if (job.status !== 'done') return [];
  return job.result.pages ?? [job.result];
}
