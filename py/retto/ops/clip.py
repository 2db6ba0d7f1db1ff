"""Polygon offsetting through pyclipper: natively the real package, in Pyodide a shim over clipper-lib.

The shim adds `offset_batch` so that all boxes of an image cross the JS boundary once."""
from __future__ import annotations

import pyclipper


def offset_polygons(polys, deltas) -> list:
    """Offset each closed polygon by its own delta with round joins.

    Returns, per polygon, the list of solution polygons (each a list of [x, y] ints)."""
    paths = [[[float(x), float(y)] for x, y in poly] for poly in polys]
    deltas = [float(d) for d in deltas]
    if not paths:
        return []
    batch = getattr(pyclipper, "offset_batch", None)
    if batch is not None:
        return [[list(map(list, p)) for p in sol]
                for sol in batch(paths, deltas, pyclipper.JT_ROUND, pyclipper.ET_CLOSEDPOLYGON)]
    out = []
    for path, delta in zip(paths, deltas):
        pco = pyclipper.PyclipperOffset()
        pco.AddPath(path, pyclipper.JT_ROUND, pyclipper.ET_CLOSEDPOLYGON)
        out.append([list(map(list, p)) for p in pco.Execute(delta)])
    return out
