// tesseract.js's reading of one page, as the browser benchmarks compare it: run inside the page with
// page.evaluate(readWithTesseract, { url, worker }) (self-contained: Playwright sends the function's source), where
// window[worker] is a started tesseract.js worker. Returns {ms, lines: [{text, box}]}, box a 4-point quad.
export async function readWithTesseract({ url, worker }) {
  const blob = await (await fetch(url)).blob();
  const t0 = performance.now();
  const { data } = await window[worker].recognize(blob, {}, { blocks: true });
  const ms = performance.now() - t0;
  const lines = data.blocks.flatMap((b) => b.paragraphs.flatMap((p) => p.lines)).map((l) => ({
    text: l.text.trim(),
    box: [[l.bbox.x0, l.bbox.y0], [l.bbox.x1, l.bbox.y0], [l.bbox.x1, l.bbox.y1], [l.bbox.x0, l.bbox.y1]],
  })).filter((l) => l.text);
  return { ms, lines };
}
