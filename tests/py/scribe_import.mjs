// Scribe.js's own hOCR importer (scribe.js-ocr, pinned in package.json) run on an hOCR file under Node:
// prints, per ocr_page, the lines and words it imported with their boxes, as JSON on stdout.
// Usage: node tests/py/scribe_import.mjs FILE.hocr
import { readFileSync } from 'node:fs';
import { convertPageHocr } from 'scribe.js-ocr/js/import/convertPageHocr.js';

const text = readFileSync(process.argv[2], 'utf8');
// convertPageHocr reads one page: hand it each ocr_page with the document's head, as Scribe's importer does.
const [head, ...pages] = text.split(/(?=<div class="ocr_page")/);
const out = [];
for (const [n, page] of pages.entries()) {
  const { pageObj } = await convertPageHocr({ ocrStr: head + page, n });
  const box = (b) => [b.left, b.top, b.right, b.bottom];
  out.push({
    dims: pageObj.dims,
    lines: pageObj.lines.map((line) => ({
      bbox: box(line.bbox), baseline: line.baseline,
      words: line.words.map((w) => ({ text: w.text, bbox: box(w.bbox), conf: w.conf, lang: w.lang })),
    })),
  });
}
process.stdout.write(JSON.stringify(out));
