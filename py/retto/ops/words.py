"""Word boxes from the recogniser's CTC time steps.

Greedy CTC keeps, for every character, the run of time steps that emitted it. A time step covers a fixed slice of
the recogniser's input width (input width / steps), and the line crop fills the first `content_width` pixels of
that input, so a character's steps give its position along the line as a fraction of the crop. Words are the runs
of characters between spaces; a word's fractions are mapped back onto the line's box in image coordinates,
through the turns the crop went through (90 degrees for tall lines, 180 for upside-down ones).
"""
from __future__ import annotations

import bisect
import unicodedata

import numpy as np


def ctc_steps(probs: np.ndarray, best=None) -> list:
    """[T, C] probabilities of one line -> [(class, first step, last step, max-prob)] for the characters greedy
    CTC keeps (same rule as rec.ctc_decode: argmax, merge repeats, drop blanks). best: (classes [T], their
    probabilities [T]) when the caller has them already (rec.best_classes)."""
    if best is None:
        idx = probs.argmax(axis=1)
        conf = np.take_along_axis(probs, idx[:, None], axis=1)[:, 0]
    else:
        idx, conf = best
    if len(idx) == 0:
        return []
    change = np.flatnonzero(idx[1:] != idx[:-1]) + 1     # where a run of one class starts
    starts = np.concatenate(([0], change))
    ends = np.concatenate((change - 1, [len(idx) - 1]))
    kept = idx[starts] != 0
    return [(int(c), int(t0), int(t1), float(p)) for c, t0, t1, p in
            zip(idx[starts][kept], starts[kept], ends[kept], conf[starts][kept])]


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
    if len(words) == 1:   # a one-word line: the word is the line (on a short crop a step is a large share of it)
        words[0] = (words[0][0], 0.0, 1.0, words[0][3])
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


# ------------------------------------------------------------------------------------------ missing word breaks
# Bold or tightly set text often reads with its word breaks dropped ("THENORTHERN", "13A"). Where the recogniser
# left two or more blank steps between two characters, the crop's own ink is measured between them: a column run
# with no ink at least `word_gap` times the height of the line's ink is a space a reader sees. Measured on the
# labelled pages (PP-OCRv6 tiny, 5,600 letter gaps inside words and 1,100 word breaks): the widest blank run
# inside a word was at most 0.29 of the ink height for 99 % of the letter gaps and 0.44 at most with two blank
# steps; the word breaks the model dropped measured 0.38-1.1 (median 0.47).
MIN_BLANK_STEPS = 2
LETTER_FACTOR = 2.0    # ... and at least this times the line's median gap between letters


def spaced(char: str) -> bool:
    """A character of a script that separates words with spaces: not a space itself, and not a wide (CJK) one,
    whose scripts set no spaces between words."""
    return bool(char) and not char.isspace() and unicodedata.east_asian_width(char[0]) not in ("W", "F")


NO_SPACE_BEFORE = set(".,:;!?%)]}") | {"\u2019", "\u201d"}    # closing marks stick to the word before
NO_SPACE_AFTER = set("([{$#") | {"\u2018", "\u201c"}          # opening marks stick to the word after


def may_break(text: list, k: int) -> bool:
    """Whether a word break between text[k-1] and text[k] is plausible at all: not before closing punctuation,
    not after opening punctuation, not inside a number ("2.31": in monospace type the point sits in a wide
    blank cell)."""
    before, after = text[k - 1], text[k]
    if after in NO_SPACE_BEFORE or before in NO_SPACE_AFTER:
        return False
    if before in ".," and k >= 2 and text[k - 2].isdigit() and after.isdigit():
        return False
    return True


def ink_mask(crop: np.ndarray) -> np.ndarray | None:
    """Boolean [H, W] of ink pixels (dark on light or light on dark, whichever the crop's median says is paper);
    None when the crop has too little contrast to tell."""
    # Grey is the channels' mean; kept as the integer sum (3 x grey, 0..765) so that its order statistics come
    # from one histogram instead of three partitions of a float copy (this runs for most lines, in Pyodide too).
    if crop.ndim == 3:
        total = crop[..., 0].astype(np.uint16)
        total += crop[..., 1]
        total += crop[..., 2]
        scale = 3.0
    else:
        total, scale = np.asarray(crop).astype(np.uint16, copy=False), 1.0   # grey uint8 already
    counts = np.cumsum(np.bincount(total.ravel()))
    n = int(counts[-1])

    def nth(k: int) -> float:        # the k-th smallest value (0-based)
        return float(np.searchsorted(counts, k, side="right"))

    def percentile(q: float) -> float:  # numpy's default (linear) rule
        at = q / 100.0 * (n - 1)
        k = int(at)
        lower = nth(k)
        return lower + (nth(min(k + 1, n - 1)) - lower) * (at - k)

    lo, hi = percentile(1), percentile(99)   # ink may be a small share of a wide crop
    if hi - lo < 10 * scale:
        return None
    mid = (lo + hi) / 2.0                    # all in units of the sum: a pixel on mid itself is paper
    median = (nth((n - 1) // 2) + nth(n // 2)) / 2.0
    return total < mid if median > mid else total > mid


def ink_rows(crop: np.ndarray, ink: np.ndarray | None = None):
    """(ink mask, first row with ink, last row with ink) of a crop; None when it has too little contrast to tell
    ink from paper. ink: the crop's ink_mask when the caller has it already."""
    if ink is None:
        ink = ink_mask(crop)
    if ink is None:
        return None
    rows = np.flatnonzero(ink.any(axis=1))
    if rows.size == 0:
        return None
    return ink, int(rows[0]), int(rows[-1])


def blank_runs(flags: np.ndarray) -> tuple:
    """(starts, ends) of the runs of True in a 1-D boolean array, ends exclusive, as Python lists."""
    padded = np.concatenate(([False], flags, [False])).astype(np.int8)
    edges = np.flatnonzero(np.diff(padded)).tolist()
    return edges[::2], edges[1::2]


def longest_run_within(runs: tuple, x0: int, x1: int) -> int:
    """Length of the longest part of the runs (blank_runs) inside [x0, x1)."""
    starts, ends = runs
    k = bisect.bisect_right(ends, x0)          # the first run that ends after x0
    best = 0
    while k < len(starts) and starts[k] < x1:
        best = max(best, min(ends[k], x1) - max(starts[k], x0))
        k += 1
    return best


def add_missing_spaces(steps: list, labels: list, crop: np.ndarray, crop_px_per_step: float,
                       word_gap: float, ink: np.ndarray | None = None) -> list:
    """`steps` (ctc_steps) with a space step inserted at each word break the recogniser dropped (see above).
    ink: the crop's ink_mask when the caller has it already (else it is found here, only if a break is likely)."""
    space = len(labels) - 1   # the class the models append for " " (rec.labels_from_charset)
    if word_gap <= 0 or len(steps) < 2 or not labels[space].isspace():
        return steps
    text = [labels[c] for c, *_ in steps]
    candidates = [k for k in range(1, len(steps))
                  if steps[k][1] - steps[k - 1][2] - 1 >= MIN_BLANK_STEPS
                  and spaced(text[k - 1]) and spaced(text[k]) and may_break(text, k)]
    if not candidates:
        return steps
    found = ink_rows(crop, ink)
    if found is None:
        return steps
    ink, top, bottom = found
    band = bottom - top + 1
    runs = blank_runs(~ink.any(axis=0))    # runs of columns with no ink

    def blank(k):                  # the widest blank column run between characters k-1 and k
        x0 = int((steps[k - 1][2] + 0.5) * crop_px_per_step)
        x1 = min(int((steps[k][1] + 0.5) * crop_px_per_step), ink.shape[1])
        return longest_run_within(runs, x0, x1) if x1 > x0 else 0
    # Letter-spaced headings ("F O R T  W O R T H") have wide gaps between all their letters: a break must also
    # be clearly wider than the line's usual gap between two characters (the median of the others).
    pairs = {k: blank(k) for k in range(1, len(steps))
             if not labels[steps[k][0]].isspace() and not labels[steps[k - 1][0]].isspace()}
    out, last = [], 0
    for k in candidates:
        run = pairs[k]
        others = [v for j, v in pairs.items() if j != k]
        usual = float(np.median(others)) if others else 0.0
        if run >= word_gap * band and run >= LETTER_FACTOR * usual:
            gap_step = (steps[k - 1][2] + steps[k][1]) // 2
            out.extend(steps[last:k])
            out.append((space, gap_step, gap_step, steps[k][3]))
            last = k
    return out + steps[last:] if out else steps


# ------------------------------------------------------------------------------------------ word ends on the ink
# A run of ink columns much wider than the word it overlaps is a rule or an underline, not the word's letters.
RULE_WIDTH = 1.5


def fit_to_ink(spans: list, crop: np.ndarray, ink: np.ndarray | None = None) -> list:
    """`spans` (word_spans) with each word's ends moved onto its ink. A CTC step fires somewhere inside its glyph,
    so a word's ends from the steps are a step or so off (on a 17 px line of short codes a one-letter word's box
    sat 4-5 px right of the letter). The crop's columns with ink form runs (letters, or letters that touch); each
    run belongs to the word it overlaps most, and a word with runs spans from its first run's start to its last
    run's end. A run overlapping no word (a speck in the gap) or much wider than its word (a rule under the line)
    moves nothing; a word with no run keeps its ends. ink: the crop's ink_mask when the caller has it already."""
    if not spans:
        return spans
    found = ink_rows(crop, ink)
    if found is None:
        return spans
    ink, top, bottom = found
    width = ink.shape[1]
    band = bottom - top + 1
    starts, ends = blank_runs(ink.any(axis=0))      # runs of columns with ink
    if not starts:
        return spans
    a, b = np.asarray(starts, dtype=np.float64), np.asarray(ends, dtype=np.float64)
    x0 = np.array([u0 for _text, u0, _u1, _score in spans]) * width
    x1 = np.array([u1 for _text, _u0, u1, _score in spans]) * width
    overlap = np.minimum(b[:, None], x1[None, :]) - np.maximum(a[:, None], x0[None, :])   # [runs, words]
    k = overlap.argmax(axis=1)                      # each run's word
    own = (overlap[np.arange(len(a)), k] > 0) & (b - a <= RULE_WIDTH * (x1[k] - x0[k]) + band)
    first = np.full(len(spans), np.inf)
    last = np.full(len(spans), -np.inf)
    np.minimum.at(first, k[own], a[own])
    np.maximum.at(last, k[own], b[own])
    return [(text, first[j] / width, last[j] / width, score) if last[j] > first[j] else (text, u0, u1, score)
            for j, (text, u0, u1, score) in enumerate(spans)]
