"""Text detection: DB (differentiable binarization) pre- and post-processing around the det model."""
from __future__ import annotations

import numpy as np

from retto.ops.clip import offset_polygons
from retto.config import DetConfig
from retto.ops.geometry import (convex_polygon_mask, dilate_2x2, label_runs, min_area_rect, order_quad,
                       polygon_area_perimeter)
from retto.io.image import resize_linear


def round32(x: float) -> int:
    # Python's round() is half-to-even, as in the reference (640x682 -> 768, not 800).
    return int(round(x / 32) * 32)


def input_size(h: int, w: int, cfg: DetConfig):
    """The det model's input size (multiples of 32) for an h x w image."""
    ratio = 1.0
    if cfg.limit_type == "min":
        if min(h, w) < cfg.limit_side_len:
            ratio = cfg.limit_side_len / (h if h < w else w)
            if cfg.max_upscale > 0:  # small or wide images: text already large enough to detect (see DetConfig)
                ratio = min(ratio, max(cfg.max_upscale, 1.0))
    elif max(h, w) > cfg.limit_side_len:
        ratio = cfg.limit_side_len / (h if h > w else w)
    return max(round32(int(h * ratio)), 32), max(round32(int(w * ratio)), 32)


def preprocess(img: np.ndarray, cfg: DetConfig, size: tuple | None = None) -> np.ndarray:
    """RGB uint8 HxWx3 -> float32 [1, 3, H', W'] in BGR order, normalised with mean/std; (H', W') = `size`, or
    input_size()."""
    h, w = img.shape[:2]
    dh, dw = size or input_size(h, w, cfg)
    resized = resize_linear(img, dw, dh)
    return normalize_bgr(resized, cfg.mean, cfg.std)[None]


def normalize_bgr(img: np.ndarray, mean, std, out: np.ndarray | None = None) -> np.ndarray:
    """HxWx3 RGB uint8 -> 3xHxW float32 BGR, (x/255 - mean) / std (mean/std given in BGR channel order).

    Folded into one multiply-add per channel, written straight into `out` (which may be a padded batch slot):
    this runs for every crop, and in Pyodide each numpy pass over the pixels counts."""
    h, w = img.shape[:2]
    if out is None:
        out = np.empty((3, h, w), dtype=np.float32)
    for c in range(3):
        scale = np.float32(1.0 / (255.0 * std[c]))
        offset = np.float32(-mean[c] / std[c])
        np.multiply(img[:, :, 2 - c], scale, out=out[c], dtype=np.float32)
        out[c] += offset
    return out


def postprocess(pred: np.ndarray, src_h: int, src_w: int, cfg: DetConfig, stats: dict | None = None):
    """DB probability map [1, 1, H, W] -> (quads [n, 4, 2] float64 in source pixels, ordered tl,tr,br,bl;
    box scores [n]). Boxes are not yet in reading order. `stats`, if given, receives the number of connected
    components found ("components"), of which only the first cfg.max_candidates are considered."""
    if stats is None:
        stats = {}
    stats["components"] = 0
    prob = np.asarray(pred, dtype=np.float32).reshape(pred.shape[-2:])
    height, width = prob.shape
    mask = prob > cfg.thresh
    if cfg.use_dilation:
        mask = dilate_2x2(mask)
    rows, starts, ends, labels = label_runs(mask)
    stats["components"] = int(labels.max()) + 1 if labels.size else 0
    if labels.size == 0:
        return np.zeros((0, 4, 2)), np.zeros(0)

    # Each run contributes its two end pixels; their hull is the component's hull. Only a row's leftmost start
    # and rightmost end can be hull vertices (any other end pixel lies between them), so each (component, row)
    # keeps just those two: the same hull from far fewer points for the per-component loop below.
    order = np.lexsort((rows, labels))
    lab, row = labels[order], rows[order]
    first = np.flatnonzero(np.concatenate(([True], (lab[1:] != lab[:-1]) | (row[1:] != row[:-1]))))
    lab, row = lab[first], row[first]
    left = np.minimum.reduceat(starts[order], first)
    right = np.maximum.reduceat(ends[order], first)
    pts = np.stack([np.concatenate([left, right]), np.concatenate([row, row])], axis=1).astype(np.float64)
    both = np.concatenate([lab, lab])
    by_label = np.argsort(both, kind="stable")
    pts, both = pts[by_label], both[by_label]
    bounds = np.flatnonzero(np.diff(both)) + 1
    groups = np.split(pts, bounds)[: cfg.max_candidates]

    candidates, scores = [], []
    for comp in groups:
        quad, short, _ = min_area_rect(comp)
        if short < cfg.min_size:
            continue
        score = box_score_fast(prob, quad)
        if score < cfg.box_thresh:
            continue
        candidates.append(quad)
        scores.append(score)
    if not candidates:
        return np.zeros((0, 4, 2)), np.zeros(0)

    deltas = []
    for quad in candidates:
        area, perimeter = polygon_area_perimeter(quad)
        deltas.append(area * cfg.unclip_ratio / perimeter if perimeter > 0 else 0.0)
    expanded = offset_polygons(candidates, deltas)

    quads, kept = [], []
    for sol, score in zip(expanded, scores):
        if not sol:
            continue
        pts = np.concatenate([np.asarray(p, dtype=np.float64).reshape(-1, 2) for p in sol])
        quad, short, _ = min_area_rect(pts)
        if short < cfg.min_size + 2:
            continue
        quad = quad.copy()
        quad[:, 0] = np.clip(np.round(quad[:, 0] / width * src_w), 0, src_w)
        quad[:, 1] = np.clip(np.round(quad[:, 1] / height * src_h), 0, src_h)
        quad = order_quad(quad)
        # Clip to the last pixel, then drop slivers (reference: both sides must exceed 3 px).
        quad[:, 0] = np.clip(quad[:, 0], 0, src_w - 1)
        quad[:, 1] = np.clip(quad[:, 1], 0, src_h - 1)
        if int(np.hypot(*(quad[0] - quad[1]))) <= 3 or int(np.hypot(*(quad[0] - quad[3]))) <= 3:
            continue
        quads.append(quad)
        kept.append(score)
    if not quads:
        return np.zeros((0, 4, 2)), np.zeros(0)
    return np.stack(quads), np.asarray(kept)


def box_score_fast(prob: np.ndarray, quad: np.ndarray) -> float:
    """Mean probability inside the (integer-truncated) box polygon."""
    h, w = prob.shape
    xmin = int(np.clip(np.floor(quad[:, 0].min()), 0, w - 1))
    xmax = int(np.clip(np.ceil(quad[:, 0].max()), 0, w - 1))
    ymin = int(np.clip(np.floor(quad[:, 1].min()), 0, h - 1))
    ymax = int(np.clip(np.ceil(quad[:, 1].max()), 0, h - 1))
    poly = np.trunc(quad) - np.array([xmin, ymin])
    inside = convex_polygon_mask(poly, xmax - xmin + 1, ymax - ymin + 1)
    if not inside.any():
        return 0.0
    return float(prob[ymin:ymax + 1, xmin:xmax + 1][inside].mean())
