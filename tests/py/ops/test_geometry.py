"""DB geometry against independent references: OpenCV (test-only dependency) and constructed shapes."""
from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from retto.ops.geometry import dilate_2x2, label_runs, min_area_rect, order_quad, overlap_area, reading_order


def rect(cx, cy, w, h, deg):
    """Corners tl, tr, br, bl of a w x h rectangle rotated by deg (screen clockwise), by construction."""
    t = math.radians(deg)
    u = np.array([math.cos(t), math.sin(t)])
    v = np.array([-math.sin(t), math.cos(t)])
    c = np.array([cx, cy])
    return np.array([c - u * w / 2 - v * h / 2, c + u * w / 2 - v * h / 2,
                     c + u * w / 2 + v * h / 2, c - u * w / 2 + v * h / 2])


@pytest.mark.parametrize("seed", range(5))
def test_dilate_matches_cv2(seed):
    mask = np.random.default_rng(seed).random((61, 83)) > 0.93
    ref = cv2.dilate(mask.astype(np.uint8), np.ones((2, 2), np.uint8)).astype(bool)
    assert np.array_equal(dilate_2x2(mask), ref)


@pytest.mark.parametrize("seed", range(6))
def test_components_match_cv2_8_connectivity(seed):
    mask = np.random.default_rng(seed).random((70, 90)) > (0.55 + 0.05 * seed)
    rows, starts, ends, labels = label_runs(mask)
    ours = np.full(mask.shape, -1)
    for r, s, e, lab in zip(rows, starts, ends, labels):
        ours[r, s:e + 1] = lab
    n, ref = cv2.connectedComponents(mask.astype(np.uint8), connectivity=8)
    assert (ours >= 0).sum() == mask.sum()
    assert labels.max() + 1 == n - 1
    # Same partition: each cv2 component maps to exactly one of ours and vice versa.
    pairs = set(zip(ref[mask].tolist(), ours[mask].tolist()))
    assert len(pairs) == n - 1


def test_components_of_empty_mask():
    rows, starts, ends, labels = label_runs(np.zeros((10, 10), bool))
    assert labels.size == 0


@pytest.mark.parametrize("seed", range(20))
def test_min_area_rect_matches_cv2(seed):
    rng = np.random.default_rng(seed)
    pts = rng.normal(size=(int(rng.integers(3, 40)), 2)) * rng.uniform(5, 60, size=2) + 100
    pts = np.round(pts)                                         # contour points are pixel centres
    ref_center, (rw, rh), _ = cv2.minAreaRect(pts.astype(np.float32))
    quad, short, long_ = min_area_rect(pts)
    assert short * long_ == pytest.approx(rw * rh, rel=1e-4, abs=1e-3)
    assert short == pytest.approx(min(rw, rh), rel=1e-4, abs=1e-3)
    assert quad.mean(axis=0) == pytest.approx(ref_center, abs=1e-3)


def test_min_area_rect_degenerate_inputs():
    _, short, long_ = min_area_rect(np.array([[3.0, 4.0]]))
    assert (short, long_) == (0.0, 0.0)
    _, short, long_ = min_area_rect(np.array([[0.0, 0.0], [10.0, 0.0], [5.0, 0.0]]))  # a segment
    assert short == 0.0 and long_ == pytest.approx(10.0)


@pytest.mark.parametrize("deg", [-40, -15, -2, 0, 3, 17, 44])
@pytest.mark.parametrize("w,h", [(200, 30), (20, 100), (8, 8)])
def test_order_quad_recovers_construction_order(deg, w, h):
    want = rect(300, 200, w, h, deg)
    shuffled = want[np.random.default_rng(abs(deg) + w).permutation(4)]
    assert order_quad(shuffled) == pytest.approx(want)


def test_order_quad_slanted_vertical_box():
    # A tall, narrow box slanted by 20°: its two left-most corners are tl and tr, so ordering by x alone
    # (the reference's order_points_clockwise) would swap corners. We keep the construction order.
    want = rect(100, 100, 24, 160, 20)
    assert order_quad(want[[2, 0, 3, 1]]) == pytest.approx(want)


def test_reading_order_lines_then_columns():
    boxes = {"b2": rect(300, 52, 80, 20, 0), "a1": rect(100, 50, 80, 20, 0),
             "c": rect(100, 120, 80, 20, 0), "a2": rect(200, 47, 80, 20, 0)}
    names = list(boxes)
    order = reading_order([boxes[n] for n in names])
    assert [names[i] for i in order] == ["a1", "a2", "b2", "c"]


def test_reading_order_survives_nan():
    quads = [rect(50, 50, 40, 10, 0), np.full((4, 2), np.nan), rect(10, 10, 40, 10, 0)]
    order = reading_order(quads)
    assert sorted(order) == [0, 1, 2] and order[-1] == 1


@pytest.mark.parametrize("seed", range(40))
def test_overlap_area_of_convex_quads_matches_cv2(seed):
    rng = np.random.default_rng(seed)
    a = rect(*rng.uniform(20, 80, 2), *rng.uniform(5, 60, 2), rng.uniform(-90, 90))
    b = rect(*rng.uniform(20, 80, 2), *rng.uniform(5, 60, 2), rng.uniform(-90, 90))
    want, _ = cv2.intersectConvexConvex(a.astype(np.float32), b.astype(np.float32))
    assert overlap_area(a, b) == pytest.approx(want, abs=1e-2)
    assert overlap_area(b[::-1], a) == pytest.approx(want, abs=1e-2)   # either winding


def test_overlap_area_of_shapes_by_hand():
    square = np.array([[0, 0], [10, 0], [10, 10], [0, 10]])
    assert overlap_area(square, square + 5) == 25.0
    assert overlap_area(square, square + 100) == 0.0
    diamond = np.array([[5, -2], [12, 5], [5, 12], [-2, 5]])   # the square less four corners of 3 x 3 / 2
    assert overlap_area(square, diamond) == pytest.approx(100 - 4 * 4.5)
