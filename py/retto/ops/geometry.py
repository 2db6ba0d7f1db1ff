"""Plane geometry for DB post-processing, in vectorised numpy (no OpenCV; Python loops only per component).

Pixel coordinates follow cv2: the centre of pixel (col, row) is the point (col, row).
"""
from __future__ import annotations

import numpy as np


def dilate_2x2(mask: np.ndarray) -> np.ndarray:
    """cv2.dilate with a 2x2 ones kernel and its default anchor (1, 1): out[y, x] = any(mask[y-1:y+1, x-1:x+1])."""
    out = mask.copy()
    out[1:, :] |= mask[:-1, :]
    grown = out.copy()
    grown[:, 1:] |= out[:, :-1]
    return grown


def label_runs(mask: np.ndarray):
    """8-connected components of a boolean mask, as horizontal runs.

    Returns (rows, starts, ends, labels): one entry per run (ends inclusive), labels 0..n-1 numbered in raster
    order of each component's first run.
    """
    h, w = mask.shape
    padded = np.zeros((h, w + 2), dtype=np.int8)
    padded[:, 1:-1] = mask
    step = np.diff(padded, axis=1)
    rows, starts = np.nonzero(step == 1)
    _, stops = np.nonzero(step == -1)
    ends = stops - 1
    n = rows.size
    if n == 0:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, empty, empty
    # Runs are in raster order, so a row-major key makes one global searchsorted find the touching runs of
    # the row above: a run [s, e] in row r touches runs of row r-1 whose start <= e+1 and end >= s-1.
    k = w + 2
    key_start = rows * k + starts
    key_end = rows * k + ends
    above = (rows - 1) * k
    lo = np.searchsorted(key_end, above + starts - 1, side="left")
    hi = np.searchsorted(key_start, above + ends + 1, side="right")
    counts = np.maximum(hi - lo, 0)
    counts[rows == 0] = 0
    child = np.repeat(np.arange(n), counts)
    offsets = np.arange(child.size) - np.repeat(np.cumsum(counts) - counts, counts)
    parent_run = np.repeat(lo, counts) + offsets
    labels = _union(n, child, parent_run)
    _, first, inverse = np.unique(labels, return_index=True, return_inverse=True)
    # Renumber by first appearance (raster order of the component's top-left run).
    order = np.argsort(first)
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    return rows, starts, ends, rank[inverse]


def _union(n: int, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Connected components of the graph with edges (a[i], b[i]): min-label propagation with pointer jumping."""
    parent = np.arange(n)
    while a.size:
        ra, rb = parent[a], parent[b]
        low = np.minimum(ra, rb)
        if np.array_equal(ra, rb):
            break
        np.minimum.at(parent, ra, low)
        np.minimum.at(parent, rb, low)
        while True:
            nxt = parent[parent]
            if np.array_equal(nxt, parent):
                break
            parent = nxt
    return parent


def convex_hull(points: np.ndarray) -> np.ndarray:
    """Andrew's monotone chain; returns hull vertices counter-clockwise in a y-up frame (no repeats)."""
    pts = np.unique(np.asarray(points, dtype=np.float64), axis=0)  # sorted by x, then y
    if len(pts) <= 2:
        return pts

    def half(seq):
        out = []
        for p in seq:
            while len(out) >= 2:
                (ox, oy), (ax, ay) = out[-2], out[-1]
                if (ax - ox) * (p[1] - oy) - (ay - oy) * (p[0] - ox) > 0:
                    break
                out.pop()
            out.append((p[0], p[1]))
        return out

    lower = half(pts)
    upper = half(pts[::-1])
    return np.array(lower[:-1] + upper[:-1], dtype=np.float64)


def min_area_rect(points: np.ndarray):
    """Smallest rotated rectangle around the points (rotating calipers over hull edges).

    Returns (corners[4, 2], short_side, long_side)."""
    hull = convex_hull(points)
    if len(hull) == 0:
        return np.zeros((4, 2)), 0.0, 0.0
    if len(hull) == 1:
        return np.repeat(hull, 4, axis=0), 0.0, 0.0
    edges = np.roll(hull, -1, axis=0) - hull
    lengths = np.hypot(edges[:, 0], edges[:, 1])
    keep = lengths > 0
    u = edges[keep] / lengths[keep, None]          # one candidate orientation per hull edge
    v = np.stack([-u[:, 1], u[:, 0]], axis=1)
    pu = hull @ u.T                                  # [points, candidates]
    pv = hull @ v.T
    umin, umax = pu.min(0), pu.max(0)
    vmin, vmax = pv.min(0), pv.max(0)
    area = (umax - umin) * (vmax - vmin)
    k = int(np.argmin(area))
    uk, vk = u[k], v[k]
    corners = np.array([
        umin[k] * uk + vmin[k] * vk,
        umax[k] * uk + vmin[k] * vk,
        umax[k] * uk + vmax[k] * vk,
        umin[k] * uk + vmax[k] * vk,
    ])
    sides = sorted((umax[k] - umin[k], vmax[k] - vmin[k]))
    return corners, float(sides[0]), float(sides[1])


def order_quad(quad: np.ndarray) -> np.ndarray:
    """Order four corners as tl, tr, br, bl (clockwise on screen).

    Sorting by angle around the centre and starting at the corner whose outgoing edge points most nearly
    rightwards is stable for any rotation, unlike choosing the two left-most points (which swaps corners of
    slanted vertical boxes)."""
    quad = np.asarray(quad, dtype=np.float64)
    centre = quad.mean(axis=0)
    ang = np.arctan2(quad[:, 1] - centre[1], quad[:, 0] - centre[0])   # y down: increasing = clockwise
    quad = quad[np.argsort(ang, kind="stable")]
    edges = np.roll(quad, -1, axis=0) - quad
    edge_angle = np.arctan2(edges[:, 1], edges[:, 0])
    start = int(np.argmin(np.abs(edge_angle)))
    return np.roll(quad, -start, axis=0)


def polygon_area_perimeter(poly: np.ndarray):
    x, y = poly[:, 0], poly[:, 1]
    area = 0.5 * abs(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1)))
    d = np.roll(poly, -1, axis=0) - poly
    return float(area), float(np.hypot(d[:, 0], d[:, 1]).sum())


def clip_convex(subject: np.ndarray, clip: np.ndarray) -> np.ndarray:
    """The part of convex polygon `subject` inside convex polygon `clip` (Sutherland-Hodgman; both given in either
    winding); an empty array when they do not overlap."""
    clip = np.asarray(clip, dtype=np.float64)
    x, y = clip[:, 0], clip[:, 1]
    sign = 1.0 if np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1)) >= 0 else -1.0
    out = [tuple(p) for p in np.asarray(subject, dtype=np.float64)]
    for a, b in zip(clip, np.roll(clip, -1, axis=0)):
        if not out:
            break
        side = lambda p: sign * ((b[0] - a[0]) * (p[1] - a[1]) - (b[1] - a[1]) * (p[0] - a[0]))
        points, out = out, []
        for p, q in zip(points, points[1:] + points[:1]):
            sp, sq = side(p), side(q)
            if sp >= 0:
                out.append(p)
            if (sp >= 0) != (sq >= 0):
                t = sp / (sp - sq)
                out.append((p[0] + t * (q[0] - p[0]), p[1] + t * (q[1] - p[1])))
    return np.array(out, dtype=np.float64).reshape(-1, 2)


def overlap_area(a: np.ndarray, b: np.ndarray) -> float:
    """Area shared by two convex polygons."""
    part = clip_convex(a, b)
    return polygon_area_perimeter(part)[0] if len(part) >= 3 else 0.0


def convex_polygon_mask(poly: np.ndarray, width: int, height: int) -> np.ndarray:
    """Pixels (centres at integer coordinates) inside or on a convex polygon, as a height x width bool mask."""
    ys, xs = np.mgrid[0:height, 0:width]
    inside_pos = np.ones((height, width), dtype=bool)
    inside_neg = np.ones((height, width), dtype=bool)
    n = len(poly)
    for i in range(n):
        (x0, y0), (x1, y1) = poly[i], poly[(i + 1) % n]
        cross = (x1 - x0) * (ys - y0) - (y1 - y0) * (xs - x0)
        inside_pos &= cross >= -1e-9
        inside_neg &= cross <= 1e-9
    return inside_pos | inside_neg


def reading_order(quads) -> list:
    """Indices of `quads` in reading order: top-to-bottom, then left-to-right by each box's first corner, with
    the reference's pass of neighbour swaps for boxes on about the same line (|dy| < 10 px). NaN coordinates
    sort last instead of breaking the comparison."""
    y_tol = 10.0

    def key(i):
        x, y = float(quads[i][0][0]), float(quads[i][0][1])
        return (np.isnan(y), 0.0 if np.isnan(y) else y, np.isnan(x), 0.0 if np.isnan(x) else x)

    order = sorted(range(len(quads)), key=key)
    for i in range(len(order) - 1):
        for j in range(i, -1, -1):
            a, b = quads[order[j]][0], quads[order[j + 1]][0]
            if abs(b[1] - a[1]) < y_tol and b[0] < a[0]:
                order[j], order[j + 1] = order[j + 1], order[j]
            else:
                break
    return order
