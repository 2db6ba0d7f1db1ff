"""Text-line orientation (0 or 180 degrees): batching, normalisation and the rotate decision."""
from __future__ import annotations

import math

import numpy as np

from retto.config import ClsConfig
from retto.ops.det import normalize_bgr
from retto.io.image import resize_linear


def batches_by_aspect(crops: list, batch_size: int) -> list:
    """Index batches over crops sorted by width/height (similar shapes batch with little padding)."""
    ratios = np.array([c.shape[1] / float(c.shape[0]) for c in crops])
    order = np.argsort(ratios, kind="stable")
    return [order[i:i + batch_size].tolist() for i in range(0, len(order), batch_size)]


def content_width(crop: np.ndarray, height: int, width: int) -> int:
    """How many of an input's `width` columns the crop fills once resized to `height` (the rest is padding)."""
    h, w = crop.shape[:2]
    return max(min(width, int(math.ceil(height * w / float(h)))), 1)


def resize_pad(crop: np.ndarray, height: int, width: int, out: np.ndarray | None = None) -> np.ndarray:
    """Resize to `height` keeping the aspect (capped at `width`), normalise, zero-pad on the right. `out`: a
    zeroed [3, height, width] float32 slot to write into (a batch's row: no copy into the batch afterwards)."""
    new_w = content_width(crop, height, width)
    if out is None:
        out = np.zeros((3, height, width), dtype=np.float32)
    normalize_bgr(resize_linear(crop, new_w, height), (0.5,) * 3, (0.5,) * 3, out=out[:, :, :new_w])
    return out


def batch(crops: list, indices: list, height: int, width: int) -> np.ndarray:
    """crops[indices] resized, normalised and zero-padded into one [N, 3, height, width] float32 batch."""
    out = np.zeros((len(indices), 3, height, width), dtype=np.float32)
    for j, i in enumerate(indices):
        resize_pad(crops[i], height, width, out=out[j])
    return out


def preprocess(crops: list, indices: list, cfg: ClsConfig) -> np.ndarray:
    return batch(crops, indices, cfg.height, cfg.width)


def postprocess(probs: np.ndarray, cfg: ClsConfig):
    """[N, 2] probabilities -> list of (angle, score, rotate?)."""
    probs = np.asarray(probs, dtype=np.float32)
    best = probs.argmax(axis=1)
    out = []
    for k, p in zip(best, probs):
        label = cfg.labels[int(k)]
        score = float(p[k])
        angle = int(label)
        out.append((angle, score, angle == 180 and score > cfg.thresh))
    return out
