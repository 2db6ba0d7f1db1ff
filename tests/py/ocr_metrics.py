"""Small, independent measuring helpers for the reference tests (no code from py/retto or RapidOCR).

- `levenshtein` / `cer`: plain dynamic-programming edit distance (unit costs) over code points;
  `levenshtein_within`: the same kept to a diagonal band, exact up to the band (long lines).
- `wer`: the same distance over whitespace-split words.
- `polygon_iou`: area of intersection over union of two convex polygons, by Sutherland-Hodgman clipping and the
  shoelace formula. Text boxes from DB detection are (scaled) rotated rectangles, hence convex.
- `reading_order_text`: how a list of OCR lines becomes one string for CER (documented in test_reference.py).
- `match_lines`: pairs each reference line with our line of best polygon IoU.
- `score_page`: CER/WER of OCR lines against a labelled page (tests/testset), independent of reading order, and
  word-box accuracy (`match_words`).
"""
from __future__ import annotations

import re
from typing import Sequence

Point = Sequence[float]


# --------------------------------------------------------------------------------------------- text

def levenshtein(a: Sequence, b: Sequence) -> int:
    """Edit distance with unit insert/delete/substitute costs (two-row DP), over characters or list items."""
    if len(a) < len(b):
        a, b = b, a
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i]
        for j, cb in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
        prev = cur
    return prev[-1]


def levenshtein_within(a: Sequence, b: Sequence, band: int) -> int:
    """The edit distance when it is at most `band`, else some number over `band`: the same DP kept to the cells
    with |i - j| <= band (a path leaving that diagonal band makes more than `band` insertions or deletions). For
    long texts: O(len * band) instead of O(len^2)."""
    if len(a) < len(b):
        a, b = b, a
    if len(a) - len(b) > band:
        return band + 1
    far = band + 1   # stands for any cost over the band
    prev = {j: j for j in range(min(len(b), band) + 1)}
    for i in range(1, len(a) + 1):
        cur = {}
        for j in range(max(0, i - band), min(len(b), i + band) + 1):
            if j == 0:
                cur[j] = i
                continue
            cur[j] = min(prev.get(j, far) + 1, cur.get(j - 1, far) + 1,
                         prev.get(j - 1, far) + (a[i - 1] != b[j - 1]))
        prev = cur
    return min(prev.get(len(b), far), far)


def normalise_ws(s: str) -> str:
    """Every run of whitespace (incl. line breaks) becomes one space; ends stripped."""
    return re.sub(r"\s+", " ", s).strip()


def fold_l1(s: str) -> str:
    """The typewriter prints 'l' and '1' with the same glyph: fold both to '1' (extra figure only)."""
    return s.replace("l", "1")


def cer(hyp: str, ref: str) -> float:
    return levenshtein(hyp, ref) / max(1, len(ref))


def wer(hyp: str, ref: str) -> float:
    """Word-level edit distance over whitespace-split tokens / number of reference words.

    Run-together words count fully: "thatIthought" for "that I thought" is 1 substitution + 2 deletions = 3.
    """
    ref_words = ref.split()
    return levenshtein(hyp.split(), ref_words) / max(1, len(ref_words))


# --------------------------------------------------------------------------------------------- geometry

def polygon_area(poly: Sequence[Point]) -> float:
    """Signed shoelace area (positive for counter-clockwise in a y-up frame)."""
    n = len(poly)
    s = 0.0
    for i in range(n):
        x1, y1 = poly[i]
        x2, y2 = poly[(i + 1) % n]
        s += x1 * y2 - x2 * y1
    return s / 2.0


def _ccw(poly: Sequence[Point]) -> list[tuple[float, float]]:
    pts = [(float(x), float(y)) for x, y in poly]
    return pts if polygon_area(pts) >= 0 else pts[::-1]


def _clip(subject: list[tuple[float, float]], a: tuple[float, float], b: tuple[float, float]):
    """Keep the part of `subject` on the left of the directed edge a->b (inside of a CCW clip polygon)."""
    def side(p):
        return (b[0] - a[0]) * (p[1] - a[1]) - (b[1] - a[1]) * (p[0] - a[0])

    def cross_point(p, q, sp, sq):
        t = sp / (sp - sq)
        return (p[0] + t * (q[0] - p[0]), p[1] + t * (q[1] - p[1]))

    out = []
    n = len(subject)
    for i in range(n):
        p, q = subject[i], subject[(i + 1) % n]
        sp, sq = side(p), side(q)
        if sp >= 0:
            out.append(p)
            if sq < 0:
                out.append(cross_point(p, q, sp, sq))
        elif sq >= 0:
            out.append(cross_point(p, q, sp, sq))
    return out


def convex_intersection_area(p1: Sequence[Point], p2: Sequence[Point]) -> float:
    subject = _ccw(p1)
    clip = _ccw(p2)
    for i in range(len(clip)):
        if not subject:
            return 0.0
        subject = _clip(subject, clip[i], clip[(i + 1) % len(clip)])
    return abs(polygon_area(subject)) if len(subject) >= 3 else 0.0


def polygon_iou(p1: Sequence[Point], p2: Sequence[Point]) -> float:
    a1, a2 = abs(polygon_area(p1)), abs(polygon_area(p2))
    inter = convex_intersection_area(p1, p2)
    union = a1 + a2 - inter
    return inter / union if union > 0 else 0.0


# --------------------------------------------------------------------------------------------- lines

def reading_order_text(lines: Sequence[tuple[Sequence[Point], str]]) -> str:
    """Join OCR lines (box, text) into one string in reading order, the same way for every engine.

    Boxes are grouped into text rows: sorted by vertical centre, a box starts a new row when its centre lies
    below the current row's mean centre by more than half the median box height; within a row boxes go left to
    right. Rows and boxes are joined by single spaces, then whitespace is normalised. So a line that one engine
    splits into two boxes (e.g. "Ze" + "geweekt ...") costs nothing extra, and the comparison does not depend on
    line-break placement, only on the characters and the word spacing.
    """
    if not lines:
        return ""
    items = []
    for box, text in lines:
        ys = [p[1] for p in box]
        xs = [p[0] for p in box]
        items.append(((min(ys) + max(ys)) / 2, max(ys) - min(ys), min(xs), text))
    heights = sorted(h for _, h, _, _ in items)
    half = heights[len(heights) // 2] / 2
    rows: list[list] = []
    for item in sorted(items, key=lambda t: t[0]):
        if rows and item[0] - sum(i[0] for i in rows[-1]) / len(rows[-1]) <= half:
            rows[-1].append(item)
        else:
            rows.append([item])
    words = [it[3] for row in rows for it in sorted(row, key=lambda t: t[2])]
    return normalise_ws(" ".join(words))


def match_lines(ref_lines, our_lines):
    """For each reference line (box, text), our line with the highest polygon IoU (or None when no overlap).

    Returns a list of (ref_index, our_index | None, iou).
    """
    out = []
    for i, (rbox, _) in enumerate(ref_lines):
        best_j, best = None, 0.0
        for j, (obox, _) in enumerate(our_lines):
            iou = polygon_iou(rbox, obox)
            if iou > best:
                best_j, best = j, iou
        out.append((i, best_j, best))
    return out


# --------------------------------------------------------------------------------------------- labelled pages

def point_in_convex(p: Point, poly: Sequence[Point]) -> bool:
    """Inside or on the border of a convex polygon (same left-of-edge test as the clipping above)."""
    pts = _ccw(poly)
    return all((b[0] - a[0]) * (p[1] - a[1]) - (b[1] - a[1]) * (p[0] - a[0]) >= 0
               for a, b in zip(pts, pts[1:] + pts[:1]))


def _centre(box: Sequence[Point]) -> tuple[float, float]:
    return sum(p[0] for p in box) / len(box), sum(p[1] for p in box) / len(box)


def assign_lines(pred_lines, gt_lines) -> list[int | None]:
    """For each predicted line, the GT line whose quad contains the predicted box's centre; failing that the GT
    line its box overlaps most (e.g. a merged table row whose centre falls between two cells); else None."""
    out = []
    for pred in pred_lines:
        c = _centre(pred["box"])
        hit = next((i for i, g in enumerate(gt_lines) if point_in_convex(c, g["box"])), None)
        if hit is None:
            areas = [convex_intersection_area(pred["box"], g["box"]) for g in gt_lines]
            best = max(range(len(areas)), key=areas.__getitem__, default=None)
            hit = best if best is not None and areas[best] > 0 else None
        out.append(hit)
    return out


def score_page(pred_lines, gt) -> dict:
    """Score OCR lines ({"text", "box"}) against a loaded tests/testset gt.json.

    Each prediction goes to a GT line (`assign_lines`). GT lines that share a "row" (cells of one table row or
    menu bar, drawn apart) form one unit; a unit's predictions are joined left to right with single spaces and
    compared with its cells joined by single spaces, so splitting or merging boxes within a row costs nothing.
    Edits are summed over all units and divided by the summed reference lengths; unassigned predictions count as
    insertions, units with no prediction as deletions. So cer/wer do not depend on the order of the result lines;
    order_cer does: the whole page in the result's own line order against the GT reading order.

    When the GT lines carry words (make_testset's word boxes), it also reports word-box accuracy: gt_words,
    words_right (`match_words` over every result line's "words") and word_acc = words_right / gt_words.

    CER is over code points after whitespace normalisation (runs of whitespace -> one space, ends stripped).
    Spaces between words are kept and count as characters, so run-together words cost in CER too
    ("thatIthought" for "that I thought": 2 edits); line breaks are not characters.
    """
    lines = gt["lines"]
    unit = [g["row"] if "row" in g else ("line", i) for i, g in enumerate(lines)]
    refs: dict = {u: [] for u in unit}
    hyps: dict = {u: [] for u in unit}
    for u, g in zip(unit, lines):
        refs[u].append(g["text"])
    inserted = []
    for pred, hit in zip(pred_lines, assign_lines(pred_lines, lines)):
        if hit is None:
            inserted.append(pred["text"])
        else:
            hyps[unit[hit]].append(pred)

    char_edits = word_edits = chars = words = 0
    for u in refs:
        ref = normalise_ws(" ".join(refs[u]))
        hyp = normalise_ws(" ".join(p["text"] for p in sorted(hyps[u], key=lambda p: _centre(p["box"])[0])))
        char_edits += levenshtein(hyp, ref)
        word_edits += levenshtein(hyp.split(), ref.split())
        chars += len(ref)
        words += len(ref.split())
    for text in inserted:
        char_edits += len(normalise_ws(text))
        word_edits += len(text.split())

    page_ref = normalise_ws(" ".join(g["text"] for g in lines))
    page_hyp = normalise_ws(" ".join(p["text"] for p in pred_lines))
    out = {"cer": char_edits / max(1, chars), "wer": word_edits / max(1, words), "chars": chars, "words": words,
           "order_cer": cer(page_hyp, page_ref)}
    gt_words = [w for g in lines for w in g.get("words", [])]
    if gt_words:
        right = match_words([w for p in pred_lines for w in p.get("words", [])], gt_words)
        out.update(gt_words=len(gt_words), words_right=right, word_acc=right / len(gt_words))
    return out


WORD_IOU = 0.5


def same_place(pred_box, gt_box) -> bool:
    """A predicted word box is at a GT word's place when their polygon IoU is at least WORD_IOU (0.5), or when
    each box's centre lies inside the other. The second test is for short words: a detector's box keeps a margin
    of roughly half the text height around the ink on every side (DB unclip), so a lone number like "400" or a
    word like "of" gets an IoU of 0.3-0.45 with its exact box although it is read in the right place."""
    return (polygon_iou(pred_box, gt_box) >= WORD_IOU or
            (point_in_convex(_centre(pred_box), gt_box) and point_in_convex(_centre(gt_box), pred_box)))


def match_words(pred_words, gt_words) -> int:
    """How many ground-truth words ({"text", "box"}) are read right: a GT word counts when a predicted word has
    exactly its text (code points, case and punctuation included) and lies at its place (`same_place`: IoU >= 0.5
    or mutual centre containment). Matching is one-to-one: GT words are taken in order, each claiming the unused
    predicted word of equal text at its place with the highest IoU. So a run-together "THENORTHERN" scores
    neither "THE" nor "NORTHERN", and a right word at the wrong place (another line, another cell) does not
    count."""
    used = [False] * len(pred_words)
    right = 0
    for g in gt_words:
        best, best_iou = None, -1.0
        for j, p in enumerate(pred_words):
            if used[j] or p["text"] != g["text"] or not same_place(p["box"], g["box"]):
                continue
            iou = polygon_iou(p["box"], g["box"])
            if iou > best_iou:
                best, best_iou = j, iou
        if best is not None:
            used[best] = True
            right += 1
    return right
