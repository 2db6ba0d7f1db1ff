// The `line_rec` role in the browser: Tesseract's LSTM recogniser (npm tesseract.js-core, the wasm engine) reads
// one straightened line crop in the mode Python asks for, as py/retto/native/tesseract_lines.py does natively
// (same modes, resolution and output): a uint8 grey [H, W] image and a mode ('line': PSM 7, 'raw': PSM 13) in;
// {text, words: [{text, box: [x0, y0, x1, y1], score}]} out, as Tesseract gives them. Which mode to read in, which
// reading to keep and the words' logical order are Python's (py/retto/pipeline/stages/line_reading.py).

const TESSDATA = '/tessdata'; // the traineddata's folder in the engine's own (in-memory) file system

/** The engine's enum values, read from the module's exported getters (its own named copies are not set on the
 * module object a worker gets back). */
function enums(core) {
  return { OEM_LSTM_ONLY: core._emscripten_enum_OcrEngineMode_OEM_LSTM_ONLY(),
    PSM_SINGLE_LINE: core._emscripten_enum_PageSegMode_PSM_SINGLE_LINE(),
    PSM_RAW_LINE: core._emscripten_enum_PageSegMode_PSM_RAW_LINE(),
    RIL_WORD: core._emscripten_enum_PageIteratorLevel_RIL_WORD() };
}

/** A pointer to a copy of bytes in the engine's heap (to free): the module exports no heap view, only
 * setValue, so the bytes go in as 32-bit words, a quarter of the calls (malloc's pointers are 8-byte aligned). */
function copyIn(core, bytes) {
  const size = Math.ceil(bytes.length / 4) * 4;
  const padded = new Uint8Array(size);
  padded.set(bytes);
  const words = new Int32Array(padded.buffer);
  const ptr = core._malloc(size);
  for (let k = 0; k < words.length; k++) core.setValue(ptr + 4 * k, words[k], 'i32');
  return ptr;
}

/** A word's text, freed once read: the binding's ResultIterator.GetUTF8Text decodes the string Tesseract allocates
 * for it and never frees it (TessBaseAPI.GetUTF8Text does), a leak on every word of every line. */
function wordText(core, it, level) {
  const ptr = core._emscripten_bind_ResultIterator_GetUTF8Text_1(core.getPointer(it), level);
  if (!ptr) return '';
  const bytes = [];
  for (let b = core.getValue(ptr, 'i8'); b !== 0; b = core.getValue(ptr + bytes.length, 'i8')) bytes.push(b & 255);
  core._free(ptr);
  return new TextDecoder().decode(new Uint8Array(bytes));
}

/** Python's str.split() then ' '.join: runs of whitespace made single spaces, none at the ends. */
const squeeze = (s) => s.split(/\s+/).filter(Boolean).join(' ');

export class TesseractLines {
  /** core: the resolved Emscripten module (TesseractCore factory's result); traineddata: {lang: Uint8Array};
   * languages: the set's "rus+eng" string. */
  constructor(core, traineddata, languages) {
    this.core = core;
    this.enums = enums(core);
    core.FS.mkdirTree?.(TESSDATA) ?? core.FS.mkdir(TESSDATA);
    for (const [lang, bytes] of Object.entries(traineddata)) core.FS.writeFile(`${TESSDATA}/${lang}.traineddata`, bytes);
    this.api = new core.TessBaseAPI();
    // OEM 1: the LSTM recogniser only (the sets' "fast" traineddata have nothing else).
    const failed = this.api.Init(TESSDATA, languages, this.enums.OEM_LSTM_ONLY);
    if (failed) throw new Error(`Tesseract could not load ${languages} (Init returned ${failed})`);
    this.version = this.api.Version();
  }

  /** grey: Uint8Array of width * height bytes, row by row; mode: 'line' (PSM 7) or 'raw' (PSM 13). */
  read(grey, width, height, mode) {
    if (!(width > 0 && height > 0) || grey.length !== width * height) {
      throw new Error(`line_rec needs a grey [H, W] image, got ${grey.length} bytes for ${height}x${width}`);
    }
    const psm = { line: this.enums.PSM_SINGLE_LINE, raw: this.enums.PSM_RAW_LINE }[mode];
    if (psm === undefined) throw new Error(`line_rec reads in mode line or raw, not ${mode}`);
    const { core } = this;
    const ptr = copyIn(core, grey);
    try {
      return this.readMode(ptr, width, height, psm);
    } finally {
      core._free(ptr);
    }
  }

  readMode(ptr, width, height, psm) {
    const { core, api } = this;
    const level = this.enums.RIL_WORD;
    api.SetPageSegMode(psm);
    api.SetImage(ptr, width, height, 1, width);
    api.SetSourceResolution(300); // the crops carry no DPI; without one Tesseract warns and guesses 70
    api.Recognize(null);
    const words = [];
    const it = api.GetIterator();
    if (core.getPointer(it)) {
      do {
        const text = wordText(core, it, level).trim();
        const b = it.getBoundingBox(level);
        if (text) {
          words.push({ text, box: [b.x0, b.y0, b.x1, b.y1],
            score: Math.max(0, Math.min(1, it.Confidence(level) / 100)) });
        }
      } while (it.Next(level));
      core.destroy(it);
    }
    const text = squeeze(api.GetUTF8Text() ?? '');
    api.Clear();
    return { text, words };
  }
}
