"""Word boxes from the recogniser's CTC time steps.

Greedy CTC keeps, for every character, the run of time steps that emitted it. A time step covers a fixed slice of
the recogniser's input width (input width / steps), and the line crop fills the first `content_width` pixels of
that input, so a character's steps give its position along the line as a fraction of the crop. Words are the runs
of characters between spaces; a word's fractions are mapped back onto the line's box in image coordinates,
through the turns the crop went through (90 degrees for tall lines, 180 for upside-down ones).
"""
from __future__ import annotations

import numpy as np


def ctc_steps(probs: np.ndarray) -> list:
    """[T, C] probabilities of one line -> [(class, first step, last step, max-prob)] for the characters greedy
    CTC keeps (same rule as rec.ctc_decode: argmax, merge repeats, drop blanks)."""
    idx = probs.argmax(axis=1)
    conf = probs.max(axis=1)
    out = []
    t = 0
    while t < len(idx):
        end = t
        while end + 1 < len(idx) and idx[end + 1] == idx[t]:
            end += 1
        if idx[t] != 0:
            out.append((int(idx[t]), t, end, float(conf[t])))
        t = end + 1
    return out


def word_spans(steps: list, labels: list, n_steps: int, input_width: int, content_width: int) -> list:
    """[(text, u0, u1, score)]: each word and where it lies along the crop, as fractions 0..1 of its width.

    A character fires at one or two steps somewhere inside its glyph, so its own steps understate a word's
    extent (a one-letter word would get one step, 8 px, of a 20 px glyph). The space before a word fires in the
    gap before it, so a word starts where that space's steps end and ends where the next space's begin; at the
    ends of the line, a word gets one step beyond its first and last characters."""
    px_per_step = input_width / max(n_steps, 1)
    spaces = [labels[c].isspace() for c, *_ in steps]
    words, k = [], 0
    while k < len(steps):
        if spaces[k]:
            k += 1
            continue
        end = k
        while end + 1 < len(steps) and not spaces[end + 1]:
            end += 1
        start_step = steps[k - 1][2] + 1 if k > 0 else steps[k][1] - 1
        end_step = steps[end + 1][1] if end + 1 < len(steps) else steps[end][2] + 2
        run = steps[k:end + 1]
        text = "".join(labels[c] for c, *_ in run)
        u0 = start_step * px_per_step / content_width
        u1 = end_step * px_per_step / content_width
        score = float(np.mean([p for *_, p in run]))
        words.append((text, max(0.0, min(u0, 1.0)), max(0.0, min(u1, 1.0)), score))
        k = end + 1
    return words


def span_quad(box, u0: float, u1: float, turned_90: bool, turned_180: bool) -> list:
    """The part [u0, u1] (fractions of the recognised crop's width) of a line box [tl, tr, br, bl] in image
    coordinates, as a box ordered in reading direction."""
    tl, tr, br, bl = (np.asarray(p, dtype=np.float64) for p in box)
    if turned_180:             # the crop was read upside down: fractions run from the other end
        u0, u1 = 1.0 - u1, 1.0 - u0
    if turned_90:              # a tall crop turned counter-clockwise reads from the box's top down its right side
        top0, top1 = tr + u0 * (br - tr), tr + u1 * (br - tr)
        bot0, bot1 = tl + u0 * (bl - tl), tl + u1 * (bl - tl)
    else:
        top0, top1 = tl + u0 * (tr - tl), tl + u1 * (tr - tl)
        bot0, bot1 = bl + u0 * (br - bl), bl + u1 * (br - bl)
    quad = [top0, top1, bot1, bot0]
    if turned_180:
        quad = [bot1, bot0, top0, top1]
    return [[float(x), float(y)] for x, y in quad]


def line_spans(probs: np.ndarray, labels: list, input_width: int, content_width: int) -> list:
    """[(text, u0, u1, score)] for one line's [T, C] recogniser output."""
    return word_spans(ctc_steps(probs), labels, probs.shape[0], input_width, content_width)
