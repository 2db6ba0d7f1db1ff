"""Lines read whole (retto.ops.line_text): the image the line recogniser gets, its word boxes as spans along the
crop, the line's direction and the Unicode forms its text is given in. Expected values come from Unicode's own
tables and hand-made images, not from the code."""
import numpy as np

from retto.ops import line_text


def test_direction_follows_the_letters_not_the_digits():
    assert line_text.direction("שלום עולם") == "rtl"
    assert line_text.direction("مرحبا 2026") == "rtl"          # digits are weak: the Arabic letters decide
    assert line_text.direction("Привет, мир") == "ltr"
    assert line_text.direction("שלום hello world") == "ltr"     # more Latin letters than Hebrew ones
    assert line_text.direction("") == "ltr"


def test_clean_gives_todays_unicode_forms():
    # Tamil: a zero-width non-joiner after a word-final pulli is dropped; inside a word it stays.
    assert line_text.clean("நாங்கள்\u200c காலையில்\u200c.") == "நாங்கள் காலையில்."
    assert line_text.clean("க்\u200cஷ") == "க்\u200cஷ"
    # Malayalam: old chillu sequence (la + chandrakkala + ZWJ) -> the atomic chillu letter U+0D7D.
    assert line_text.clean("\u0d05\u0d35\u0d7e \u0d15\u0d32\u0d4d\u200d") == "\u0d05\u0d35\u0d7e \u0d15\u0d7d"
    # Thai sara am written as nikhahit + sara aa -> U+0E33.
    assert line_text.clean("\u0e17\u0e4d\u0e32") == "\u0e17\u0e33"
    # The micro sign becomes Greek mu only in Greek text.
    assert line_text.clean("ήρε\u00b5η") == "ήρε\u03bcη"
    assert line_text.clean("5 \u00b5m") == "5 \u00b5m"
    # Armenian has no colon: one right after an Armenian letter is the full stop U+0589 it looks like.
    assert line_text.clean("գնացինք շուկա: Իմ") == "գնացինք շուկա\u0589 Իմ"
    assert line_text.clean("Ժամը 10:30 է, ok: yes") == "Ժամը 10:30 է, ok: yes"
    # Bidi marks around numbers go; whitespace runs become one space; NFC.
    assert line_text.clean("\u200f١٢\u200e  e\u0301") == "١٢ \u00e9"


def test_prepare_frames_a_short_crop_in_white_and_scales_it_up():
    crop = np.full((16, 100, 3), 255, np.uint8)
    crop[4:12, 10:20] = (0, 0, 0)                     # a black square
    image, scale, pad = line_text.prepare(crop)
    assert image.dtype == np.uint8 and image.ndim == 2
    assert scale == 2.0                                # 16 px -> 32 px
    assert image.shape == (32 + 2 * pad, 200 + 2 * pad)
    assert (image[:pad] == 255).all() and (image[:, :pad] == 255).all()
    ys, xs = np.nonzero(image < 128)
    assert (xs.min() - pad) / scale == 10 and (xs.max() + 1 - pad) / scale == 20



def test_a_crop_scaled_up_by_a_fraction_keeps_its_strokes_alike():
    """28 -> 32 px is a scale of 8/7: repeating whole columns would draw one stroke in seven two pixels wide and
    the others one. Scaled bilinearly, each 1 px stroke carries the same ink."""
    crop = np.full((28, 70), 255, np.uint8)
    crop[:, 3:70:5] = 0                                # 14 strokes, 1 px wide, 5 px apart
    image, scale, pad = line_text.prepare(crop)
    assert scale == 32 / 28
    row = 255 - image[pad + 16, pad:-pad].astype(int)
    ink = [int(row[round(x * scale) - 2:round(x * scale) + 3].sum()) for x in range(3, 70, 5)]
    assert max(ink) <= 1.1 * min(ink), ink

def test_spans_are_word_edges_as_fractions_of_the_crop():
    # A 200 px crop prepared at scale 2 with a 10 px margin: a word from x 50 to 90 of the crop sits at
    # 10 + 2*50 = 110 .. 10 + 2*90 = 190 in the prepared image.
    words = [{"text": "abc", "box": [110, 5, 190, 40], "score": 0.9},
             {"text": "", "box": [200, 5, 220, 40], "score": 0.9},           # nothing to show: dropped
             {"text": "\u200f", "box": [230, 5, 240, 40], "score": 0.9}]     # only a bidi mark: dropped
    assert line_text.spans(words, 200, 2.0, 10) == [("abc", 0.25, 0.45, 0.9)]


def test_a_word_box_reaching_over_the_word_before_it_is_cut_short_of_that_word():
    # Crop 100 px, scale 1, no margin. Right to left: the second word's box runs into the first word's; the
    # line's usual gap between words is 0.05 (the gap between the second and the third word).
    rtl = [{"text": "א", "box": [60, 0, 90, 10], "score": 1.0}, {"text": "ב", "box": [20, 0, 80, 10], "score": 1.0},
           {"text": "ג", "box": [0, 0, 15, 10], "score": 1.0}]
    got = line_text.spans(rtl, 100, 1.0, 0, rtl=True)
    assert [t for t, *_ in got] == ["א", "ב", "ג"]
    assert [tuple(round(v, 6) for v in (u0, u1)) for _t, u0, u1, _s in got] == [(0.6, 0.9), (0.2, 0.55),
                                                                                (0.0, 0.15)]
    ltr = [{"text": "a", "box": [0, 0, 40, 10], "score": 1.0}, {"text": "b", "box": [30, 0, 70, 10], "score": 1.0}]
    assert line_text.spans(ltr, 100, 1.0, 0) == [("a", 0.0, 0.4, 1.0), ("b", 0.4, 0.7, 1.0)]   # no usual gap
    # A box wholly inside the word before it would vanish: it is left as Tesseract gave it.
    inside = [{"text": "a", "box": [0, 0, 80, 10], "score": 1.0}, {"text": "b", "box": [20, 0, 60, 10], "score": 1.0}]
    assert line_text.spans(inside, 100, 1.0, 0)[1] == ("b", 0.2, 0.6, 1.0)


def test_line_score_weighs_words_by_length():
    words = [{"text": "aaa", "score": 1.0}, {"text": "b", "score": 0.6}]
    assert abs(line_text.line_score(words) - (3 * 1.0 + 0.6) / 4) < 1e-9
    assert line_text.line_score([]) == 0.0


def test_hocr_and_alto_name_the_language_of_a_line_in_another_script_when_the_set_has_one():
    from retto.ops.line_metrics import language
    assert language("הילדים שיחקו", ["he", "en"]) == "he"
    assert language("Hello there", ["he", "en"]) == "en"
    assert language("วันนี้อากาศดี", ["th"]) == "th"
    assert language("Привет", ["ru", "uk", "en"]) is None                # two Cyrillic languages: cannot tell
    assert language("Привет", ["zh", "en"]) is None                      # a set that does not read it
    assert language("Hello", ["zh", "en"]) == "en"                       # as before


def test_logical_words_take_their_text_from_the_logical_line():
    # Tesseract gives a right-to-left word's own letters in visual order (tests/py/native), the line in logical.
    words = [{"text": "םולש", "box": [60, 0, 100, 10], "score": 0.9}, {"text": "םלוע", "box": [0, 0, 50, 10],
                                                                       "score": 0.8}]
    got = line_text.logical_words("שלום עולם", words)
    assert [w["text"] for w in got] == ["שלום", "עולם"] and [w["box"] for w in got] == [w["box"] for w in words]
    # The line splits differently: each right-to-left word is reversed on its own, a Latin one left as it is.
    got = line_text.logical_words("שלום עולם ok", [words[0], {"text": "ok", "box": [0, 0, 9, 9], "score": 1.0}])
    assert [w["text"] for w in got] == ["שלום", "ok"]
    assert line_text.logical_words("", []) == []


class FakeLines:
    """A line recogniser answering each mode with a given reading; it records the modes asked for."""

    def __init__(self, readings):
        self.readings, self.modes = readings, []

    async def read_line(self, role, image, mode, page):
        assert role == "line_rec" and image.dtype == np.uint8 and image.ndim == 2
        self.modes.append(mode)
        return self.readings[mode]


def reading(text, score):
    return {"text": text, "words": [{"text": t, "box": [10 * k, 0, 10 * k + 8, 10], "score": score}
                                    for k, t in enumerate(text.split())]}


def read_crop(readings):
    import asyncio
    from retto.pipeline.stages.line_reading import LineReading
    lines = FakeLines(readings)
    text, score, _spans, _direction = asyncio.run(LineReading(lines).read(np.full((20, 60), 255, np.uint8), None))
    return text, round(score, 2), lines.modes


def test_a_weak_or_empty_single_line_reading_is_read_in_raw_line_mode_too_and_the_better_one_kept():
    from retto.pipeline.stages.line_reading import RAW_BELOW
    strong, weak = min(1.0, RAW_BELOW + 0.05), RAW_BELOW - 0.3
    assert read_crop({"line": reading("a b", strong), "raw": reading("x", 1.0)}) == ("a b", strong, ["line"])
    assert read_crop({"line": reading("12", weak), "raw": reading("a b", 0.92)}) == ("a b", 0.92, ["line", "raw"])
    assert read_crop({"line": reading("a b", weak), "raw": reading("a,", weak - 0.1)}) == ("a b", weak,
                                                                                          ["line", "raw"])
    assert read_crop({"line": reading("", 0), "raw": reading("a", 0.5)}) == ("a", 0.5, ["line", "raw"])
    assert read_crop({"line": reading("", 0), "raw": reading("", 0)}) == ("", 0.0, ["line", "raw"])

