"""Very long text lines recognised in overlapping windows (issue 23), in both runtimes' workers.

The recogniser's memory grows with its input's width, faster than linearly (its neck mixes every time step with
every other): one 5,000-character line, 48 x 82,000 pixels as rec input, took the CLI to 1.7 GB. A rec input
wider than MAX_WIDTH is therefore run as windows of WINDOW pixels, each with CONTEXT pixels of the line on both
sides that are run but not kept, and the kept time steps are laid end to end: the caller gets each time step's
best class and its probability, as from a single run (Pipeline.infer_best). Lines up to MAX_WIDTH (every line of the labelled pages:
the widest seen is about 2,000) are run whole, as before, so their results do not change.
"""
from __future__ import annotations

import inspect

import numpy as np

MAX_WIDTH = 8192   # wider rec inputs are run in windows
WINDOW = 4096      # pixels kept from each window
CONTEXT = 256      # pixels run on each side of the kept part, for the characters cut by its edges


def plan(width: int) -> list | None:
    """[(x0, x1, keep0, keep1)] in pixels (run x0:x1, keep keep0:keep1), or None to run the input whole."""
    if width <= MAX_WIDTH:
        return None
    out = []
    for k0 in range(0, width, WINDOW):
        k1 = min(width, k0 + WINDOW)
        out.append((max(0, k0 - CONTEXT), min(width, k1 + CONTEXT), k0, k1))
    return out


async def best_classes(run, x: np.ndarray, reduce):
    """(classes [N, T], their probabilities [N, T]) of the recogniser over x [N, 3, H, W], in windows when x is
    wider than MAX_WIDTH. `run(window)` is the model (its result may be awaitable), `reduce(probs)` turns one
    output [N, t, C] into (classes, probabilities) [N, t] (rec.best_classes, after any class mask).

    Only the best class of each time step is kept from each window, so a line's memory is its windows', not its
    length's: the whole [N, T, C] output of a 10,000-character line would be 0.6 GB with the tiny recogniser's
    6,905 classes and 2 GB with the larger one's 18,710 (the re-reading pass reads doubtful long lines again).
    Neighbouring windows both see 2 x CONTEXT pixels around their border; each row's seam is put at a time step
    there that both read as blank (CTC's "no character"), the nearest to the border, so no character is cut in
    two, read twice or lost; without such a step the seam is the border itself."""
    windows = plan(x.shape[3])
    if windows is None:
        return reduce(await _result(run(x)))
    width = x.shape[3]
    idx = conf = None
    for i, (x0, x1, k0, k1) in enumerate(windows):
        probs = await _result(run(np.ascontiguousarray(x[:, :, :, x0:x1])))
        stride = max(1, int(round((x1 - x0) / probs.shape[1])))   # pixels per time step: 8 for PP-OCR
        steps = probs.shape[1]
        w_idx, w_conf = reduce(probs)
        del probs
        if idx is None:
            total = -(-width // stride)
            idx = np.zeros((x.shape[0], total), dtype=w_idx.dtype)
            conf = np.zeros((x.shape[0], total), dtype=np.float32)
        o = x0 // stride                                           # the window's first step in the whole line
        n = min(steps, idx.shape[1] - o)
        if i == 0:
            idx[:, o:o + n], conf[:, o:o + n] = w_idx[:, :n], w_conf[:, :n]
            continue
        border = k0 // stride
        shared_end = min(o + n, windows[i - 1][1] // stride)   # where the previous window's steps end
        for row in range(idx.shape[0]):
            both_blank = np.flatnonzero((idx[row, o:shared_end] == 0) & (w_idx[row, :shared_end - o] == 0)) + o
            seam = int(both_blank[np.argmin(np.abs(both_blank - border))]) if both_blank.size else border
            idx[row, seam:o + n], conf[row, seam:o + n] = w_idx[row, seam - o:n], w_conf[row, seam - o:n]
    return idx, conf


async def _result(out):
    return np.asarray(await out if inspect.isawaitable(out) else out, dtype=np.float32)
