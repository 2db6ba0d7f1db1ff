// The Tesseract sets' `line_rec` role in the worker: loads the wasm engine (assets/tesseract/, from our origin)
// and the set's traineddata, then answers Python's BridgeWorker (py/retto/browser/bridge.py) one line at a time.
import { fetchChecked } from './assets.js';
import { TesseractLines } from './tesseract_lines.js';
import pythonFacts from '../generated/python_facts.json';

/** The engine's files, for the boot's byte total: [] for a set without `line_rec`. */
export function lineReaderFiles(manifest, modelSet) {
  return modelSet.set.line_rec ? [manifest.tesseract.module, manifest.tesseract.wasm] : [];
}

export class LineReader {
  /** modelBytes: fetchModels' {role: Promise<bytes>}, with the set's traineddata_<lang> roles. */
  static async create({ assetBase, manifest, modelSet, modelBytes }) {
    const t = manifest.tesseract;
    if (!t) throw new Error('the asset manifest has no Tesseract engine (rebuild the assets)');
    const wasm = fetchChecked(new URL(t.wasm, assetBase), manifest.files[t.wasm].sha256, t.wasm);
    // The loader is a module from our origin, as onnxruntime-web's is (import() takes a URL, not checked bytes).
    const { default: factory } = await import(/* @vite-ignore */ new URL(t.module, assetBase).href);
    const languages = modelSet.set.line_rec.languages;
    const traineddata = {};
    for (const lang of languages.split('+')) traineddata[lang] = await modelBytes[`${pythonFacts.traineddata_prefix}${lang}`];
    // wasmBinary: the bytes checked above (no second fetch by the loader); its messages go to the console quietly.
    const core = await factory({ wasmBinary: await wasm, print: () => {}, printErr: () => {} });
    const engine = new TesseractLines(core, traineddata, languages);
    return new LineReader(engine, `tesseract ${engine.version} (tesseract.js-core ${t.version} ${t.build}, wasm) `
      + 'LSTM, one line (PSM 7 or 13)');
  }

  constructor(engine, backend) {
    this.engine = engine;
    this.backend = backend; // result.backend.line_rec
    this.onCall = null; // the worker's sign of life for the client's watchdog
  }

  /** grey: a Uint8Array of height * width; mode: 'line' or 'raw' (TesseractLines.read); returns the result as
   * JSON (a few words: cheaper than a proxy). */
  read(grey, height, width, mode) {
    this.onCall?.();
    return JSON.stringify(this.engine.read(grey, width, height, mode));
  }
}
