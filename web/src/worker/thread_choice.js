// How many wasm threads the next model call uses, chosen and re-chosen from what the worker measures.
// Why: on a quiet 2-core machine two threads beat one by 1.57×, but with one core busy one thread beat two by 2.1×
// (the second thread waits for a core, and every parallel section waits for it). onnxruntime-web fixes its thread
// count when its runtime starts, so the worker keeps two runtimes (ort_bridge.js) and this rule picks per call.
//
// The rule, per model (det, rec, ...), on the call's cost per input element (ms / elements, an EWMA):
// - start on the most threads;
// - probe the other count on one call: early (the PROBE_FIRST-th call), again whenever the current count runs
//   SLOW × slower than the best it has done on that model at that input size (within 2×; a core got busy),
//   and otherwise every `every` calls,
//   `every` doubling from PROBE_EVERY up to PROBE_MAX each time a probe confirms the choice (a quiet machine
//   pays about one slower call in 40);
// - switch when the other count's cost on that model is lower by more than MARGIN; a switch resets the period;
//   a probe waits for a call of a model the current count ran recently (det runs once a page).
// Costs older than FRESH calls are not compared (the load they saw may be gone).

export const PROBE_FIRST = 3;
export const PROBE_EVERY = 10;
export const PROBE_MAX = 40;
export const SLOW = 1.4;
export const MARGIN = 1.1;
export const FRESH = 12;
const ALPHA = 0.5; // EWMA weight of the newest call: one odd call moves the cost half way

export class ThreadChoice {
  /** max: the thread count of the main runtime (1: nothing to choose); start: the count to begin on (the count a
   * replaced worker ended on, carried over by the client so a recycled worker does not relearn the load). */
  constructor(max, start = max) {
    this.max = max;
    this.threads = start === 1 || start === max ? start : max;
    this.start = this.threads;
    this.calls = 0;
    this.every = PROBE_EVERY;
    this.nextProbe = PROBE_FIRST;
    this.probing = null; // the count the next call tries
    this.costs = {}; // `${model}/${threads}` -> {recent, at}: the recent cost per element, as of call `at`
    this.best = {}; // `${model}/${size}/${threads}` -> the lowest cost seen (size: log2 of the element count)
    this.switches = 0;
    this.reason = max <= 1 ? 'one thread only'
      : this.threads !== max ? '1 thread: carried over from the worker this one replaced, until a probe says otherwise'
        : `${max} threads: the most there are, until a probe says otherwise`;
  }

  other() {
    return this.threads === this.max ? 1 : this.max;
  }

  /** The thread count for the next call of `model` on `elements` input values. */
  pick(model, elements) {
    if (this.max <= 1) return 1;
    // A probe needs a recent cost of this model on the current count to compare with (det runs once a page).
    if (this.probing === null && this.fresh(model, this.threads)
        && (this.calls >= this.nextProbe || this.slowed(model, elements))) this.probing = this.other();
    return this.probing ?? this.threads;
  }

  /** Has the current count become SLOW × slower than its best on this model and size? (only checked when the
   * other count has no fresh cost: a fresh one was just compared) */
  slowed(model, elements) {
    const c = this.costs[`${model}/${this.threads}`];
    const best = this.best[`${model}/${size(elements)}/${this.threads}`];
    return Boolean(c && best && c.recent > SLOW * best && !this.fresh(model, this.other()));
  }

  fresh(model, threads) {
    const c = this.costs[`${model}/${threads}`];
    return c && this.calls - c.at <= FRESH ? c : null;
  }

  /** A finished call: `elements` input values took `ms` on `threads` threads. */
  record(model, threads, elements, ms) {
    this.calls += 1;
    const cost = ms / Math.max(elements, 1);
    const key = `${model}/${threads}`;
    const c = this.costs[key];
    const blend = c && this.calls - 1 - c.at <= FRESH; // a stale cost saw another load: start over
    this.costs[key] = { recent: blend ? c.recent + ALPHA * (cost - c.recent) : cost, at: this.calls };
    const b = `${model}/${size(elements)}/${threads}`;
    this.best[b] = Math.min(this.best[b] ?? Infinity, cost);
    if (threads !== this.probing) return;
    this.probing = null;
    const mine = this.fresh(model, this.threads);
    const theirs = this.costs[key];
    if (!mine) { // nothing recent of this model to compare with: probe the next call again
      this.nextProbe = this.calls + 1;
      return;
    }
    if (theirs.recent * MARGIN < mine.recent) {
      this.reason = `${threads} thread${threads > 1 ? 's' : ''}: ${model} cost ${fmt(theirs.recent)} against `
        + `${fmt(mine.recent)} ms per million input values on ${this.threads} (call ${this.calls})`;
      this.threads = threads;
      this.switches += 1;
      this.every = PROBE_EVERY;
    } else {
      this.reason = `${this.threads} thread${this.threads > 1 ? 's' : ''}: ${model} cost ${fmt(mine.recent)} against `
        + `${fmt(theirs.recent)} ms per million input values on ${threads} (call ${this.calls})`;
      this.every = Math.min(this.every * 2, PROBE_MAX);
    }
    this.nextProbe = this.calls + this.every;
  }

  /** For the result's runtime info: the count in use and why. */
  get info() {
    return { threads: this.threads, reason: this.reason, switches: this.switches, calls: this.calls, start: this.start };
  }
}

const fmt = (cost) => (cost * 1e6).toFixed(1);
const size = (elements) => Math.round(Math.log2(Math.max(elements, 1)));
