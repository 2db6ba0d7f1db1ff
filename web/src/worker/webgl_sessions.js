// One model on onnxruntime-web's WebGL backend: a WebGL session accepts only the input shape it was created for,
// so there is one session per bucket shape, made lazily from the model's WebGL variant with that shape stamped
// in (retto.models.onnx_stamp, run in Pyodide). The bucket table and each stamped model's sha256 come from
// models/webgl/webgl.json (scripts/build/webgl_models.py); Python's BucketWorker only ever sends those shapes.
import { RettoWorkerError } from './errors.js';
import { sha256Hex } from './assets.js';

const key = (dims) => dims.join('x');

/** Time steps PP-OCR rec emits for an input width (retto.browser.buckets.rec_time_steps: two stride-2 convs, then a
 * 2-wide pool). */
export function recTimeSteps(width) {
  return Math.max(Math.floor(Math.ceil(Math.ceil(width / 2) / 2) / 2), 1);
}

/** A model's output shape for an input shape; `sample` is any bucket's output (for rec's class count). */
function outputShape(name, [n, , h, w], sample) {
  if (name === 'det') return [n, 1, h, w];
  if (name === 'cls') return [n, sample[1]];
  return [n, recTimeSteps(w), sample[2]];
}

export class WebglBucketSessions {
  /** variant: {bytes, buckets: [{input, output, sha256}]}; stamp(bytes, input, output) -> Promise<Uint8Array>. */
  constructor(ort, name, variant, stamp) {
    this.ort = ort;
    this.name = name;
    this.bytes = variant.bytes;
    this.buckets = new Map(variant.buckets.map((b) => [key(b.input), b]));
    this.stamp = stamp;
    this.sessions = new Map(); // shape key -> Promise<InferenceSession>
    this.inputName = null;
    this.outputName = null;
  }

  /** Run one input of any shape on a throw-away session made for it (the canary: a small input costs less than
   * the smallest bucket, which on a software renderer takes a minute for det). Not checked against webgl.json,
   * which lists bucket shapes only; the variant bytes themselves were checked when fetched. */
  async runOnce(input) {
    const output = outputShape(this.name, input.dims, [...this.buckets.values()][0].output);
    const model = await this.stamp(this.bytes, input.dims, output);
    const session = await this.ort.InferenceSession.create(model, { executionProviders: ['webgl'], graphOptimizationLevel: 'all' });
    try {
      return (await session.run({ [session.inputNames[0]]: input }))[session.outputNames[0]];
    } finally {
      await session.release().catch(() => {});
    }
  }

  /** Accept these input shapes too (det buckets for a configured det.limit_side_len smaller than the default
   * ladder's, cls/rec buckets for smaller configured batch sizes: retto.browser.buckets). webgl.json lists the default ladder's stamped sha256s; a shape
   * outside it is stamped from the same variant, whose bytes were checked when fetched (as runOnce does). */
  allow(inputs) {
    const sample = [...this.buckets.values()][0].output;
    for (const input of inputs) {
      if (!this.buckets.has(key(input))) this.buckets.set(key(input), { input, output: outputShape(this.name, input, sample), sha256: null });
    }
  }

  session(dims) {
    const k = key(dims);
    const bucket = this.buckets.get(k);
    if (!bucket) {
      throw new RettoWorkerError('inference_failed', `${this.name}: no WebGL bucket for input shape [${dims}]`);
    }
    if (!this.sessions.has(k)) {
      const made = this.create(bucket);
      this.sessions.set(k, made);
      made.catch(() => this.sessions.delete(k)); // a failed creation may be retried
    }
    return this.sessions.get(k);
  }

  async create(bucket) {
    const model = await this.stamp(this.bytes, bucket.input, bucket.output);
    const got = bucket.sha256 === null ? null : await sha256Hex(model);
    if (got !== bucket.sha256) {
      throw new RettoWorkerError('model_integrity', `${this.name} stamped to [${bucket.input}]: sha256 ${got} `
        + `differs from webgl.json ${bucket.sha256}`);
    }
    const session = await this.ort.InferenceSession.create(model, { executionProviders: ['webgl'], graphOptimizationLevel: 'all' });
    this.inputName = session.inputNames[0];
    this.outputName = session.outputNames[0];
    return session;
  }

  /** Same contract as a plain session's run for one input: returns the output tensor. */
  async run(input) {
    const session = await this.session(input.dims);
    const out = await session.run({ [this.inputName]: input });
    return out[this.outputName];
  }

  async release() {
    const all = [...this.sessions.values()];
    this.sessions.clear();
    await Promise.all(all.map((p) => p.then((s) => s.release()).catch(() => {})));
  }
}
