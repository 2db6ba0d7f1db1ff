"""Text-line orientation (0 or 180 degrees): batching, normalisation and the rotate decision."""
from __future__ import annotations

import math

import numpy as np

from .config import ClsConfig
from .det import normalize_bgr
from .image import resize_linear


def batches_by_aspect(crops: list, batch_size: int) -> list:
    """Index batches over crops sorted by width/height (similar shapes batch with little padding)."""
    ratios = np.array([c.shape[1] / float(c.shape[0]) for c in crops])
    order = np.argsort(ratios, kind="stable")
    return [order[i:i + batch_size].tolist() for i in range(0, len(order), batch_size)]


def content_width(crop: np.ndarray, height: int, width: int) -> int:
    """How many of an input's `width` columns the crop fills once resized to `height` (the rest is padding)."""
    h, w = crop.shape[:2]
    return max(min(width, int(math.ceil(height * w / float(h)))), 1)


def resize_pad(crop: np.ndarray, height: int, width: int) -> np.ndarray:
    """Resize to `height` keeping the aspect (capped at `width`), normalise, zero-pad on the right."""
    new_w = content_width(crop, height, width)
    out = np.zeros((3, height, width), dtype=np.float32)
    normalize_bgr(resize_linear(crop, new_w, height), (0.5,) * 3, (0.5,) * 3, out=out[:, :, :new_w])
    return out


def preprocess(crops: list, indices: list, cfg: ClsConfig) -> np.ndarray:
    return np.stack([resize_pad(crops[i], cfg.height, cfg.width) for i in indices])


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
