"""Very long text lines recognised in overlapping windows (issue 23), in both runtimes' workers.

The recogniser's memory grows with its input's width, faster than linearly (its neck mixes every time step with
every other): one 5,000-character line, 48 x 82,000 pixels as rec input, took the CLI to 1.7 GB. A rec input
wider than MAX_WIDTH is therefore run as windows of WINDOW pixels, each with CONTEXT pixels of the line on both
sides that are run but not kept, and the kept time steps are laid end to end: the caller gets the [N, T, C]
probabilities a single run would have had the shape of. Lines up to MAX_WIDTH (every line of the labelled pages:
the widest seen is about 2,000) are run whole, as before, so their results do not change.
"""
from __future__ import annotations

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


def _stitched(x: np.ndarray, windows: list):
    """A generator: yields each window's input, is sent its output, returns the stitched probabilities. Two
    neighbouring windows both see 2 x CONTEXT pixels around their border; each row's seam is put at a time step
    there that both read as blank (CTC's "no character"), the nearest to the border, so no character is cut in
    two, read twice or lost; without such a step the seam is the border itself."""
    width = x.shape[3]
    out = None
    for i, (x0, x1, k0, k1) in enumerate(windows):
        probs = yield np.ascontiguousarray(x[:, :, :, x0:x1])
        stride = max(1, int(round((x1 - x0) / probs.shape[1])))   # pixels per time step: 8 for PP-OCR
        if out is None:
            out = np.zeros((x.shape[0], -(-width // stride), probs.shape[2]), dtype=np.float32)
        o = x0 // stride                                           # the window's first step in the whole line
        n = min(probs.shape[1], out.shape[1] - o)
        if i == 0:
            out[:, o:o + n] = probs[:, :n]
            continue
        border = k0 // stride
        shared_end = min(o + n, windows[i - 1][1] // stride)   # where the previous window's steps end
        mine = probs[:, :n].argmax(axis=2)
        for row in range(out.shape[0]):
            both_blank = np.flatnonzero((out[row, o:shared_end].argmax(axis=1) == 0)
                                        & (mine[row, :shared_end - o] == 0)) + o
            seam = int(both_blank[np.argmin(np.abs(both_blank - border))]) if both_blank.size else border
            out[row, seam:o + n] = probs[row, seam - o:n]
    return out


def run(rec, x: np.ndarray) -> np.ndarray:
    """rec(x) for a synchronous recogniser (the native worker), in windows when x is wider than MAX_WIDTH."""
    windows = plan(x.shape[3])
    if windows is None:
        return rec(x)
    gen = _stitched(x, windows)
    window = next(gen)
    try:
        while True:
            window = gen.send(np.asarray(rec(window), dtype=np.float32))
    except StopIteration as done:
        return done.value


async def run_async(rec, x: np.ndarray) -> np.ndarray:
    """The same for an async recogniser (the browser's worker, over onnxruntime-web)."""
    windows = plan(x.shape[3])
    if windows is None:
        return await rec(x)
    gen = _stitched(x, windows)
    window = next(gen)
    try:
        while True:
            window = gen.send(np.asarray(await rec(window), dtype=np.float32))
    except StopIteration as done:
        return done.value
