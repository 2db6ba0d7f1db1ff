"""Text recognition: batch widths, normalisation and greedy CTC decoding."""
from __future__ import annotations

import math

import numpy as np

from retto.ops.cls import batch
from retto.config import RecConfig


def batch_width(crops: list, indices: list, cfg: RecConfig) -> int:
    """int(48 * max(320/48, widest w/h in the batch)), as the reference computes it; with rec.margin, the widest
    line's width at that height plus exactly that many blank columns (and at least rec.min_width)."""
    if cfg.margin:
        widest = max(math.ceil(cfg.height * crops[i].shape[1] / crops[i].shape[0]) for i in indices)
        return max(cfg.min_width, widest + cfg.margin)
    ratio = max([cfg.min_width / cfg.height] + [crops[i].shape[1] / float(crops[i].shape[0]) for i in indices])
    return int(cfg.height * ratio)


def preprocess(crops: list, indices: list, cfg: RecConfig) -> np.ndarray:
    return batch(crops, indices, cfg.height, batch_width(crops, indices, cfg))


def labels_from_charset(charset: list) -> list:
    """Class index -> character: CTC blank first, then the dictionary, then the space the models append."""
    return ["", *charset, " "]


def best_classes(probs: np.ndarray):
    """Each time step's most probable class and its probability, for [..., C] probabilities: one pass over the
    classes (the probability is picked at the argmax rather than found by a second max() pass; in Pyodide each
    pass over a [N, T, C] output with thousands of classes counts)."""
    idx = probs.argmax(axis=-1)
    conf = np.take_along_axis(probs, idx[..., None], axis=-1)[..., 0]
    return idx, conf


def ctc_decode(probs: np.ndarray, labels: list, best=None):
    """Greedy CTC over [N, T, C] probabilities: argmax, merge repeats, drop blanks.

    Returns [(text, score)], score = mean max-probability of the kept steps (0.0 for an empty line).
    best: best_classes(probs), when the caller has it already."""
    probs = np.asarray(probs, dtype=np.float32)
    check_classes(probs.shape, labels)
    idx, conf = best_classes(probs) if best is None else best
    return decode_best(idx, conf, labels)


def check_classes(shape: tuple, labels: list) -> None:
    """A rec output [N, T, C] must have a class per label."""
    if len(shape) != 3 or shape[2] != len(labels):
        raise ValueError(f"rec output shape {tuple(shape)} does not fit a dictionary of {len(labels)} classes")


def decode_best(idx: np.ndarray, conf: np.ndarray, labels: list):
    """Greedy CTC over each step's best class and its probability ([N, T] each): ctc_decode's [(text, score)]."""
    keep = idx != 0
    keep[:, 1:] &= idx[:, 1:] != idx[:, :-1]
    out = []
    for row_idx, row_conf, row_keep in zip(idx, conf, keep):
        chars = row_idx[row_keep]
        text = "".join(labels[c] for c in chars)
        score = float(row_conf[row_keep].mean()) if chars.size else 0.0
        out.append((text, score))
    return out
