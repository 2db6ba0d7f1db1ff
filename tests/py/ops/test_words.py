"""Word boxes (words.py, from the recogniser's CTC time steps) against the true word positions of rendered pages.

The page is drawn here with Pillow, so every word's position is known: its x extent is Pillow's ink box of the
word, its y extent the line's text cell (the font's ascent to descent), which is what a word box of a text line
covers. Goal (issue: word boxes): IoU >= 0.5 with the true word for >= 95 % of words, upright and on a page turned
90 and 180 degrees (boxes must come back in the coordinates of the image as given).
"""
from __future__ import annotations

import io

import numpy as np
import pytest
from PIL import Image, ImageDraw, ImageFont

PROSE = """The ferry left at a quarter past six, and I was nearly the last one aboard.
A man in a green coat held the gate for me and laughed at his own joke.
Below us the water was the colour of slate, and the gulls kept pace.
It was the 14th of March, 1987, and I had exactly 42 pounds in my pocket.
Invoice no. 2024-0317: 3 boxes of tiles at 12.50 each, due in 30 days.
She said it would rain by noon; it did, and then it stopped again.""".splitlines()

FONTS = [("/usr/share/fonts/truetype/liberation/LiberationSerif-Regular.ttf", 30),
         ("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", 24),
         ("/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf", 36)]


def render_page():
    """A page of the lines above in three fonts; returns (PNG bytes, [(word, (x0, y0, x1, y1))])."""
    img = Image.new("RGB", (1500, 1500), "white")
    draw = ImageDraw.Draw(img)
    truth, y = [], 40
    for path, size in FONTS:
        font = ImageFont.truetype(path, size)
        ascent, descent = font.getmetrics()
        for line in PROSE:
            x = 60
            for word in line.split():
                x0, _, x1, _ = draw.textbbox((x, y), word, font=font, anchor="ls")
                draw.text((x, y), word, font=font, fill="black", anchor="ls")
                truth.append((word, (x0, y - ascent, x1, y + descent)))
                x = x1 + draw.textlength(" ", font=font)
            y += int(size * 1.5)
        y += size
    buf = io.BytesIO()
    img.save(buf, "PNG")
    return buf.getvalue(), truth


def turn(png: bytes, truth: list, angle: int):
    """The page turned clockwise by `angle` (90 or 180) and the true boxes with it."""
    img = Image.open(io.BytesIO(png))
    w, h = img.size
    turned = img.rotate(-angle, expand=True)
    buf = io.BytesIO()
    turned.save(buf, "PNG")

    def point(x, y):
        return (h - y, x) if angle == 90 else (w - x, h - y)
    out = []
    for word, (x0, y0, x1, y1) in truth:
        (ax, ay), (bx, by) = point(x0, y0), point(x1, y1)
        out.append((word, (min(ax, bx), min(ay, by), max(ax, bx), max(ay, by))))
    return buf.getvalue(), out


def iou(a, b) -> float:
    ix = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    iy = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = ix * iy
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / union if union > 0 else 0.0


def bounds(box):
    xs, ys = [p[0] for p in box], [p[1] for p in box]
    return min(xs), min(ys), max(xs), max(ys)


@pytest.fixture(scope="module")
def session(default_worker):
    return default_worker.session()


@pytest.mark.parametrize("angle", [0, 90, 180])
def test_word_boxes_overlap_the_true_words(session, angle):
    png, truth = render_page()
    if angle:
        png, truth = turn(png, truth, angle)
    result = session.run(png).to_dict()
    assert result["page_angle"] == angle
    found = [bounds(w["box"]) for line in result["lines"] for w in line["words"]]
    hits = sum(1 for _, box in truth if max((iou(box, f) for f in found), default=0.0) >= 0.5)
    assert hits / len(truth) >= 0.95, f"{hits} of {len(truth)} words found with IoU >= 0.5"


def test_words_spell_their_line(session):
    png, _ = render_page()
    for line in session.run(png).to_dict()["lines"]:
        assert " ".join(w["text"] for w in line["words"]) == " ".join(line["text"].split())
        assert all(0.0 < w["score"] <= 1.0 for w in line["words"])


def test_word_spans_from_time_steps():
    """words.word_spans on a hand-made CTC output: 'ab c' over 10 steps of an 80 px input filled to 40 px."""
    from retto.ops import words
    labels = ["", "a", "b", "c", " "]
    path = [1, 1, 0, 2, 4, 0, 3, 0, 0, 0]   # a a - b ' ' - c - - -
    probs = np.full((10, 5), 0.01, np.float32)
    for t, k in enumerate(path):
        probs[t, k] = 0.9
    spans = words.line_spans(probs, labels, input_width=80, content_width=40)
    assert [s[0] for s in spans] == ["ab", "c"]
    # 8 px a step. "ab": from one step before its first (clipped to 0) to where the space fires (step 4: 32 px);
    # "c": from after the space (step 5: 40 px, the crop's end) on, clipped to the crop.
    assert spans[0][1:3] == (0.0, pytest.approx(0.8))
    assert spans[1][1:3] == (1.0, 1.0)   # past the crop's content: clipped to its end


def drawn_words(texts: list, gap: int, size: int = 17):
    """A grey line crop of `texts` in Liberation Sans, `gap` px apart, and each word's true ink columns [x0, x1),
    found by drawing that word alone."""
    font = ImageFont.truetype("/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf", size)
    width = 8 + sum(int(font.getlength(t)) + gap for t in texts)
    line = Image.new("L", (width, size + 8), 255)
    truth, x = [], 6
    for t in texts:
        alone = Image.new("L", line.size, 255)
        ImageDraw.Draw(alone).text((x, 2), t, font=font, fill=0)
        ImageDraw.Draw(line).text((x, 2), t, font=font, fill=0)
        cols = np.flatnonzero((np.asarray(alone) < 128).any(axis=0))
        truth.append((int(cols[0]), int(cols[-1]) + 1))
        x += int(font.getlength(t)) + gap
    return np.asarray(line), truth


def test_word_ends_move_onto_their_ink():
    from retto.ops import words
    texts = ["13", "A", "C-9", "D"]
    crop, truth = drawn_words(texts, 6)
    w = crop.shape[1]
    # As the CTC steps place them: a step (4-5 px) right of the ink, and a pixel wider.
    spans = [(t, (x0 + 4) / w, (x1 + 5) / w, 0.9) for t, (x0, x1) in zip(texts, truth)]
    fitted = words.fit_to_ink(spans, crop)
    assert [s[0] for s in fitted] == texts and [s[3] for s in fitted] == [0.9] * 4
    for (_t, u0, u1, _s), (x0, x1) in zip(fitted, truth):
        assert abs(u0 * w - x0) <= 1 and abs(u1 * w - x1) <= 1


def test_a_rule_under_the_line_or_a_speck_between_words_moves_no_word_end():
    from retto.ops import words
    texts = ["PN", "4471-B"]
    crop, truth = drawn_words(texts, 8)
    w = crop.shape[1]
    spans = [(t, (x0 + 3) / w, (x1 + 3) / w, 0.9) for t, (x0, x1) in zip(texts, truth)]
    ruled = crop.copy()
    ruled[-2, :] = 0                         # a table rule under the whole line: every column has ink
    assert words.fit_to_ink(spans, ruled) == spans
    specked = crop.copy()
    gap = (truth[0][1] + 3 + truth[1][0]) // 2
    specked[10, gap] = 0                     # a speck in the gap between the words, outside both spans
    fitted = words.fit_to_ink(spans, specked)
    for (_t, u0, u1, _s), (x0, x1) in zip(fitted, truth):
        assert abs(u0 * w - x0) <= 1 and abs(u1 * w - x1) <= 1
    blank = np.full_like(crop, 255)          # no ink at all: nothing to fit
    assert words.fit_to_ink(spans, blank) == spans
