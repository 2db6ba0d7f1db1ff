// The Pyodide `pyclipper` shim (clipper-lib 6.4.2) against the real pyclipper 1.3 on the same random cases of
// what py/retto does with it (grow closed polygons, any join type): identical output required. Also: retto.ops.clip
// crosses into JS once per call whatever the number of boxes, and open paths are refused, not approximated.
import { expect, runNative, test } from '../fixtures.js';

const SEED = 20261123;
const N = 300;

test('pyclipper shim == native pyclipper on random offset cases', async ({ engine }) => {
  const nativeOut = runNative(['tests/e2e/native_ref.py', 'clip-cases', String(SEED), String(N)]);
  const native = JSON.parse(await nativeOut);
  expect(native.cases.length).toBe(N);
  expect(native.offset.filter((sol) => sol.length > 0).length).toBeGreaterThan(N * 0.9); // real polygons out

  const got = JSON.parse(await engine.page.evaluate((code) => window.ocr.evalPython(code), `
import json, pyclipper
from retto.ops import clip

cases = json.loads(${JSON.stringify(JSON.stringify(native.cases))})
offset = []
for c in cases:
    pco = pyclipper.PyclipperOffset()
    pco.AddPath(c["path"], c["join"], c["end"])
    offset.append(pco.Execute(c["delta"]))
multi = pyclipper.PyclipperOffset()
for c in cases[:12]:
    multi.AddPath(c["path"], pyclipper.JT_ROUND, pyclipper.ET_CLOSEDPOLYGON)
multi_out = multi.Execute(7.5)

calls = []
real = pyclipper._offset_groups
def counting(*args):
    calls.append(1)
    return real(*args)
pyclipper._offset_groups = counting
try:
    retto_clip = clip.offset_polygons([c["path"] for c in cases], [c["delta"] for c in cases])
finally:
    pyclipper._offset_groups = real

try:
    open_path = pyclipper.PyclipperOffset()
    open_path.AddPath([[0, 0], [10, 0]], pyclipper.JT_ROUND, pyclipper.ET_OPENROUND)
    open_path.Execute(2.0)
    refused = None
except pyclipper.ClipperException as e:
    refused = str(e)
json.dumps({"module": pyclipper.__file__, "offset": offset, "multi": multi_out, "retto_clip": retto_clip,
            "retto_clip_js_calls": len(calls), "open_refused": refused})
`));
  expect(got.module).toMatch(/site-packages\/pyclipper\.py$/); // the shim, not a native build
  const mismatches = [];
  native.offset.forEach((want, i) => {
    if (JSON.stringify(got.offset[i]) !== JSON.stringify(want)) {
      mismatches.push(`case ${i} ${JSON.stringify(native.cases[i])}:\n  shim     ${JSON.stringify(got.offset[i])}\n  pyclipper ${JSON.stringify(want)}`);
    }
  });
  expect(mismatches, mismatches.join('\n')).toEqual([]);
  expect(got.multi).toEqual(native.multi);
  expect(got.retto_clip).toEqual(native.retto_clip);
  expect(got.retto_clip_js_calls).toBe(1); // one FFI crossing for all N boxes
  expect(got.open_refused).toMatch(/closed polygons only/);
});
