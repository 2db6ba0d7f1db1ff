"""Whole-page orientation (0, 90, 180 or 270 degrees).

Two kinds of evidence, which must agree before an upright page is ever turned:
- the page-orientation model (a 4-class PP-LCNet document classifier, role "orient"), when the set has it: the
  page is scaled so its short side is 256, its centre 224 x 224 is classified (model_input, model_angle);
- the page's own lines (below).

The lines' evidence alone once turned an upright table of short entries ("13 A", "14 B", ...) a quarter: its
tall merged boxes looked like a turned page and read passably either way. So with the model, a turn is made
only when the model and the lines name the same angle; when they disagree, or the model is unsure, the page is
kept as given (combine()).

From the lines, two measurements:
- the axis, from geometry: on a page turned a quarter, text lines are boxes much taller than wide;
- the half turn, from recognition: a sample of lines is read as found and turned 180 degrees, and the page is
  turned the way that reads with more confidence (upright text reads at ~0.9+, upside-down text far lower).
  The line classifier's 180-degree votes decide whether that check is needed on a horizontal page, and a
  horizontal page they read nearly all upright is upright without asking the model either (sure_upright), so an
  upright page costs nothing extra.

`crop_line` turns a tall crop 90 degrees counter-clockwise; that reads upright when the page was turned 90 degrees
clockwise, so on the vertical axis "as found" means 90 and "turned" means 270.
"""
from __future__ import annotations

import numpy as np

ELONGATED = 2.0         # long side / short side for a box to count as a text line with a direction
SAMPLE = 6              # lines read both ways to decide the half turn (one rec batch each way)
FLIP_SHARE = 0.3        # below this share of 180-degree votes, a horizontal page is taken as upright unchecked
# A level page whose line classifier reads at least this share of its text upright is upright, and the model is
# not asked: it could not turn the page anyway (a turn needs the lines to agree). On the labelled pages the upright
# ones read 0.87-1.00 upright, the same pages turned 180 degrees 0.00-0.69 (docs/guides/layout-and-tables.md).
SURE_UPRIGHT = 0.9
MIN_SCORE = 0.75        # a quarter turn needs the sample to read this well (vertical CJK columns do not)


def _sides(quad) -> tuple:
    """(extent along x, extent along y) of a quad's edges tl->tr and tl->bl, as lengths."""
    q = np.asarray(quad, dtype=np.float64)
    return float(np.hypot(*(q[1] - q[0]))), float(np.hypot(*(q[3] - q[0])))


def text_axis(quads) -> str | None:
    """"horizontal" or "vertical": the direction most of the page's text runs (by line length); None when no
    box is clearly a line."""
    votes = {"horizontal": 0.0, "vertical": 0.0}
    for q in quads:
        q = np.asarray(q, dtype=np.float64)
        dx, dy = np.ptp(q[:, 0]), np.ptp(q[:, 1])
        long_, short = max(dx, dy), min(dx, dy)
        if short > 0 and long_ / short >= ELONGATED:
            votes["horizontal" if dx >= dy else "vertical"] += long_
    if not any(votes.values()):
        return None
    return max(votes, key=votes.get)


def flip_share(quads, angles) -> float:
    """Share of the text (by line length) the line classifier turned 180 degrees."""
    lengths = np.array([max(_sides(q)) for q in quads])
    flipped = np.array([a == 180 for a in angles])
    return float(lengths[flipped].sum() / max(lengths.sum(), 1e-9))


def sure_upright(quads, angles) -> float | None:
    """The share of the text (by line length) the line classifier read upright, when the lines are level and that
    share is at least SURE_UPRIGHT: the page is upright without the model or a second reading. None otherwise."""
    if text_axis(quads) != "horizontal":
        return None
    share = 1.0 - flip_share(quads, angles)
    return share if share >= SURE_UPRIGHT else None


def sample_lines(quads, axis: str, k: int = SAMPLE) -> list:
    """Indexes of up to k long lines along `axis`: the most text to judge by, one rec batch."""
    cand = []
    for i, q in enumerate(quads):
        q = np.asarray(q, dtype=np.float64)
        dx, dy = np.ptp(q[:, 0]), np.ptp(q[:, 1])
        long_, short = (dx, dy) if axis == "horizontal" else (dy, dx)
        if short > 0 and long_ / short >= ELONGATED:
            cand.append((long_, i))
    return [i for _, i in sorted(cand, reverse=True)[:k]]


def decide(axis: str | None, score_as_found: float, score_turned: float) -> int:
    """The page angle from the axis and the sample's mean recognition scores read as found and turned 180."""
    if axis is None:
        return 0
    turned = score_turned > score_as_found
    if axis == "horizontal":
        return 180 if turned else 0
    if max(score_as_found, score_turned) < MIN_SCORE:
        return 0          # tall boxes that read badly either way: vertical script, not a turned page
    return 270 if turned else 90


MODEL_SIDE = 256         # the model's input: short side scaled to this, then the centre crop
MODEL_CROP = 224
MODEL_MIN_PROB = 0.5     # the model's top class below this: unsure, keep the page as given
IMAGENET_MEAN = (0.485, 0.456, 0.406)
IMAGENET_STD = (0.229, 0.224, 0.225)
MODEL_ANGLES = (0, 90, 180, 270)   # the model's classes: the content's clockwise turn (its metadata says so)


def model_input(img: np.ndarray) -> np.ndarray:
    """[1, 3, 224, 224] float32 for the orientation model: short side to 256 (Lanczos), centre crop, ImageNet
    mean/std, BGR channel order (as the model's own package feeds it OpenCV images)."""
    from PIL import Image
    h, w = img.shape[:2]
    scale = MODEL_SIDE / min(h, w)
    nw, nh = max(MODEL_CROP, round(w * scale)), max(MODEL_CROP, round(h * scale))
    small = Image.fromarray(img).resize((nw, nh), Image.LANCZOS)
    left, top = (nw - MODEL_CROP) // 2, (nh - MODEL_CROP) // 2
    x = np.asarray(small.crop((left, top, left + MODEL_CROP, top + MODEL_CROP)), dtype=np.float32) / 255.0
    x = (x[:, :, ::-1] - np.array(IMAGENET_MEAN, np.float32)) / np.array(IMAGENET_STD, np.float32)
    return np.ascontiguousarray(x.transpose(2, 0, 1)[None], dtype=np.float32)


def model_angle(probs) -> tuple:
    """(angle, its probability, the probability of upright) from the model's class probabilities."""
    p = np.asarray(probs, dtype=np.float64).reshape(-1)
    k = int(p.argmax())
    return MODEL_ANGLES[k], float(p[k]), float(p[0])


def combine(model: tuple | None, lines_angle: int) -> tuple:
    """The page angle and its confidence from the model's (angle, prob, upright prob) and the lines' angle.
    Without a model the lines decide (confidence None: not measured). With one, a turn needs both to agree and
    the model to be sure; anything else keeps the page as given, with the model's probability of upright."""
    if model is None:
        return lines_angle, None
    angle, prob, upright = model
    if angle != 0 and angle == lines_angle and prob >= MODEL_MIN_PROB:
        return angle, prob
    return 0, upright


def turn_upright(img: np.ndarray, angle: int) -> np.ndarray:
    """Undo a clockwise turn of `angle` degrees (np.rot90 turns counter-clockwise)."""
    return np.ascontiguousarray(np.rot90(img, k=(angle // 90) % 4))


def to_source(points, angle: int, upright_w: int, upright_h: int) -> np.ndarray:
    """Points of the upright page back into the image as given (turned clockwise by `angle`)."""
    p = np.asarray(points, dtype=np.float64).copy()
    w, h = upright_w, upright_h
    for _ in range((angle // 90) % 4):       # one clockwise quarter turn: (x, y) -> (h - y, x)
        p = np.stack([h - p[..., 1], p[..., 0]], axis=-1)
        w, h = h, w
    return p
