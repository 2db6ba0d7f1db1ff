"""Very long lines are recognised in overlapping windows (retto.ops.rec_windows, issue 23) and read as when run whole;
high-bit-depth grey is scaled to 8 bits in bands, with the same pixels as the whole-image formula."""
from __future__ import annotations

import random

import numpy as np
import pytest
from PIL import Image, ImageDraw, ImageFont

from ocr_metrics import cer
from retto.io import image as retto_image
from retto.ops import rec_windows

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
    """With a stand-in recogniser whose every step depends on its own 8 pixels only, windows are exact, blank
    steps (where the seams go) included; each window's output is reduced to its best classes as it comes."""
    import asyncio

    def rec(x):   # [N,3,48,W] -> [N,W/8,3]: a step's class is its 8-pixel block's mean, cut in three bands
        n, _, _, w = x.shape
        steps = x[:, 0, 0, : w // 8 * 8].reshape(n, w // 8, 8).mean(axis=2)
        return np.stack([steps < 0.4, (steps >= 0.4) & (steps < 0.6), steps >= 0.6], axis=2) * steps[..., None]

    def best(probs):
        idx = probs.argmax(axis=2)
        return idx, np.take_along_axis(probs, idx[..., None], axis=2)[..., 0]

    x = np.random.default_rng(0).random((2, 3, 48, 20_480), dtype=np.float32)
    calls = []
    got_idx, got_conf = asyncio.run(rec_windows.best_classes(lambda w: calls.append(w.shape[3]) or rec(w), x, best))
    want_idx, want_conf = best(rec(x).astype(np.float32))
    assert len(calls) == len(rec_windows.plan(20_480)) and max(calls) <= rec_windows.WINDOW + 2 * rec_windows.CONTEXT
    assert (want_idx == 0).any()   # blank steps exist, so the seams were placed at them
    np.testing.assert_array_equal(got_idx, want_idx)
    np.testing.assert_array_equal(got_conf, want_conf)


@pytest.fixture(scope="module")
def session(default_worker):
    return default_worker.session()


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


def test_sixteen_bit_grey_reduced_while_converted_is_the_mean_of_each_block(monkeypatch):
    monkeypatch.setattr(retto_image, "GRAY_BAND_PIXELS", 20_000)   # many bands; 301 x 5003: partial edge blocks
    rng = np.random.default_rng(2)
    arr = rng.integers(0, 65536, (301, 5003), dtype=np.uint16)
    # Independent of the banding: pad to whole 4 x 4 blocks, sum each, divide by the real pixels it holds.
    pad = np.zeros((304, 5004)); pad[:301, :5003] = arr
    counts = np.zeros((304, 5004)); counts[:301, :5003] = 1
    sums = pad.reshape(76, 4, 1251, 4).sum(axis=(1, 3))
    n = counts.reshape(76, 4, 1251, 4).sum(axis=(1, 3))
    expected = np.clip(np.round(sums / n * (255.0 / 65535.0)), 0, 255).astype(np.uint8)
    got = retto_image._to_rgb(Image.fromarray(arr), sixteen_bit=True, factor=4)
    assert got.shape == (76, 1251, 3)
    np.testing.assert_array_equal(got[:, :, 1], expected)


def test_a_large_sixteen_bit_scan_is_decoded_smaller_and_reads_at_full_size(session):
    """A 16-bit grey page at least twice global.max_side_len is reduced while converted (never below that
    length, like a large JPEG's scaled decode); the result keeps the full size and boxes."""
    import io
    lines = ["Sixteen bit scans of archive pages", "are read from a reduced copy", "with boxes at full size"]
    font = ImageFont.truetype(DEJAVU, 120)
    im = Image.new("L", (4400, 900), 235)
    draw = ImageDraw.Draw(im)
    for i, line in enumerate(lines):
        draw.text((150, 120 + 230 * i), line, font=font, fill=25)
    buf = io.BytesIO()
    Image.fromarray(np.asarray(im).astype(np.uint16) * 257).save(buf, format="PNG")   # 16-bit grey samples
    max_side = session.config.global_.max_side_len
    pixels, _notes, full = retto_image.decode_scaled(buf.getvalue(), max_side=max_side)
    assert full == (4400, 900) and pixels.shape[1] < 4400 and pixels.shape[1] >= max_side
    result = session.run(buf.getvalue()).to_dict()
    assert (result["image"]["width"], result["image"]["height"]) == (4400, 900)
    got = [l["text"] for l in result["lines"]]
    assert len(got) == 3 and cer(" ".join(got), " ".join(lines)) < 0.02, got
    for i, l in enumerate(result["lines"]):   # boxes on the written lines, in full-size pixels
        ys = [p[1] for p in l["box"]]
        assert 120 + 230 * i - 30 < min(ys) and max(ys) < 120 + 230 * i + 170
