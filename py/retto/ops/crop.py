"""Cut each detected quad out of the image as an upright text-line image."""
from __future__ import annotations

import numpy as np

from retto.io.image import warp_quad
from retto.ops.words import ink_rows


def crop_size(quad) -> tuple[int, int]:
    """(width, height) of the crop of quad (tl, tr, br, bl): its longer edges."""
    q = np.asarray(quad, dtype=np.float64)
    width = int(max(np.hypot(*(q[0] - q[1])), np.hypot(*(q[2] - q[3]))))
    height = int(max(np.hypot(*(q[0] - q[3])), np.hypot(*(q[1] - q[2]))))
    return width, height


def is_turned(quad) -> bool:
    """Is the crop of this quad turned 90° counter-clockwise? (tall crops, h/w >= 1.5: a vertical line of
    horizontal text reads best that way)"""
    width, height = crop_size(quad)
    return height / max(width, 1) >= 1.5


def crop_line(img: np.ndarray, quad: np.ndarray) -> np.ndarray:
    """Perspective crop of quad (tl, tr, br, bl), turned 90° counter-clockwise when `is_turned`."""
    width, height = crop_size(quad)
    out = warp_quad(img, np.asarray(quad, dtype=np.float64), width, height)
    if out.shape[0] / out.shape[1] >= 1.5:
        out = np.rot90(out)
    return np.ascontiguousarray(out)


def ink_band(crop: np.ndarray, margin: float) -> np.ndarray:
    """The crop's rows from its first to its last row with ink (words.ink_rows), plus `margin` times that height
    above and below: a view, full width, so positions along the line are unchanged. The crop itself when it has
    too little contrast to tell ink from paper, or when the band with its margin covers it."""
    found = ink_rows(crop)
    if found is None:
        return crop
    _ink, first, last = found
    pad = int(round(margin * (last - first + 1)))
    top, bottom = max(0, first - pad), min(crop.shape[0], last + 1 + pad)
    return crop[top:bottom] if bottom - top < crop.shape[0] else crop
