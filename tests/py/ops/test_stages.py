"""Per-stage checks: det pre/post on synthetic maps, crop and resize vs OpenCV, cls/rec decoding, config, models."""
from __future__ import annotations

import json

import cv2
import numpy as np
import onnxruntime as ort
import pytest

from retto import Config, RettoError
from retto.ops import cls as cls_stage
from retto.ops import det
from retto.ops import rec
from retto.config import ClsConfig, DetConfig
from retto.ops.crop import crop_line
from retto.io.image import resize_linear, warp_quad
from retto.models import sets as model_sets
from retto.models.files import read_charset


def test_det_input_size_uses_half_to_even_rounding():
    # docs/facts.md §4: a 640x682 image goes to 768 (not 800) on its long side.
    assert det.input_size(682, 640, DetConfig()) == (768, 736)
    assert det.input_size(1440, 1984, DetConfig()) == (1440, 1984)


def test_det_max_upscale_caps_the_enlargement_of_small_images():
    # A 400x50 word: the reference enlarges its short side to 736 (x14.72 -> 736 x 5888); capped at x2 it is
    # 100 x 800, rounded to multiples of 32. Large images and the default (0: no cap) are unchanged.
    assert det.input_size(50, 400, DetConfig()) == (736, 5888)
    assert det.input_size(50, 400, DetConfig(max_upscale=2)) == (96, 800)
    assert det.input_size(1440, 1984, DetConfig(max_upscale=2)) == (1440, 1984)


def test_det_preprocess_is_bgr_and_normalised():
    img = np.zeros((736, 736, 3), np.uint8)
    img[..., 0] = 255                                    # pure red in RGB
    x = det.preprocess(img, DetConfig())
    assert x.shape == (1, 3, 736, 736) and x.dtype == np.float32
    assert np.allclose(x[0, 2], 1.0) and np.allclose(x[0, 0], -1.0)   # R is the last (BGR) channel


def _prob_map(h, w, polys, value=0.95):
    m = np.zeros((h, w), np.float32)
    for p in polys:
        cv2.fillPoly(m, [np.round(p).astype(np.int32)], value)
    return m[None, None]


def test_det_post_empty_map_gives_no_boxes():
    quads, scores = det.postprocess(np.zeros((1, 1, 64, 64), np.float32), 64, 64, DetConfig())
    assert quads.shape == (0, 4, 2) and scores.size == 0


def test_det_post_rotated_box_is_found_and_unclipped():
    from test_geometry import rect
    core = rect(160, 120, 180, 24, 12)
    quads, scores = det.postprocess(_prob_map(240, 320, [core]), 240, 320, DetConfig())
    assert len(quads) == 1 and scores[0] > 0.9
    # The unclip grows the shrunk DB region by area*1.6/perimeter on every side (the rasterised, dilated
    # region is about one pixel larger than the polygon each way, and round joins add a little more).
    d = 181 * 25 * 1.6 / (2 * (181 + 25))
    got = quads[0]
    w = np.hypot(*(got[1] - got[0]))
    h = np.hypot(*(got[3] - got[0]))
    assert w == pytest.approx(181 + 2 * d, abs=6) and h == pytest.approx(25 + 2 * d, abs=6)
    angle = np.degrees(np.arctan2(*(got[1] - got[0])[::-1]))
    assert angle == pytest.approx(12, abs=1.5)


def test_det_post_drops_tiny_and_weak_regions():
    tiny = np.array([[10, 10], [11, 10], [11, 11], [10, 11]], float)
    weak = np.array([[40, 40], [120, 40], [120, 60], [40, 60]], float)
    m = _prob_map(100, 160, [tiny])
    m[0, 0] += _prob_map(100, 160, [weak], value=0.4)[0, 0]   # above thresh 0.3, below box_thresh 0.5
    quads, _ = det.postprocess(m, 100, 160, DetConfig())
    assert len(quads) == 0


def test_det_post_scales_boxes_to_source_size():
    core = np.array([[40, 40], [200, 40], [200, 64], [40, 64]], float)
    quads, _ = det.postprocess(_prob_map(160, 320, [core]), 80, 160, DetConfig())  # source is half size
    assert len(quads) == 1
    # Region after 2x2 dilation: x 40..201, y 40..65; unclip distance 161*25*1.6/(2*186); then halved.
    d = 161 * 25 * 1.6 / (2 * 186)
    q = quads[0]
    assert q[:, 0].min() == pytest.approx((40 - d) / 2, abs=1.5) and q[:, 0].max() == pytest.approx((201 + d) / 2, abs=1.5)
    assert q[:, 1].min() == pytest.approx((40 - d) / 2, abs=1.5) and q[:, 1].max() == pytest.approx((65 + d) / 2, abs=1.5)


@pytest.fixture(scope="module")
def photo():
    rng = np.random.default_rng(0)
    base = cv2.resize(rng.integers(0, 256, (24, 32, 3), dtype=np.uint8), (320, 240), interpolation=cv2.INTER_CUBIC)
    return base


@pytest.mark.parametrize("size", [(400, 300), (100, 70), (217, 48)])
def test_resize_matches_cv2_linear(photo, size):
    ours = resize_linear(photo, *size).astype(int)
    ref = cv2.resize(photo, size, interpolation=cv2.INTER_LINEAR).astype(int)
    assert np.abs(ours - ref).mean() < 0.6 and np.abs(ours - ref).max() <= 3


@pytest.mark.parametrize("seed", range(4))
def test_warp_matches_cv2_warp_perspective(photo, seed):
    rng = np.random.default_rng(seed)
    quad = np.array([[40, 50], [260, 40], [270, 110], [35, 120]], float) + rng.uniform(-8, 8, (4, 2))
    w, h = 230, 70
    ours = warp_quad(photo, quad, w, h).astype(int)
    m = cv2.getPerspectiveTransform(quad.astype(np.float32),
                                    np.float32([[0, 0], [w, 0], [w, h], [0, h]]))
    ref = cv2.warpPerspective(photo, m, (w, h), flags=cv2.INTER_CUBIC, borderMode=cv2.BORDER_REPLICATE).astype(int)
    assert np.abs(ours - ref).mean() < 0.5 and np.abs(ours - ref).max() <= 4


def _cv2_warp(img, quad, w, h):
    m = cv2.getPerspectiveTransform(quad.astype(np.float32), np.float32([[0, 0], [w, 0], [w, h], [0, h]]))
    return cv2.warpPerspective(img, m, (w, h), flags=cv2.INTER_CUBIC, borderMode=cv2.BORDER_REPLICATE).astype(int)


@pytest.mark.parametrize("origin", [(40.5, 50.25), (12.75, 3.5), (0.0, 0.0)])
def test_warp_of_a_level_box_matches_cv2(photo, origin):
    """A level box at sub-pixel coordinates (most detected lines): sampled by rows and columns (the fast path)."""
    x, y = origin
    quad = np.array([[x, y], [x + 217.5, y], [x + 217.5, y + 61.25], [x, y + 61.25]], float)
    ours = warp_quad(photo, quad, 217, 61).astype(int)
    ref = _cv2_warp(photo, quad, 217, 61)
    assert np.abs(ours - ref).mean() < 0.5 and np.abs(ours - ref).max() <= 4


@pytest.mark.parametrize("seed", range(2))
def test_warp_of_a_grey_page_matches_cv2(photo, seed):
    """Three equal planes (a scan) are sampled once and copied: still cv2's answer, on a skewed quad."""
    grey = np.repeat(photo[:, :, 1:2], 3, axis=2)
    rng = np.random.default_rng(seed)
    quad = np.array([[40, 50], [260, 40], [270, 110], [35, 120]], float) + rng.uniform(-8, 8, (4, 2))
    ours = warp_quad(grey, quad, 230, 70).astype(int)
    ref = _cv2_warp(grey, quad, 230, 70)
    assert np.abs(ours - ref).mean() < 0.5 and np.abs(ours - ref).max() <= 4
    assert (ours[:, :, 0] == ours[:, :, 1]).all() and (ours[:, :, 1] == ours[:, :, 2]).all()


def test_warp_replicates_the_border(photo):
    quad = np.array([[-10, -10], [30, -10], [30, 20], [-10, 20]], float)
    ours = warp_quad(photo, quad, 40, 30)
    assert np.array_equal(ours[0, 0], photo[0, 0])


def test_tall_crop_is_turned_counter_clockwise(photo):
    quad = np.array([[100, 20], [120, 20], [120, 120], [100, 120]], float)
    out = crop_line(photo, quad)
    assert out.shape[:2] == (20, 100)
    assert np.array_equal(out, np.rot90(photo[20:120, 100:120]))


def test_cls_batches_by_aspect_and_decides_rotation():
    crops = [np.zeros((10, w, 3), np.uint8) for w in (50, 10, 30, 20, 90, 70, 60, 40)]
    batches = cls_stage.batches_by_aspect(crops, 3)
    flat = [i for b in batches for i in b]
    assert [crops[i].shape[1] for i in flat] == sorted(c.shape[1] for c in crops)
    assert [len(b) for b in batches] == [3, 3, 2]
    decided = cls_stage.postprocess(np.array([[0.05, 0.95], [0.2, 0.8], [0.99, 0.01]]), ClsConfig())
    assert [(a, r) for a, _, r in decided] == [(180, True), (180, False), (0, False)]


def test_cls_input_is_48x192_right_padded():
    x = cls_stage.preprocess([np.full((20, 40, 3), 255, np.uint8)], [0], ClsConfig())
    assert x.shape == (1, 3, 48, 192)
    assert np.allclose(x[0, :, :, :96], 1.0) and np.allclose(x[0, :, :, 96:], 0.0)


def test_rec_batch_width_follows_widest_crop():
    crops = [np.zeros((48, 100, 3), np.uint8), np.zeros((24, 480, 3), np.uint8)]
    assert rec.batch_width(crops, [0], rec.RecConfig()) == 320
    assert rec.batch_width(crops, [0, 1], rec.RecConfig()) == 960


def test_ctc_greedy_decoding():
    labels = rec.labels_from_charset(["a", "b"])       # blank, a, b, space
    steps = [1, 1, 0, 1, 2, 2, 3]                      # a a _ a b b ' '
    probs = np.full((1, len(steps), 4), 0.01, np.float32)
    for t, k in enumerate(steps):
        probs[0, t, k] = 0.9 if t != 4 else 0.6
    (text, score), = rec.ctc_decode(probs, labels)
    assert text == "aab "
    assert score == pytest.approx(np.mean([0.9, 0.9, 0.6, 0.9]), abs=1e-6)
    (empty, zero), = rec.ctc_decode(np.eye(4, dtype=np.float32)[[0, 0, 0]][None], labels)
    assert (empty, zero) == ("", 0.0)


def test_charset_matches_onnxruntime_metadata():
    v4 = model_sets.load("ppocr-v4")
    path = model_sets.set_dir(v4) / "rec.onnx"
    ref = ort.InferenceSession(str(path)).get_modelmeta().custom_metadata_map["character"].splitlines()
    ours = read_charset(path.read_bytes())
    assert ours == ref and len(ours) == 6623


def test_config_json_round_trip_and_validation():
    cfg = Config.from_dict({"det": {"box_thresh": 0.6}, "rec": {"batch_size": 8}})
    again = Config.from_json(cfg.to_json())
    assert again == cfg and again.det.box_thresh == 0.6 and again.det.thresh == 0.3
    assert json.loads(cfg.to_json())["global"]["max_side_len"] == 2000
    with pytest.raises(RettoError) as err:
        Config.from_dict({"det": {"box_threshold": 0.6}})
    assert err.value.code == "invalid_config"
