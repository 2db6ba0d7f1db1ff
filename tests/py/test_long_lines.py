"""Very long lines are recognised in overlapping windows (retto.rec_windows, issue 23) and read as when run whole;
high-bit-depth grey is scaled to 8 bits in bands, with the same pixels as the whole-image formula."""
from __future__ import annotations

import random

import numpy as np
import pytest
from PIL import Image, ImageDraw, ImageFont

from ocr_metrics import cer
from retto import image as retto_image
from retto import rec_windows

DEJAVU = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"   # Debian fonts-dejavu-core


def test_window_plan_covers_the_line_once_with_context():
    assert rec_windows.plan(rec_windows.MAX_WIDTH) is None
    width = 20_000
    windows = rec_windows.plan(width)
    kept = [(k0, k1) for _, _, k0, k1 in windows]
    assert kept[0][0] == 0 and kept[-1][1] == width
    assert all(a[1] == b[0] for a, b in zip(kept, kept[1:]))           # end to end, no gap, no overlap
    assert all(x0 == max(0, k0 - rec_windows.CONTEXT) and x1 == min(width, k1 + rec_windows.CONTEXT)
               for x0, x1, k0, k1 in windows)


def test_stitching_gives_back_what_a_whole_run_gives_for_a_position_wise_model():
    """With a stand-in recogniser whose every step depends on its own 8 pixels only, windows are exact."""
    def rec(x):   # [N,3,48,W] -> [N,W/8,2]: the mean of each 8-pixel column block, and its negation
        n, _, _, w = x.shape
        steps = x[:, 0, 0, : w // 8 * 8].reshape(n, w // 8, 8).mean(axis=2)
        return np.stack([steps, -steps], axis=2).astype(np.float32)
    x = np.random.default_rng(0).random((2, 3, 48, 20_480), dtype=np.float32)
    np.testing.assert_array_equal(rec_windows.run(rec, x), rec(x))


@pytest.fixture(scope="module")
def session():
    from retto.ort_worker import OrtWorker
    return OrtWorker(threads=2).session()


def test_a_line_wider_than_the_window_limit_reads_as_its_text(session, monkeypatch):
    random.seed(3)
    words = ["garden", "invoice", "total", "river", "market", "seven", "yellow", "table", "window", "paper"]
    text = " ".join(random.choice(words) for _ in range(110))   # about 700 characters
    font = ImageFont.truetype(DEJAVU, 24)
    im = Image.new("L", (int(font.getlength(text)) + 20, 36), 255)
    ImageDraw.Draw(im).text((10, 4), text, font=font, fill=0)
    rgb = np.asarray(im.convert("RGB"))
    windowed = session.run(rgb).to_dict()["lines"]
    monkeypatch.setattr(rec_windows, "MAX_WIDTH", 10 ** 9)   # the same line run whole, for comparison
    whole = session.run(rgb).to_dict()["lines"]
    assert len(windowed) == len(whole) == 1
    print(f"rec input about {48 * im.width // im.height} px wide; windowed == whole: "
          f"{windowed[0]['text'] == whole[0]['text']}")
    # The model itself misreads a letter or two of such a line (seen: "paper" as "aper", run whole too).
    assert cer(whole[0]["text"], text) < 0.01
    assert windowed[0]["text"] == whole[0]["text"]


def test_sixteen_bit_grey_in_bands_equals_the_whole_image_formula(monkeypatch):
    monkeypatch.setattr(retto_image, "GRAY_BAND_PIXELS", 7_000)   # many bands, one partial
    rng = np.random.default_rng(1)
    arr = rng.integers(0, 65536, (301, 5000), dtype=np.uint16)
    img = Image.fromarray(arr)
    expected = np.clip(np.round(arr.astype(np.float64) * (255.0 / 65535.0)), 0, 255).astype(np.uint8)
    got = retto_image._to_rgb(img, sixteen_bit=True)
    assert got.shape == (301, 5000, 3)
    np.testing.assert_array_equal(got[:, :, 0], expected)
    np.testing.assert_array_equal(got[:, :, 2], expected)
