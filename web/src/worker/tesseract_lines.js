// The `line_rec` role in the browser: Tesseract's LSTM recogniser (npm tesseract.js-core, the wasm engine) reads
// one straightened line crop in single-line mode, as py/retto/native/tesseract_lines.py does natively (same
// modes, resolution and output): a uint8 grey [H, W] image in; {text, words: [{text, box: [x0, y0, x1, y1],
// score}]} out, the words in logical order.

const TESSDATA = '/tessdata'; // the traineddata's folder in the engine's own (in-memory) file system

/** The engine's enum values, read from the module's exported getters (its own named copies are not set on the
 * module object a worker gets back). */
function enums(core) {
  return { OEM_LSTM_ONLY: core._emscripten_enum_OcrEngineMode_OEM_LSTM_ONLY(),
    PSM_SINGLE_LINE: core._emscripten_enum_PageSegMode_PSM_SINGLE_LINE(),
    PSM_RAW_LINE: core._emscripten_enum_PageSegMode_PSM_RAW_LINE(),
    RIL_WORD: core._emscripten_enum_PageIteratorLevel_RIL_WORD() };
}

/** Has the text a right-to-left character? rtlRanges: [[first, last], …] code points of bidi class R or AL, from
 * Python's line_text.is_rtl (retto.browser.facts; JS regexps cannot name a bidi class). */
export function hasRtl(text, rtlRanges) {
  for (const ch of text) {
    const c = ch.codePointAt(0);
    let lo = 0;
    let hi = rtlRanges.length - 1;
    while (lo <= hi) { // the runs are sorted: a binary search
      const mid = (lo + hi) >> 1;
      if (c < rtlRanges[mid][0]) hi = mid - 1;
      else if (c > rtlRanges[mid][1]) lo = mid + 1;
      else return true;
    }
  }
  return false;
}

/** The words with their text in logical order (native logical_words): Tesseract's line text is logical, but a
 * right-to-left word's own text comes back in visual order. When the line splits into as many words as the
 * iterator gave, each takes its text from the line; otherwise a right-to-left word is reversed. */
export function logicalWords(text, words, rtlRanges) {
  const tokens = text.split(/\s+/).filter(Boolean);
  if (tokens.length === words.length) return words.map((w, k) => ({ ...w, text: tokens[k] }));
  return words.map((w) => (hasRtl(w.text, rtlRanges) ? { ...w, text: [...w.text].reverse().join('') } : w));
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
   * languages: the set's "rus+eng" string; rtlRanges: hasRtl's. */
  constructor(core, traineddata, languages, rtlRanges) {
    this.core = core;
    this.rtlRanges = rtlRanges;
    this.enums = enums(core);
    core.FS.mkdirTree?.(TESSDATA) ?? core.FS.mkdir(TESSDATA);
    for (const [lang, bytes] of Object.entries(traineddata)) core.FS.writeFile(`${TESSDATA}/${lang}.traineddata`, bytes);
    this.api = new core.TessBaseAPI();
    // OEM 1: the LSTM recogniser only (the sets' "fast" traineddata have nothing else).
    const failed = this.api.Init(TESSDATA, languages, this.enums.OEM_LSTM_ONLY);
    if (failed) throw new Error(`Tesseract could not load ${languages} (Init returned ${failed})`);
    this.version = this.api.Version();
  }

  /** grey: Uint8Array of width * height bytes, row by row. */
  read(grey, width, height) {
    if (!(width > 0 && height > 0) || grey.length !== width * height) {
      throw new Error(`line_rec needs a grey [H, W] image, got ${grey.length} bytes for ${height}x${width}`);
    }
    const { core } = this;
    const ptr = copyIn(core, grey);
    try {
      const out = this.readMode(ptr, width, height, this.enums.PSM_SINGLE_LINE);
      // Tesseract's own line finding inside PSM 7 drops some clean Bengali lines whole; raw-line mode reads them.
      return out.words.length ? out : this.readMode(ptr, width, height, this.enums.PSM_RAW_LINE);
    } finally {
      core._free(ptr);
    }
  }

  readMode(ptr, width, height, mode) {
    const { core, api } = this;
    const level = this.enums.RIL_WORD;
    api.SetPageSegMode(mode);
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
    return { text, words: logicalWords(text, words, this.rtlRanges) };
  }
}
