"""retto.browser.buckets.BucketWorker: fixed-shape calls to the inner worker, outputs cut back, sync and async, and what
padding does to real OCR results."""
from __future__ import annotations

import asyncio

import numpy as np
import onnxruntime as ort
import pytest

from ocr_metrics import levenshtein, match_lines
from refkit import THREADS

from retto import RettoError, Session

from retto.models import sets as model_sets
from retto.browser.buckets import BucketWorker, batch_for, det_sides_for, rec_time_steps, smallest_fit
from retto.config import DetConfig
from retto.ops.det import input_size

CLASSES = 7


class FakeWorker:
    """Records input shapes; det returns channel 0 of its input, cls row means, rec a [N, W_in/8-ish, C] map
    whose value at (n, t) is 1000 n + t, so slicing mistakes show up as wrong numbers."""

    def __init__(self):
        self.calls = []

    def det(self, x):
        self.calls.append(("det", x.shape, x.copy()))
        return x[:, :1].copy()

    def cls(self, x):
        self.calls.append(("cls", x.shape, x.copy()))
        return np.stack([x.mean(axis=(1, 2, 3)), -x.mean(axis=(1, 2, 3))], axis=1)

    def rec(self, x):
        self.calls.append(("rec", x.shape, x.copy()))
        n, t = x.shape[0], rec_time_steps(x.shape[3])
        grid = 1000.0 * np.arange(n)[:, None] + np.arange(t)[None, :]
        return np.repeat(grid[:, :, None], CLASSES, axis=2).astype(np.float32)


class AsyncFake(FakeWorker):
    async def det(self, x):
        await asyncio.sleep(0)
        return FakeWorker.det(self, x)

    async def cls(self, x):
        await asyncio.sleep(0)
        return FakeWorker.cls(self, x)

    async def rec(self, x):
        await asyncio.sleep(0)
        return FakeWorker.rec(self, x)


def page(h: int, w: int, seed: int = 0) -> np.ndarray:
    """A normalised det input: white paper (1.0) with dark noise inside, like a document."""
    x = np.ones((1, 3, h, w), np.float32)
    x[:, :, 5:h - 5, 5:w - 5] = np.random.default_rng(seed).uniform(-1, 1, (3, h - 10, w - 10))
    return x


# --------------------------------------------------------------------------------------------- det

def test_det_pads_to_the_smallest_bucket_with_background_and_crops_back():
    inner = FakeWorker()
    x = page(100, 750)
    out = BucketWorker(inner, det_buckets=(736, 960)).det(x)
    (_, shape, sent), = inner.calls
    assert shape == (1, 3, 736, 960)
    assert np.array_equal(sent[:, :, :100, :750], x)
    assert np.all(sent[:, :, 100:, :] == 1.0) and np.all(sent[:, :, :, 750:] == 1.0)   # white, like the paper
    assert out.shape == (1, 1, 100, 750) and np.array_equal(out, x[:, :1])


def test_det_background_follows_a_dark_page():
    inner = FakeWorker()
    x = -page(64, 64)                                   # light text on black
    BucketWorker(inner, det_buckets=(96,)).det(x)
    sent = inner.calls[0][2]
    assert np.all(sent[:, :, 64:, :] == -1.0) and np.all(sent[:, :, :, 64:] == -1.0)


def test_det_larger_than_every_bucket_is_an_error_or_goes_to_the_fallback():
    x = page(736, 2400)
    with pytest.raises(RettoError) as err:
        BucketWorker(FakeWorker(), det_buckets=(736, 1984)).det(x)
    assert err.value.code == "image_too_large" and "2400" in err.value.message
    fallback = FakeWorker()
    out = BucketWorker(FakeWorker(), det_buckets=(736, 1984), fallback=fallback).det(x)
    assert fallback.calls[0][1] == x.shape and out.shape == (1, 1, 736, 2400)


DEFAULT_LADDER = (736, 832, 1024, 1216, 1536, 1984)


@pytest.mark.parametrize("limit, want", [
    (736, DEFAULT_LADDER),                              # the default: the ladder as it always was
    (320, (320, 736, 832, 1024, 1216, 1536, 1984)),     # a small side: a small first bucket, not padding to 736
    (128, (128, 736, 832, 1024, 1216, 1536, 1984)),
    (304, (288, 320, 736, 832, 1024, 1216, 1536, 1984)),  # 303 and 304 round to different multiples of 32
    (10, (32, 736, 832, 1024, 1216, 1536, 1984)),       # never under 32
    (1000, (992, 1024, 1216, 1536, 1984)),              # above 736: the smaller default sides are never needed
])
def test_det_ladder_starts_at_the_configured_side(limit, want):
    assert det_sides_for(DetConfig(limit_side_len=limit)) == want


def test_det_ladder_of_a_set_and_of_limit_type_max():
    assert det_sides_for(DetConfig(limit_side_len=320), sides=(1280, 640)) == (320, 640, 1280)
    assert det_sides_for(DetConfig(limit_side_len=960, limit_type="max")) == DEFAULT_LADDER


@pytest.mark.parametrize("limit", [64, 100, 128, 300, 304, 320, 500, 736, 1000])
def test_an_upscaled_images_short_side_is_exactly_a_bucket(limit):
    """Every image det upscales (short side under the limit) gets a short side that is itself a bucket: no
    padding on that side, whatever the configured side."""
    cfg = DetConfig(limit_side_len=limit)
    ladder = det_sides_for(cfg)
    for short in range(7, limit, 7):
        for long_ in (short, short + 13, 3 * short + 1):
            h, w = input_size(short, long_, cfg)
            assert smallest_fit(h, ladder) == h, (limit, short, long_, h)


# --------------------------------------------------------------------------------------------- rec and cls

@pytest.mark.parametrize("batch_size, ladder_batch, want", [
    (6, 6, 6),     # the WebGL sets' default: unchanged
    (1, 6, 1),     # one line at a time: batch-1 buckets, not five padding rows
    (4, 6, 4),
    (12, 6, 6),    # larger batches are split into the ladder's (as before)
    (0, 6, 1),
])
def test_cls_and_rec_bucket_batch_follows_the_configured_batch_size(batch_size, ladder_batch, want):
    assert batch_for(batch_size, ladder_batch) == want


def test_a_role_batch_pads_and_splits_that_role_only():
    inner = FakeWorker()
    x = np.random.default_rng(1).uniform(-1, 1, (3, 3, 48, 300)).astype(np.float32)
    bw = BucketWorker(inner, rec_widths=(320,), batch=6, batches={"rec": 2})
    out = bw.rec(x)
    assert [c[1] for c in inner.calls] == [(2, 3, 48, 320), (2, 3, 48, 320)]
    assert out.shape[:2] == (3, rec_time_steps(300))
    assert np.array_equal(out[2], out[0])       # the third line is row 0 of the second batch (FakeWorker: 1000 n + t)
    inner.calls.clear()
    bw.cls(np.zeros((2, 3, 48, 192), np.float32))
    assert [c[1] for c in inner.calls] == [(6, 3, 48, 192)]   # cls keeps the ladder's batch



def test_rec_pads_width_and_batch_with_zeros_and_keeps_the_unpadded_steps():
    inner = FakeWorker()
    x = np.random.default_rng(0).uniform(-1, 1, (4, 3, 48, 327)).astype(np.float32)
    out = BucketWorker(inner, rec_widths=(320, 480), batch=6).rec(x)
    (_, shape, sent), = inner.calls
    assert shape == (6, 3, 48, 480)
    assert np.array_equal(sent[:4, :, :, :327], x)
    assert not sent[:4, :, :, 327:].any() and not sent[4:].any()
    assert out.shape == (4, 41, CLASSES)                # 327 px yield 41 steps, 480 px would give 60
    assert np.array_equal(out[:, :, 0], 1000.0 * np.arange(4)[:, None] + np.arange(41)[None, :])


def test_cls_batches_larger_than_the_bucket_are_split_in_order():
    inner = FakeWorker()
    x = np.random.default_rng(1).uniform(-1, 1, (8, 3, 48, 192)).astype(np.float32)
    out = BucketWorker(inner, batch=6).cls(x)
    assert [c[1] for c in inner.calls] == [(6, 3, 48, 192), (6, 3, 48, 192)]
    assert np.allclose(out, FakeWorker().cls(x))


def test_rec_wider_than_every_bucket_is_refused():
    x = np.zeros((1, 3, 48, 3000), np.float32)
    with pytest.raises(RettoError, match="3000"):
        BucketWorker(FakeWorker(), rec_widths=(320, 2560)).rec(x)


def test_fallback_calls_are_noted_once_each_in_words():
    fallback = FakeWorker()
    fallback.name = "wasm"
    bw = BucketWorker(FakeWorker(), det_buckets=(736, 1984), rec_widths=(320, 2560), fallback=fallback)
    assert bw.fallback_notes == []
    bw.det(page(736, 800))                                  # fits a bucket: no note
    assert bw.fallback_notes == []
    for _ in range(2):
        bw.det(page(736, 2400))
        out = bw.rec(np.zeros((2, 3, 48, 3000), np.float32))
    assert out.shape == (2, rec_time_steps(3000), CLASSES)  # the fallback's output, untouched
    assert bw.fallback_notes == [
        "det ran on wasm for this image: det input 736x2400 exceeds the largest bucket 1984x1984",
        "rec ran on wasm for this image: rec batch width 3000 exceeds the widest bucket 2560"]


def test_roles_left_out_pass_through_untouched():
    inner = FakeWorker()
    w = BucketWorker(inner, models=("det",))
    w.rec(np.zeros((2, 3, 48, 333), np.float32))
    w.cls(np.zeros((1, 3, 48, 192), np.float32))
    assert [c[1] for c in inner.calls] == [(2, 3, 48, 333), (1, 3, 48, 192)]


def test_async_inner_gives_the_same_as_sync_one_call_at_a_time():
    x_det = page(90, 200, seed=3)
    x_rec = np.random.default_rng(4).uniform(-1, 1, (8, 3, 48, 400)).astype(np.float32)
    sync_w, async_inner = BucketWorker(FakeWorker()), AsyncFake()
    async_w = BucketWorker(async_inner)
    pending = async_w.rec(x_rec)
    assert asyncio.iscoroutine(pending) and async_inner.calls == []    # nothing runs before it is awaited
    assert np.array_equal(asyncio.run(pending), sync_w.rec(x_rec))
    assert np.array_equal(asyncio.run(async_w.det(x_det)), sync_w.det(x_det))


# --------------------------------------------------------------------------------------------- real models

@pytest.mark.parametrize("set_name", [s.name for s in model_sets.available() if "rec" in s.files])
def test_rec_time_steps_match_the_real_model(set_name):
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = THREADS
    opts.log_severity_level = 3
    sess = ort.InferenceSession(model_sets.read_file(model_sets.load(set_name), "rec"), sess_options=opts)
    for width in (320, 321, 324, 327, 335, 480, 999):
        steps = sess.run(None, {"x": np.zeros((1, 3, 48, width), np.float32)})[0].shape[1]
        assert rec_time_steps(width) == steps, width


def texts(result: dict) -> list[str]:
    return [line["text"] for line in result["lines"]]


@pytest.mark.parametrize("name", ["typewriter", "baiona"])
def test_bucket_plumbing_leaves_results_unchanged(name, retto_worker, reference_runs, image_paths):
    """With a bucket for every size the pipeline makes (every det side a multiple of 32, every rec width), the
    only padding left is the batch one (zero images in cls/rec batches of 6): the results must be identical to
    the plain pipeline's -- the split/pad/slice plumbing changes nothing. (linn.png is left out: 81 lines through
    the same code path cost minutes of suite time and add no case.)"""
    plain = reference_runs(name)["ours"]
    exact_fit = BucketWorker(retto_worker, det_buckets=range(32, 8001, 32), rec_widths=range(1, 8001))
    got = Session(exact_fit, retto_worker.charset).run(image_paths[name].read_bytes()).to_dict()
    assert texts(got) == texts(plain)
    boxes = np.array([line["box"] for line in got["lines"]])
    want = np.array([line["box"] for line in plain["lines"]])
    assert boxes.shape == want.shape and np.abs(boxes - want).max() <= 1.0


# Padding to the real bucket set is NOT exact: det's global pooling / receptive field and rec's global attention
# see the padded area (measured, see buckets.py). These bounds say "the same lines, a few characters differ".
MAX_LINE_CER = 0.02      # character edits over all matched lines / their characters
MIN_BOX_IOU = 0.75     # a 2 px shift of a short map label already gives 0.82


@pytest.mark.parametrize("name", ["typewriter", "baiona"])
def test_real_buckets_change_results_only_slightly(name, retto_worker, reference_runs, image_paths):
    plain = reference_runs(name)["ours"]
    got = Session(BucketWorker(retto_worker), retto_worker.charset).run(image_paths[name].read_bytes()).to_dict()
    assert len(got["lines"]) == len(plain["lines"])
    pairs = match_lines([(l["box"], l["text"]) for l in plain["lines"]], [(l["box"], l["text"]) for l in got["lines"]])
    assert sorted(j for _, j, _ in pairs) == list(range(len(got["lines"]))), "lines merged or split"
    worst = min(iou for _, _, iou in pairs)
    edits = sum(levenshtein(plain["lines"][i]["text"], got["lines"][j]["text"]) for i, j, _ in pairs)
    chars = sum(len(line["text"]) for line in plain["lines"])
    changed = sum(plain["lines"][i]["text"] != got["lines"][j]["text"] for i, j, _ in pairs)
    print(f"\n{name}: bucketed vs plain: {changed}/{len(pairs)} lines differ, {edits} edits in {chars} chars, "
          f"worst box IoU {worst:.3f}")
    assert worst >= MIN_BOX_IOU, f"a line's box moved: IoU {worst:.3f}"
    assert edits / chars <= MAX_LINE_CER
