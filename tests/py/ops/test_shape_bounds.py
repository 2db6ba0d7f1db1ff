"""Memory and shape bounds: strips (a 1 x 30000 PNG, a 100 x 4500 column, a 30000 x 64 line), tall images, and
pages with more text regions than the detector's candidate cap. Ground truth is the text each test draws."""
from __future__ import annotations

import io
import json
import subprocess
import sys

import numpy as np
import pytest
from PIL import Image, ImageDraw, ImageFont

from refkit import ROOT

from retto import Session

from retto.models import sets as model_sets

FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
WORDS = ["apple", "bread", "cheese", "dates", "eggs", "flour", "grapes", "honey", "melon", "lemon"]
LINE = "the quick brown fox jumps over the lazy dog while the long receipt keeps printing " * 3


def png(img: Image.Image) -> bytes:
    buf = io.BytesIO()
    img.save(buf, "PNG")
    return buf.getvalue()


def column() -> tuple[bytes, list]:
    """100 x 4500: one word per line, 40 px apart, the last line near the bottom."""
    words = [WORDS[i % len(WORDS)] for i in range(110)]
    img = Image.new("RGB", (100, 4500), "white")
    draw = ImageDraw.Draw(img)
    for i, w in enumerate(words):
        draw.text((8, 10 + i * 40), w, font=ImageFont.truetype(FONT, 18), fill="black")
    return png(img), words


def long_line() -> tuple[bytes, str]:
    """30000 x 64: one line of text about 7000 px long, then white."""
    img = Image.new("RGB", (30000, 64), "white")
    ImageDraw.Draw(img).text((20, 8), LINE.strip(), font=ImageFont.truetype(FONT, 40), fill="black")
    return png(img), LINE.strip()


# One subprocess runs the strips through the Python API and reports its own peak RSS, so the figure is this
# work's alone (not the test process's, which holds other sessions and images).
MEASURE = r"""
import json, re, sys
from retto.native.ort_worker import OrtWorker
session = OrtWorker(threads=2).session()
out = {}
for path in sys.argv[1:]:
    r = session.run(open(path, "rb").read()).to_dict()
    out[path] = {"texts": [l["text"] for l in r["lines"]], "warnings": r["warnings"]}
# VmHWM is this process image's own peak (ru_maxrss would also count the forking parent's RSS at exec time).
out["peak_rss_mb"] = int(re.search(r"VmHWM:\s+(\d+) kB", open("/proc/self/status").read()).group(1)) / 1024
print(json.dumps(out))
"""


@pytest.fixture(scope="module")
def strips(tmp_path_factory):
    folder = tmp_path_factory.mktemp("strips")
    col, col_words = column()
    line, line_text = long_line()
    files = {"thin": png(Image.new("L", (1, 30000), 255)), "column": col, "line": line}
    for name, data in files.items():
        (folder / f"{name}.png").write_bytes(data)
    proc = subprocess.run([sys.executable, "-c", MEASURE, *(str(folder / f"{n}.png") for n in files)],
                          cwd=ROOT, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    return {"results": {n: out[str(folder / f"{n}.png")] for n in files}, "peak_rss_mb": out["peak_rss_mb"],
            "column_words": col_words, "line_text": line_text}


def test_strips_stay_within_1_5_gb(strips):
    # Before tiling, the 1 x 30000 PNG alone made a 45632 x 736 det input and peaked at 8 GB.
    assert strips["peak_rss_mb"] <= 1536, strips["peak_rss_mb"]


def test_blank_thin_strip_is_an_empty_result(strips):
    assert strips["results"]["thin"]["texts"] == []


def test_text_column_is_read_whole_and_in_order(strips):
    assert strips["results"]["column"]["texts"] == strips["column_words"]


def test_long_single_line_is_read_at_full_size(strips):
    # The reference shrink would have made this line 4 px tall; tiles read it whole, joined across the cuts.
    assert strips["results"]["line"]["texts"] == [strips["line_text"]]


class ShapeRecorder:
    """A worker that records the det input shapes and finds no text (the shape logic is what is under test)."""

    def __init__(self):
        self.det_shapes = []

    def det(self, x):
        self.det_shapes.append(x.shape)
        return np.zeros((x.shape[0], 1, *x.shape[2:]), np.float32)

    def cls(self, x):
        return np.tile(np.array([[1.0, 0.0]], np.float32), (x.shape[0], 1))

    def rec(self, x):
        return np.zeros((x.shape[0], 1, 3), np.float32)


@pytest.mark.parametrize("size", [(60, 1200), (1, 1999), (30, 30000), (40000, 2), (3000, 100)])
def test_det_inputs_are_bounded_for_any_aspect(size):
    """Every det input stays within a few megapixels, whatever the aspect ratio (w, h) of the image."""
    w, h = size
    recorder = ShapeRecorder()
    Session(recorder, charset=["a"], config=model_sets.load().make_config()).run(
        np.full((h, w, 3), 255, np.uint8))
    assert recorder.det_shapes
    for shape in recorder.det_shapes:
        assert shape[2] * shape[3] <= 6_000_000, (size, shape)


def grid_page(cols: int, rows: int) -> bytes:
    """Two-letter words on a grid, 42 px apart across and 20 px between rows: each one its own text region."""
    img = Image.new("RGB", (cols * 70 + 20, rows * 45 + 20), "white")
    draw = ImageDraw.Draw(img)
    font = ImageFont.truetype(FONT, 22)
    for r in range(rows):
        for c in range(cols):
            draw.text((20 + c * 70, 15 + r * 45), WORDS[(r + c) % len(WORDS)][:2], font=font, fill="black")
    return png(img)


def test_a_page_of_1204_separate_words_is_read_to_the_bottom(default_worker):
    """Over the reference's 1000 candidates (which kept only the top of such a page, silently): the sets raise
    the cap, so the whole page is read."""
    session = default_worker.session()
    result = session.run(grid_page(28, 43)).to_dict()
    assert len(result["lines"]) >= 0.95 * 28 * 43, len(result["lines"])
    assert max(line["box"][2][1] for line in result["lines"]) > 0.95 * result["image"]["height"]
    assert not result["warnings"]


def test_a_cap_that_still_applies_is_said(default_worker):
    session = default_worker.session({"det": {"max_candidates": 50}})
    result = session.run(grid_page(10, 10)).to_dict()
    assert any("text regions; only the first 50 were read" in w for w in result["warnings"]), result["warnings"]
