"""The `line_rec` role natively: Tesseract's LSTM recogniser (PyPI tesserocr, which bundles libtesseract) reads
one straightened line crop in single-line mode (PSM 7; raw-line mode, PSM 13, when PSM 7 finds no text), with the
set's traineddata from models/<set>/tessdata/.

The role's contract (pipeline/worker.py) is what a wasm build of the same engine can answer too: a uint8 grey
image [H, W] in; {"text", "words": [{"text", "box": [x0, y0, x1, y1] in the image's pixels, "score": 0..1}]}
out, the words in reading (logical) order."""
from __future__ import annotations

from pathlib import Path

import numpy as np

from retto.errors import BACKEND_UNAVAILABLE, INFERENCE_FAILED, RettoError
from retto.ops.line_text import is_rtl


def engine_name() -> str:
    """What runs the role, for result.backend (e.g. "tesseract 5.5.4 (tesserocr 2.13.0) LSTM, single line …")."""
    import tesserocr
    version = tesserocr.tesseract_version().split()[1]
    return f"tesseract {version} (tesserocr {tesserocr.__version__}) LSTM, single line (PSM 7, else 13)"


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

    def read(self, grey: np.ndarray) -> dict:
        grey = np.ascontiguousarray(grey, dtype=np.uint8)
        if grey.ndim != 2 or grey.size == 0:
            raise RettoError(INFERENCE_FAILED, f"line_rec needs a grey [H, W] image, got {list(grey.shape)}")
        psm = self._tesserocr.PSM
        out = self._read(grey, psm.SINGLE_LINE)
        # Tesseract's own line finding inside PSM 7 drops some clean Bengali lines whole (the headline joins
        # every letter into one blob); raw-line mode reads them. Not used first: it keeps stray edge marks.
        return out if out["words"] else self._read(grey, psm.RAW_LINE)

    def _read(self, grey: np.ndarray, mode) -> dict:
        h, w = grey.shape
        api, level = self._api, self._tesserocr.RIL.WORD
        api.SetPageSegMode(mode)
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
        return {"text": text, "words": logical_words(text, words)}


def logical_words(text: str, words: list) -> list:
    """The words with their text in logical order. Tesseract's line text is logical, and its words come in
    reading order, but a right-to-left word's own text comes back in visual order (tests/py/native). When the
    line splits into as many words as the iterator gave, each takes its text from the line; otherwise a word
    with right-to-left letters is reversed (its letters only: good enough for a word box's label)."""
    tokens = text.split()
    if len(tokens) == len(words):
        return [{**w, "text": t} for w, t in zip(words, tokens)]
    return [{**w, "text": w["text"][::-1]} if any(is_rtl(c) for c in w["text"]) else w for w in words]
