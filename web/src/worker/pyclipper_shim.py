"""`pyclipper` for Pyodide: only what py/retto uses, over npm clipper-lib 6.4.2 (the same Clipper 6.4.2 that
native pyclipper 1.3 wraps). Installed into site-packages as pyclipper.py by the web worker.

Inputs cross to JS once per call as array.array buffers (no per-element FFI); `offset_batch` offsets every
path of an image in that one crossing. Float coordinates are truncated to ints, as pyclipper does.
Only closed polygons (ET_CLOSEDPOLYGON) are offset: that is py/retto's unclip; open paths raise."""
from array import array

from _retto_clipper import offsetGroups as _offset_groups  # registered by the worker (clipper_offset.js)

# pyclipper's numbering (the JS side maps EndType, which clipper-lib numbers differently).
JT_SQUARE, JT_ROUND, JT_MITER = 0, 1, 2
ET_CLOSEDPOLYGON, ET_CLOSEDLINE, ET_OPENBUTT, ET_OPENSQUARE, ET_OPENROUND = 0, 1, 2, 3, 4


class ClipperException(Exception):
    pass


def _read(js_typed_array, typecode):
    """One bulk copy of a JS typed array into a Python list."""
    a = array(typecode)
    a.frombytes(js_typed_array.to_bytes())
    return a.tolist()


def _run(groups, deltas, miter_limit, arc_tolerance):
    """groups: list of [(path, join_type, end_type), ...]; returns per group a list of solution polygons."""
    xy, lengths, sizes, jts, ets = array("d"), array("i"), array("i"), array("i"), array("i")
    for group in groups:
        sizes.append(len(group))
        for path, jt, et in group:
            if et != ET_CLOSEDPOLYGON:
                raise ClipperException("this pyclipper (Pyodide shim) offsets closed polygons only: ET_CLOSEDPOLYGON")
            lengths.append(len(path))
            jts.append(int(jt))
            ets.append(int(et))
            for pt in path:
                xy.append(float(pt[0]))
                xy.append(float(pt[1]))
    res = _offset_groups(xy, lengths, sizes, jts, ets, array("d", [float(d) for d in deltas]),
                         float(miter_limit), float(arc_tolerance))
    sol_counts = _read(res.solutionCounts, "i")
    pt_counts = _read(res.pointCounts, "i")
    flat = _read(res.xy, "d")
    out, s, k = [], 0, 0
    for n_sol in sol_counts:
        sols = []
        for n_pts in pt_counts[s:s + n_sol]:
            sols.append([[int(flat[k + 2 * j]), int(flat[k + 2 * j + 1])] for j in range(n_pts)])
            k += 2 * n_pts
        s += n_sol
        out.append(sols)
    return out


def offset_batch(paths, deltas, join_type=JT_ROUND, end_type=ET_CLOSEDPOLYGON, miter_limit=2.0,
                 arc_tolerance=0.25):
    """Offset each path by its own delta (as a fresh PyclipperOffset each); one JS call for all of them."""
    if len(paths) != len(deltas):
        raise ValueError("offset_batch: one delta per path")
    return _run([[(p, join_type, end_type)] for p in paths], deltas, miter_limit, arc_tolerance)


class PyclipperOffset:
    """Minimal pyclipper.PyclipperOffset: AddPath/AddPaths, Execute(delta), Clear."""

    def __init__(self, miter_limit=2.0, arc_tolerance=0.25):
        self.MiterLimit = miter_limit
        self.ArcTolerance = arc_tolerance
        self._paths = []

    def AddPath(self, path, join_type, end_type):
        self._paths.append((path, join_type, end_type))

    def AddPaths(self, paths, join_type, end_type):
        for p in paths:
            self.AddPath(p, join_type, end_type)

    def Clear(self):
        self._paths = []

    def Execute(self, delta):
        return _run([self._paths], [delta], self.MiterLimit, self.ArcTolerance)[0]
