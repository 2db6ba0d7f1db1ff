// JS half of the `pyclipper` shim for Pyodide (the Python half is pyclipper_shim.py).
// npm clipper-lib 6.4.2 is the JS port of the Clipper 6.4.2 that native pyclipper 1.3 wraps, so offsets
// computed here match native ones exactly (tests/e2e/runtime/pyclipper.spec.js proves it).
import ClipperLib from 'clipper-lib';

// pyclipper numbers EndType ET_CLOSEDPOLYGON=0 … ET_OPENROUND=4; clipper-lib numbers it the other way round
// (etOpenSquare=0 … etClosedPolygon=4). Index = pyclipper value.
const END_TYPE_FROM_PYCLIPPER = [
  ClipperLib.EndType.etClosedPolygon, // ET_CLOSEDPOLYGON = 0
  ClipperLib.EndType.etClosedLine, //    ET_CLOSEDLINE = 1
  ClipperLib.EndType.etOpenButt, //      ET_OPENBUTT = 2
  ClipperLib.EndType.etOpenSquare, //    ET_OPENSQUARE = 3
  ClipperLib.EndType.etOpenRound, //     ET_OPENROUND = 4
];
// JoinType numbering is the same in both (SQUARE=0, ROUND=1, MITER=2).
const JOIN_TYPES = [ClipperLib.JoinType.jtSquare, ClipperLib.JoinType.jtRound, ClipperLib.JoinType.jtMiter];

// clipper-lib's ClipperOffset.DoOffset predates one line of C++ Clipper 6.4.2 (which pyclipper wraps): the arc
// step count is capped at |delta|·π, and π / 2π are full-precision there (clipper-lib uses 3.14159265358979).
// Without the cap, round joins with |delta| < ~2 px place arc points differently. This replacement handles
// closed polygons only (all py/retto needs); normals, joins (OffsetPoint/DoRound/DoSquare/DoMiter) and the
// final union stay clipper-lib's own.
function doOffsetClosedPolygons(delta) {
  this.m_destPolys = [];
  this.m_delta = delta;
  const nodes = this.m_polyNodes.Childs();
  if (ClipperLib.ClipperBase.near_zero(delta)) { // zero offset: closed polygons are copied unchanged
    for (const node of nodes) this.m_destPolys.push(node.m_polygon);
    return;
  }
  this.m_miterLim = this.MiterLimit > 2 ? 2 / (this.MiterLimit * this.MiterLimit) : 0.5;
  const absDelta = Math.abs(delta);
  const DEF_ARC_TOLERANCE = 0.25;
  let y;
  if (this.ArcTolerance <= 0) y = DEF_ARC_TOLERANCE;
  else if (this.ArcTolerance > absDelta * DEF_ARC_TOLERANCE) y = absDelta * DEF_ARC_TOLERANCE;
  else y = this.ArcTolerance;
  let steps = Math.PI / Math.acos(1 - y / absDelta);
  if (steps > absDelta * Math.PI) steps = absDelta * Math.PI; // the 6.4.2 cap
  const twoPi = 2 * Math.PI;
  this.m_sin = Math.sin(twoPi / steps);
  this.m_cos = Math.cos(twoPi / steps);
  this.m_StepsPerRad = steps / twoPi;
  if (delta < 0) this.m_sin = -this.m_sin;
  for (const node of nodes) {
    const src = node.m_polygon;
    const len = src.length;
    if (len < 3) continue; // AddPath already dropped closed polygons with fewer than 3 distinct points
    this.m_srcPoly = src;
    this.m_destPoly = [];
    this.m_normals.length = 0;
    for (let j = 0; j < len; j++) {
      this.m_normals.push(ClipperLib.ClipperOffset.GetUnitNormal(src[j], src[(j + 1) % len]));
    }
    let k = len - 1;
    for (let j = 0; j < len; j++) k = this.OffsetPoint(j, k, node.m_jointype);
    this.m_destPolys.push(this.m_destPoly);
  }
}

function typed(x, kind) {
  // Arguments arrive from Python as PyProxies of array.array (buffer protocol): read them without
  // per-element FFI calls. Plain typed arrays (tests, JS callers) pass through.
  if (ArrayBuffer.isView(x)) return { data: x, release() {} };
  const view = x.getBuffer(kind);
  return { data: view.data, release: () => view.release() };
}

function enumValue(table, value, what) {
  const v = table[value];
  if (v === undefined) throw new RangeError(`unknown ${what} ${value}`);
  return v;
}

/**
 * Offset groups of paths; one group = one PyclipperOffset (AddPath… then Execute(delta)).
 * xy: float64 [x0,y0,x1,y1,…] of all paths; pathLengths: int32 points per path; groupSizes: int32 paths per
 * group; joinTypes/endTypes: int32 per path (pyclipper numbering); deltas: float64 per group.
 * Coordinates are truncated toward zero, as pyclipper does when it converts floats to Clipper's integers.
 * Returns {solutionCounts: Int32Array per group, pointCounts: Int32Array per solution, xy: Float64Array}.
 */
export function offsetGroups(xy, pathLengths, groupSizes, joinTypes, endTypes, deltas, miterLimit = 2.0,
  arcTolerance = 0.25) {
  const bufs = [typed(xy, 'f64'), typed(pathLengths, 'i32'), typed(groupSizes, 'i32'), typed(joinTypes, 'i32'),
    typed(endTypes, 'i32'), typed(deltas, 'f64')];
  try {
    const [XY, PL, GS, JT, ET, D] = bufs.map((b) => b.data);
    const solutionCounts = new Int32Array(GS.length);
    const pointCounts = [];
    const out = [];
    const co = new ClipperLib.ClipperOffset(miterLimit, arcTolerance);
    co.DoOffset = doOffsetClosedPolygons;
    let path = 0;
    let k = 0;
    for (let g = 0; g < GS.length; g++) {
      co.Clear();
      for (let i = 0; i < GS[g]; i++, path++) {
        const pts = new Array(PL[path]);
        for (let j = 0; j < PL[path]; j++, k += 2) {
          pts[j] = new ClipperLib.IntPoint(Math.trunc(XY[k]), Math.trunc(XY[k + 1]));
        }
        const endType = enumValue(END_TYPE_FROM_PYCLIPPER, ET[path], 'end type');
        if (endType !== ClipperLib.EndType.etClosedPolygon) {
          throw new RangeError('the pyclipper shim offsets closed polygons only (ET_CLOSEDPOLYGON)');
        }
        co.AddPath(pts, enumValue(JOIN_TYPES, JT[path], 'join type'), endType);
      }
      const solution = new ClipperLib.Paths();
      co.Execute(solution, D[g]);
      solutionCounts[g] = solution.length;
      for (const poly of solution) {
        pointCounts.push(poly.length);
        for (const p of poly) out.push(p.X, p.Y);
      }
    }
    return { solutionCounts, pointCounts: Int32Array.from(pointCounts), xy: Float64Array.from(out) };
  } finally {
    for (const b of bufs) b.release();
  }
}
