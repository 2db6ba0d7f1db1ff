// Line-by-line comparison of two OCR results (browser vs native). Returns human-readable differences.
// Texts must be identical. Boxes may differ by 1 px: wasm and native onnxruntime differ in the last bits of the det
// map, which can move a contour pixel across the DB threshold. Such a 1 px change alters that line's crop, and a
// line's confidence depends on its whole rec batch (the padding width; the PP-OCRv6 recogniser mixes the whole
// input), so confidences may differ by a few hundredths (seen: 0.041 on one line of a rendered page) while every
// text stays the same.
export const BOX_TOLERANCE_PX = 1;
export const SCORE_TOLERANCE = 0.05;

export function diffResults(image, browser, native, { boxTolerancePx = BOX_TOLERANCE_PX } = {}) {
  const diffs = [];
  const b = browser.lines;
  const n = native.lines;
  if (browser.image.width !== native.image.width || browser.image.height !== native.image.height) {
    diffs.push(`${image}: image size ${JSON.stringify(browser.image)} vs native ${JSON.stringify(native.image)}`);
  }
  if (b.length !== n.length) diffs.push(`${image}: ${b.length} lines in the browser vs ${n.length} natively`);
  for (let i = 0; i < Math.max(b.length, n.length); i++) {
    const x = b[i];
    const y = n[i];
    if (!x || !y) {
      diffs.push(`${image} line ${i}: only ${x ? 'browser' : 'native'} has ${JSON.stringify((x || y).text)}`);
      continue;
    }
    if (x.text !== y.text) diffs.push(`${image} line ${i}: text ${JSON.stringify(x.text)} vs native ${JSON.stringify(y.text)}`);
    const worst = Math.max(...x.box.flatMap((p, k) => [Math.abs(p[0] - y.box[k][0]), Math.abs(p[1] - y.box[k][1])]));
    if (!(worst <= boxTolerancePx)) {
      diffs.push(`${image} line ${i} (${JSON.stringify(y.text)}): box ${JSON.stringify(x.box)} vs native ${JSON.stringify(y.box)} (off by ${worst} px)`);
    }
    const ds = Math.abs(x.score - y.score);
    if (!(ds <= SCORE_TOLERANCE)) {
      diffs.push(`${image} line ${i} (${JSON.stringify(y.text)}): score ${x.score} vs native ${y.score} (Δ ${ds.toExponential(2)})`);
    }
    if (x.angle !== y.angle) diffs.push(`${image} line ${i}: angle ${x.angle} vs native ${y.angle}`);
  }
  return diffs;
}
