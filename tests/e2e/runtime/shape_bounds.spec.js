// Strips in the browser: a blank 1x30000 PNG (which once made a 45632x736 det input and failed with
// std::bad_alloc at 5 GB) and a 100x2400 column of words are detected tile by tile, exactly as natively.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, runNative, test } from '../fixtures.js';
import { diffResults } from '../compare.js';

// The images of tests/py/ops/test_shape_bounds.py, written as PNG files; of its column, the top 2400 px (60 words):
// two 2000 px tiles (the default set's global.max_side_len) that overlap, as joining a line needs. The whole 4500 px
// column (three tiles, 110 words) is read natively there; here it cost the browser twice the reading, no new path.
const MAKE = `
import io, sys
sys.path[:0] = ["tests/py", "tests/py/ops"]
from pathlib import Path
from PIL import Image
from test_shape_bounds import column, png
out = Path(sys.argv[1])
(out / "thin.png").write_bytes(png(Image.new("L", (1, 30000), 255)))
(out / "column.png").write_bytes(png(Image.open(io.BytesIO(column()[0])).crop((0, 0, 100, 2400))))
`;

test('strips: the browser gives the native result, tile by tile (no giant det input)', async ({ engine }) => {
  const dir = mkdtempSync(join(tmpdir(), 'retto-strips-'));
  const names = ['thin.png', 'column.png'];
  // Written, then read natively, while the browser reads them.
  const made = runNative(['-c', MAKE, dir]);
  const nativeOut = made.then(() => runNative(['-m', 'retto', '--images', ...names.map((n) => join(dir, n)),
    '--format', 'json', '--no-progress'])).then(JSON.parse);
  await made;
  const diffs = [];
  const detCalls = {};
  for (const [i, name] of names.entries()) {
    const { result, error, stats } = await engine.recognize(readFileSync(join(dir, name)));
    detCalls[name] = stats?.models.det.calls;
    expect(error, `${name}: ${JSON.stringify(error)}`).toBeUndefined();
    // Texts identical; boxes within 2 px here, not 1: the column's words are small and its tiles are enlarged at
    // most 2x (det.max_upscale), so the det map's last-bit differences (see compare.js) can move a word box's
    // corner pixel, which tilts its minimum-area rectangle: measured on the whole 110-word column, 2 px on 4 words
    // with 1600 px tiles (an earlier default set's global.max_side_len), 0 with 2000.
    diffs.push(...diffResults(name, result, (await nativeOut)[i], { boxTolerancePx: 2 }));
  }
  const native = await nativeOut;
  expect(native[0].lines).toEqual([]);
  expect(native[1].lines.length).toBeGreaterThanOrEqual(58); // 60 words, one per line
  expect(detCalls['column.png'], 'the column is detected in two tiles').toBe(2);
  expect(diffs, diffs.join('\n')).toEqual([]);
});
