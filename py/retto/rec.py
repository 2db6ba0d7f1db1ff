"""Text recognition: batch widths, normalisation and greedy CTC decoding."""
from __future__ import annotations

import numpy as np

from .cls import resize_pad
from .config import RecConfig


def batch_width(crops: list, indices: list, cfg: RecConfig) -> int:
    """int(48 * max(320/48, widest w/h in the batch)), as the reference computes it."""
    ratio = max([cfg.min_width / cfg.height] + [crops[i].shape[1] / float(crops[i].shape[0]) for i in indices])
    return int(cfg.height * ratio)


def preprocess(crops: list, indices: list, cfg: RecConfig) -> np.ndarray:
    width = batch_width(crops, indices, cfg)
    return np.stack([resize_pad(crops[i], cfg.height, width) for i in indices])


def labels_from_charset(charset: list) -> list:
    """Class index -> character: CTC blank first, then the dictionary, then the space the models append."""
    return ["", *charset, " "]


def ctc_decode(probs: np.ndarray, labels: list):
    """Greedy CTC over [N, T, C] probabilities: argmax, merge repeats, drop blanks.

    Returns [(text, score)], score = mean max-probability of the kept steps (0.0 for an empty line)."""
    probs = np.asarray(probs, dtype=np.float32)
    if probs.ndim != 3 or probs.shape[2] != len(labels):
        raise ValueError(f"rec output shape {probs.shape} does not fit a dictionary of {len(labels)} classes")
    idx = probs.argmax(axis=2)
    conf = probs.max(axis=2)
    keep = idx != 0
    keep[:, 1:] &= idx[:, 1:] != idx[:, :-1]
    out = []
    for row_idx, row_conf, row_keep in zip(idx, conf, keep):
        chars = row_idx[row_keep]
        text = "".join(labels[c] for c in chars)
        score = float(row_conf[row_keep].mean()) if chars.size else 0.0
        out.append((text, score))
    return out
