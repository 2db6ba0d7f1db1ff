"""Lines read whole by a line recogniser (the `line_rec` role, e.g. Tesseract's LSTM): the grey, padded image it
is given, its word boxes as spans along the crop (the shape the CTC recognisers' words take, words.py) and the
line's writing direction."""
from __future__ import annotations

import re
import unicodedata

import numpy as np

from retto.io.image import resize_linear

PAD = 0.25            # white margin around the crop, in line heights: Tesseract finds no text touching the edge
MIN_HEIGHT = 32       # crops shorter than this are scaled up (the LSTM's input is about 36 px high)
# The recogniser's reading modes (the `line_rec` role's second input): Tesseract's single-line mode (PSM 7, its
# own line finding inside the crop) and raw-line mode (PSM 13, the crop taken as the line as it is).
MODES = ("line", "raw")


# Left-to-right / right-to-left marks Tesseract puts around numbers in right-to-left lines: the text is in logical
# order already, and the marks would only be invisible noise in every export.
BIDI_MARKS = str.maketrans("", "", "\u200e\u200f\u061c")


# Tesseract's traineddata (4.1.0) write some letters in older encodings than Unicode recommends:
# - a zero-width non-joiner after a word-final virama (Tamil pulli, Malayalam chandrakkala): it changes nothing
#   there, and it splits words for search;
# - Malayalam chillu letters as consonant + virama + zero-width joiner (before Unicode 5.1), not the atomic ones;
# - the micro sign U+00B5 for Greek mu;
# - Thai and Lao sara am as nikhahit + sara aa (what NFKC makes of it), not the one letter;
# - the Armenian full stop U+0589, which looks like a colon, as a colon. Armenian has no colon (its raised dot
#   U+2024 does that work), so a colon right after an Armenian letter is the full stop.
VIRAMA_ZWNJ = re.compile("([\u094d\u09cd\u0a4d\u0acd\u0b4d\u0bcd\u0c4d\u0ccd\u0d4d])\u200c(?=\\W|$)")
MALAYALAM_CHILLU = {"\u0d23\u0d4d\u200d": "\u0d7a", "\u0d28\u0d4d\u200d": "\u0d7b", "\u0d30\u0d4d\u200d": "\u0d7c",
                    "\u0d32\u0d4d\u200d": "\u0d7d", "\u0d33\u0d4d\u200d": "\u0d7e", "\u0d15\u0d4d\u200d": "\u0d7f"}
GREEK = re.compile("[\u0370-\u03ff\u1f00-\u1fff]")
ARMENIAN_COLON = re.compile("(?<=[\u0531-\u0556\u0561-\u0587]):")


def clean(text: str) -> str:
    """The recogniser's text in today's Unicode forms (above), NFC, without bidi marks, whitespace runs made
    single spaces."""
    text = VIRAMA_ZWNJ.sub("\\1", text.translate(BIDI_MARKS))
    for old, atomic in MALAYALAM_CHILLU.items():
        text = text.replace(old, atomic)
    text = text.replace("\u0e4d\u0e32", "\u0e33").replace("\u0ecd\u0eb2", "\u0eb3")
    if "\u00b5" in text and GREEK.search(text):
        text = text.replace("\u00b5", "\u03bc")
    text = ARMENIAN_COLON.sub("\u0589", text)
    return " ".join(unicodedata.normalize("NFC", text).split())


def is_rtl(char: str) -> bool:
    """A right-to-left letter (Hebrew, Arabic, Thaana, …), by its Unicode bidirectional class."""
    return unicodedata.bidirectional(char) in ("R", "AL")


def logical_words(text: str, words: list) -> list:
    """The words with their text in logical order. Tesseract's line text is logical, and its words come in
    reading order, but a right-to-left word's own text comes back in visual order (tests/py/native). When the
    line splits into as many words as the recogniser gave, each takes its text from the line; otherwise a word
    with right-to-left letters is reversed (its letters only: good enough for a word box's label)."""
    tokens = text.split()
    if len(tokens) == len(words):
        return [{**w, "text": t} for w, t in zip(words, tokens)]
    return [{**w, "text": w["text"][::-1]} if any(is_rtl(c) for c in w["text"]) else w for w in words]


def direction(text: str) -> str:
    """"rtl" when most of the line's directional letters are right-to-left, else "ltr" (digits and Latin words
    inside an Arabic line do not turn it)."""
    rtl = sum(is_rtl(c) for c in text)
    ltr = sum(unicodedata.bidirectional(c) == "L" for c in text)
    return "rtl" if rtl > ltr else "ltr"


def grey(crop: np.ndarray) -> np.ndarray:
    """uint8 [H, W] from an RGB or grey crop (ITU-R BT.601 luma, the weights Leptonica and PIL use)."""
    if crop.ndim == 2:
        return np.ascontiguousarray(crop, dtype=np.uint8)
    rgb = crop[..., :3].astype(np.float32)
    return np.clip(rgb @ np.array([0.299, 0.587, 0.114], dtype=np.float32) + 0.5, 0, 255).astype(np.uint8)


def prepare(crop: np.ndarray) -> tuple:
    """(image, scale, pad): the crop in grey, scaled up to MIN_HEIGHT when shorter and framed in white, with the
    factor and the margin to take the recogniser's boxes back to crop pixels."""
    g = grey(crop)
    h, w = g.shape
    scale = 1.0
    if 0 < h < MIN_HEIGHT:
        # Bilinear: repeating whole rows and columns at a scale such as 1.14 makes some strokes a pixel thicker
        # than others, which Tesseract reads worse on photographed pages.
        scale = MIN_HEIGHT / h
        g = resize_linear(g, max(1, round(w * scale)), round(h * scale))
    pad = max(4, int(round(g.shape[0] * PAD)))
    return np.pad(g, pad, constant_values=255), scale, pad


def spans(words: list, crop_width: int, scale: float, pad: int, rtl: bool = False) -> list:
    """[(text, u0, u1, score)]: each word's left and right edge as fractions of the crop's width (words.span_quad
    maps them onto the line box), from its box [x0, y0, x1, y1] in the prepared image's pixels, the words in
    reading order. Words follow one another along the line, so a box reaching over the word before it is cut
    short of that word by the line's usual gap between words (the median of the others): Tesseract's LSTM
    sometimes gives a right-to-left word a box from its own start far into the word before it (an Arabic line of
    the script test pages), and boxes that touch would run the two words together in a PDF's text layer."""
    edges = []
    for w in words:
        text = clean(w["text"])
        x0, _y0, x1, _y1 = w["box"]
        u0 = min(max((x0 - pad) / scale / crop_width, 0.0), 1.0)
        u1 = min(max((x1 - pad) / scale / crop_width, 0.0), 1.0)
        if u1 > u0 and text:
            edges.append([text, u0, u1, float(w["score"])])
    # The gap from each word to the next in reading order (negative: the boxes overlap).
    gaps = [(a[1] - b[2]) if rtl else (b[1] - a[2]) for a, b in zip(edges, edges[1:])]
    positive = sorted(g for g in gaps if g > 0)
    usual = positive[len(positive) // 2] if positive else 0.0
    for k, gap in enumerate(gaps):
        if gap < 0:
            before, word = edges[k], edges[k + 1]
            u0, u1 = (word[1], min(word[2], before[1] - usual)) if rtl else (max(word[1], before[2] + usual),
                                                                               word[2])
            if u1 > u0:   # a box wholly inside the word before it stays as Tesseract gave it
                word[1], word[2] = u0, u1
    return [tuple(e) for e in edges]


def line_score(words: list) -> float:
    """The line's confidence: its words' mean, weighted by their length (0 for a line with no word)."""
    sizes = [max(1, len(w["text"])) for w in words]
    return float(sum(s * w["score"] for s, w in zip(sizes, words)) / sum(sizes)) if words else 0.0
