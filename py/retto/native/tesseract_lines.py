"""The `line_rec` role natively: Tesseract's LSTM recogniser (PyPI tesserocr, which bundles libtesseract) reads
one straightened line crop in the mode it is asked for ("line": single-line mode, PSM 7; "raw": raw-line mode,
PSM 13), with the set's traineddata from models/<set>/tessdata/. Which mode, and which reading to keep, is
Python's choice (stages/line_reading.py), the same for the wasm build (web/src/worker/tesseract_lines.js).

The role's contract (pipeline/worker.py) is what a wasm build of the same engine can answer too: (a uint8 grey
image [H, W], mode) in; {"text", "words": [{"text", "box": [x0, y0, x1, y1] in the image's pixels, "score":
0..1}]} out, as Tesseract gives them: the line text in logical order, each word's own text as the engine returns
it (a right-to-left word's letters in visual order; ops.line_text.logical_words puts them right)."""
from __future__ import annotations

from pathlib import Path

import numpy as np

from retto.errors import BACKEND_UNAVAILABLE, INFERENCE_FAILED, RettoError
from retto.ops.line_text import MODES


def engine_name() -> str:
    """What runs the role, for result.backend (e.g. "tesseract 5.5.4 (tesserocr 2.13.0) LSTM, single line …")."""
    import tesserocr
    version = tesserocr.tesseract_version().split()[1]
    return f"tesseract {version} (tesserocr {tesserocr.__version__}) LSTM, one line (PSM 7 or 13)"


class TesseractLines:
    def __init__(self, tessdata: Path, languages: str):
        try:
            import tesserocr
        except ImportError as exc:
            raise RettoError(BACKEND_UNAVAILABLE, "this model set reads lines with Tesseract, which needs "
                                                  "tesserocr: pip install tesserocr==2.13.0") from exc
        self._tesserocr = tesserocr
        try:
            # PSM 7: the image is one text line (our detector found it); OEM 1: the LSTM recogniser only.
            self._api = tesserocr.PyTessBaseAPI(path=str(tessdata) + "/", lang=languages,
                                                psm=tesserocr.PSM.SINGLE_LINE, oem=tesserocr.OEM.LSTM_ONLY)
        except RuntimeError as exc:
            raise RettoError(BACKEND_UNAVAILABLE, f"Tesseract could not load {languages} from {tessdata}: {exc}") \
                from exc
        self.backend = engine_name()

    def read(self, grey: np.ndarray, mode: str = "line") -> dict:
        """One reading of the line in `mode` ("line": PSM 7, "raw": PSM 13)."""
        grey = np.ascontiguousarray(grey, dtype=np.uint8)
        if grey.ndim != 2 or grey.size == 0:
            raise RettoError(INFERENCE_FAILED, f"line_rec needs a grey [H, W] image, got {list(grey.shape)}")
        if mode not in MODES:
            raise RettoError(INFERENCE_FAILED, f"line_rec reads in mode {' or '.join(MODES)}, not {mode!r}")
        psm = self._tesserocr.PSM
        h, w = grey.shape
        api, level = self._api, self._tesserocr.RIL.WORD
        api.SetPageSegMode(psm.SINGLE_LINE if mode == "line" else psm.RAW_LINE)
        api.SetImageBytes(grey.tobytes(), w, h, 1, w)
        api.SetSourceResolution(300)   # the crops carry no DPI; without one Tesseract warns and guesses 70
        api.Recognize()
        words = []
        it = api.GetIterator()
        if it is not None:
            while True:
                try:
                    text = it.GetUTF8Text(level)
                except RuntimeError:   # tesserocr raises on a word with no text (noise Tesseract kept)
                    text = ""
                box = it.BoundingBox(level)
                if text and text.strip() and box is not None:
                    words.append({"text": text.strip(), "box": [int(v) for v in box],
                                  "score": max(0.0, min(1.0, it.Confidence(level) / 100.0))})
                if not it.Next(level):
                    break
        text = " ".join((api.GetUTF8Text() or "").split())
        api.Clear()
        return {"text": text, "words": words}
