"""crop.ink_band: a line crop cut to its ink rows plus a margin (what the default set's re-reading recogniser
reads). Expected rows worked out by hand from the drawn bars."""
from __future__ import annotations

import numpy as np

from retto.ops.crop import ink_band


def crop_with_bar(top: int, bottom: int, height: int = 60, width: int = 90, dark_on_light: bool = True):
    paper, ink = (255, 0) if dark_on_light else (20, 230)
    crop = np.full((height, width, 3), paper, dtype=np.uint8)
    crop[top:bottom, 10:70] = ink
    return crop


def test_a_line_is_cut_to_its_ink_and_the_margin_around_it():
    # ink rows 20..29 (10 high); margin 0.3 -> 3 rows each side: rows 17..32
    crop = crop_with_bar(20, 30)
    band = ink_band(crop, 0.3)
    assert band.shape == (16, 90, 3)
    assert np.array_equal(band, crop[17:33])
    assert ink_band(crop, 1.0).shape == (30, 90, 3)          # rows 10..39


def test_light_ink_on_dark_paper_is_cut_the_same_way():
    assert ink_band(crop_with_bar(20, 30, dark_on_light=False), 0.3).shape == (16, 90, 3)


def test_the_margin_stops_at_the_crop_edges():
    crop = crop_with_bar(2, 30)                 # 28 high; margin 0.5 = 14 rows: clipped at the top
    assert ink_band(crop, 0.5).shape == (44, 90, 3)   # rows 0..43


def test_a_crop_the_band_covers_or_without_contrast_is_kept_whole():
    crop = crop_with_bar(3, 13, height=16)      # ink rows 3..12, margin 3: rows 0..15, the whole crop
    assert ink_band(crop, 0.3) is crop
    blank = np.full((40, 90, 3), 200, dtype=np.uint8)
    assert ink_band(blank, 0.3) is blank
