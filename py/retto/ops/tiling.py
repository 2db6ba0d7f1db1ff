"""Strips: images far longer than wide (a text column, a receipt) or far wider than tall (one long line).

The reference pipeline shrinks every image so its long side fits `max_side_len` (2000). For a strip that also
shrinks the short side: a 100 x 4500 column becomes 32 px wide and a 30000 x 64 line 4 px tall, so its text can
no longer be read, and without the shrink the detector's input would be tens of gigapixel-bytes (a 1 x 30000
PNG once made a 45632 x 736 det input and 8 GB of memory). So a strip is cut along its long axis into tiles of
`max_side_len` that overlap; each tile is detected on its own, at full resolution, and the boxes are mapped back
and joined where a line crosses a cut (or deduplicated where both tiles saw it whole). Lines are then cropped
from the full-resolution image, so nothing is read at a reduced size.
"""
from __future__ import annotations

import numpy as np


def is_strip(h: int, w: int, max_side: int, ratio: float) -> bool:
    """Would the global shrink squash this image? (long side over the cap and an extreme aspect ratio)"""
    long, short = max(h, w), max(min(h, w), 1)
    return long > max_side and long / short > ratio


def tile_spans(length: int, short: int, tile: int) -> list[tuple[int, int]]:
    """[start, end) spans of `tile` along an axis of `length`, overlapping by enough for a line to appear whole
    in one of them (twice the short side: a line across a tall column, or a glyph of a long line)."""
    overlap = min(max(2 * short, 64), tile // 2)
    step = tile - overlap
    starts = list(range(0, max(length - tile, 0) + 1, step))
    if starts[-1] + tile < length:
        starts.append(length - tile)
    return [(s, min(s + tile, length)) for s in starts]


def _bounds(quad: np.ndarray) -> tuple:
    return quad[:, 0].min(), quad[:, 1].min(), quad[:, 0].max(), quad[:, 1].max()


def _same_line(a: tuple, b: tuple, along_x: bool) -> bool:
    """Two boxes from neighbouring tiles are one line when they touch along the strip and overlap across it by
    more than half the smaller box (pieces of one line, or the same line seen twice)."""
    ax0, ay0, ax1, ay1 = a
    bx0, by0, bx1, by1 = b
    if along_x:
        touch = min(ax1, bx1) - max(ax0, bx0) >= -2
        across = (min(ay1, by1) - max(ay0, by0)) / max(min(ay1 - ay0, by1 - by0), 1e-6)
    else:
        touch = min(ay1, by1) - max(ay0, by0) >= -2
        across = (min(ax1, bx1) - max(ax0, bx0)) / max(min(ax1 - ax0, bx1 - bx0), 1e-6)
    return touch and across > 0.5


def merge_tiles(boxes: list[tuple[int, np.ndarray]], along_x: bool) -> list[np.ndarray]:
    """(tile index, quad in image pixels) pairs -> quads, with the pieces of a line found in neighbouring tiles
    joined into their bounding rectangle. Boxes of one tile are never joined with each other."""
    parent = list(range(len(boxes)))

    def root(i):
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    bounds = [_bounds(q) for _, q in boxes]
    for i, (ti, _) in enumerate(boxes):
        for j in range(i + 1, len(boxes)):
            if abs(boxes[j][0] - ti) == 1 and _same_line(bounds[i], bounds[j], along_x):
                parent[root(j)] = root(i)
    groups: dict = {}
    for i in range(len(boxes)):
        groups.setdefault(root(i), []).append(i)
    out = []
    for members in groups.values():
        if len(members) == 1:
            out.append(boxes[members[0]][1])
            continue
        x0 = min(bounds[i][0] for i in members)
        y0 = min(bounds[i][1] for i in members)
        x1 = max(bounds[i][2] for i in members)
        y1 = max(bounds[i][3] for i in members)
        out.append(np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], dtype=np.float64))
    return out
