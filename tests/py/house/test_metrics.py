"""Self-checks of the measuring helpers used by the reference tests (hand-made cases + Shapely cross-check)."""
from __future__ import annotations

import math
import random

import pytest
from shapely.geometry import Polygon

from ocr_metrics import (cer, fold_l1, levenshtein, levenshtein_within, match_lines, normalise_ws, polygon_iou,
                         reading_order_text)


@pytest.mark.parametrize("a,b,d", [
    ("", "", 0), ("abc", "", 3), ("", "abc", 3), ("kitten", "sitting", 3), ("flaw", "lawn", 2),
    ("linzen", "1inzen", 1), ("à la", "a la", 1), ("abc", "abc", 0), ("ab", "ba", 2),
])
def test_levenshtein_hand_cases(a, b, d):
    assert levenshtein(a, b) == d
    assert levenshtein(b, a) == d


def test_banded_levenshtein_is_exact_within_its_band():
    rng = random.Random(7)
    for _ in range(300):
        a = "".join(rng.choice("abc") for _ in range(rng.randint(0, 25)))
        b = "".join(rng.choice("abc") for _ in range(rng.randint(0, 25)))
        d = levenshtein(a, b)
        for band in range(10):
            got = levenshtein_within(a, b, band)
            assert got == d if d <= band else got > band, (a, b, band)


def test_cer_and_folding():
    assert cer("wa- ter", "wa- ter") == 0.0
    assert cer("1 liter", "l liter") == pytest.approx(1 / 7)
    assert cer(fold_l1("1 liter"), fold_l1("l liter")) == 0.0
    assert normalise_ws("  a \n b\t\tc ") == "a b c"


def test_iou_hand_cases():
    sq = [(0, 0), (10, 0), (10, 10), (0, 10)]
    assert polygon_iou(sq, sq) == pytest.approx(1.0)
    assert polygon_iou(sq, sq[::-1]) == pytest.approx(1.0)             # orientation does not matter
    half = [(5, 0), (15, 0), (15, 10), (5, 10)]
    assert polygon_iou(sq, half) == pytest.approx(50 / 150)
    assert polygon_iou(sq, [(20, 20), (30, 20), (30, 30), (20, 30)]) == 0.0
    inner = [(2, 2), (4, 2), (4, 4), (2, 4)]
    assert polygon_iou(sq, inner) == pytest.approx(4 / 100)
    diamond = [(5, -5), (15, 5), (5, 15), (-5, 5)]                      # 45° square, area 200
    assert polygon_iou(sq, diamond) == pytest.approx(100 / 200)


def _random_rect(rng):
    cx, cy = rng.uniform(0, 100), rng.uniform(0, 100)
    w, h, a = rng.uniform(1, 60), rng.uniform(1, 30), rng.uniform(-math.pi, math.pi)
    c, s = math.cos(a), math.sin(a)
    pts = [(-w / 2, -h / 2), (w / 2, -h / 2), (w / 2, h / 2), (-w / 2, h / 2)]
    # anisotropic scaling afterwards (as when boxes are mapped back to the source image): a parallelogram
    sx, sy = rng.uniform(0.5, 2), rng.uniform(0.5, 2)
    return [((cx + x * c - y * s) * sx, (cy + x * s + y * c) * sy) for x, y in pts]


def test_iou_agrees_with_shapely():
    rng = random.Random(1234)
    overlapping = 0
    for _ in range(2000):
        p, q = _random_rect(rng), _random_rect(rng)
        sp, sq = Polygon(p), Polygon(q)
        want = sp.intersection(sq).area / sp.union(sq).area
        assert polygon_iou(p, q) == pytest.approx(want, abs=1e-9)
        overlapping += want > 0
    assert overlapping > 200          # the random cases do exercise real intersections


def test_reading_order_and_matching():
    def box(x0, y0, x1, y1):
        return [(x0, y0), (x1, y0), (x1, y1), (x0, y1)]
    lines = [(box(300, 12, 400, 30), "world"), (box(0, 50, 100, 70), "second"),
             (box(0, 10, 100, 28), "hello"), (box(120, 11, 200, 29), "there")]
    assert reading_order_text(lines) == "hello there world second"
    assert reading_order_text([]) == ""
    ours = [(box(1, 10, 101, 28), "hello"), (box(0, 50, 100, 70), "secnd")]
    m = match_lines(lines, ours)
    assert m[0] == (0, None, 0.0)                                       # "world": no overlap
    assert m[1][1] == 1 and m[1][2] == pytest.approx(1.0)
    assert m[2][1] == 0 and m[2][2] == pytest.approx(1782 / 1818)
    assert m[3] == (3, None, 0.0)
