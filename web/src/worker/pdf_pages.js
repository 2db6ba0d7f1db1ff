// PDF pages to pixels with pdf.js, inside the OCR worker. pdf.js is imported from the app's own assets/pdfjs/
// the first time a PDF arrives (never at boot). Its parsing half runs in this same thread: pdf.js takes a
// WorkerMessageHandler it finds on globalThis.pdfjsWorker instead of starting a worker of its own, whose
// start-up code reads window.location (absent in a worker). The OCR worker is already off the main thread.
// No DOM here: canvases are OffscreenCanvas, glyphs are drawn as paths (disableFontFace), SVG filters are off,
// and nothing is compiled from strings (isEvalSupported: false: the app's CSP allows wasm, never eval).
import { RettoWorkerError } from './errors.js';

let pdfjs = null;

async function loadPdfjs(assetBase, manifest) {
  if (!pdfjs) {
    const entry = manifest.pdfjs;
    if (!entry) throw new RettoWorkerError('internal_error', 'this build has no pdf.js (assets/manifest.json)');
    pdfjs = (async () => {
      const lib = await import(/* @vite-ignore */ new URL(entry.module, assetBase).href);
      globalThis.pdfjsWorker = await import(/* @vite-ignore */ new URL(entry.worker, assetBase).href);
      return { lib, base: new URL(entry.base, assetBase).href };
    })();
    pdfjs.catch(() => { pdfjs = null; }); // a failed download may be retried by the next PDF
  }
  return pdfjs;
}

class OffscreenCanvasFactory {
  create(width, height) {
    if (width <= 0 || height <= 0) throw new Error('Invalid canvas size');
    const canvas = new OffscreenCanvas(width, height);
    return { canvas, context: canvas.getContext('2d', { willReadFrequently: true }) };
  }

  reset(cc, width, height) {
    cc.canvas.width = width;
    cc.canvas.height = height;
  }

  destroy(cc) {
    cc.canvas.width = cc.canvas.height = 0;
    cc.canvas = null;
    cc.context = null;
  }
}

/** pdf.js's hooks for SVG filters (transfer functions, high-contrast mode): none in a worker, as in Node. */
class NoFilterFactory {
  addFilter() { return 'none'; }
  addHCMFilter() { return 'none'; }
  addAlphaFilter() { return 'none'; }
  addLuminosityFilter() { return 'none'; }
  addHighlightHCMFilter() { return 'none'; }
  destroy() {}
}

/** pdf.js's exception for a PDF -> our error codes (retto/errors.py: pdf_encrypted, pdf_invalid). */
function openError(e) {
  const name = e?.name ?? '';
  if (name === 'PasswordException') {
    return new RettoWorkerError('pdf_encrypted', 'the PDF is protected by a password; open it, save an unprotected copy and try again');
  }
  const why = e?.message || String(e);
  return new RettoWorkerError('pdf_invalid', `the PDF could not be read (${name ? `${name}: ` : ''}${why})`);
}

/** Open a PDF from its bytes (the buffer is handed to pdf.js). Returns {pdf, pageCount}. `limits`
 *  (retto.browser.bridge.pdf_limits): pdf.js skips images over maxImageSize pixels and makes no canvas over
 *  canvasMaxAreaInBytes (RGBA), a backstop behind the page budgets retto.io.pdf_guard checks before each page. */
export async function openPdf({ assetBase, manifest, bytes, limits = {} }) {
  const { lib, base } = await loadPdfjs(assetBase, manifest);
  const task = lib.getDocument({
    data: bytes,
    isEvalSupported: false,
    disableFontFace: true,
    useSystemFonts: false,
    useWorkerFetch: true, // the in-thread parser fetches CMaps, fonts and decoders itself, from our origin
    cMapUrl: `${base}cmaps/`,
    cMapPacked: true,
    standardFontDataUrl: `${base}standard_fonts/`,
    wasmUrl: `${base}wasm/`,
    iccUrl: `${base}iccs/`,
    CanvasFactory: OffscreenCanvasFactory,
    FilterFactory: NoFilterFactory,
    ownerDocument: { fonts: self.fonts },
    isOffscreenCanvasSupported: true,
    isImageDecoderSupported: false,
    enableXfa: false,
    verbosity: 0,
    ...limits,
  });
  let pdf;
  try {
    pdf = await task.promise;
  } catch (e) {
    task.destroy();
    throw openError(e);
  }
  return { pdf, pageCount: pdf.numPages };
}

/** Page n (1-based): {page, widthPt, heightPt}, the size as displayed (the page's /Rotate applied). */
export async function pdfPage(pdf, n) {
  const page = await pdf.getPage(n);
  const vp = viewport(page);
  return { page, widthPt: vp.width, heightPt: vp.height };
}

/** Draw the page on white at exactly width x height pixels (the size retto.io.document.render_scale decided);
 *  returns {canvas, rgba: ArrayBuffer of width*height*4}. Annotations are drawn from their appearance streams. */
export async function renderPage(page, width, height) {
  const vp = viewport(page);
  // One scale per axis, so the page fills the rounded pixel size exactly, as pdfium's renderer does natively.
  const sx = width / vp.width;
  const sy = height / vp.height;
  const canvas = new OffscreenCanvas(width, height);
  const ctx = canvas.getContext('2d', { willReadFrequently: true });
  await page.render({
    canvas,
    canvasContext: ctx,
    viewport: vp,
    transform: [sx, 0, 0, sy, 0, 0],
    background: 'rgb(255,255,255)',
  }).promise;
  const rgba = ctx.getImageData(0, 0, width, height).data.buffer;
  return { canvas, rgba };
}

/** The page in points, /Rotate applied and /UserUnit not: pdf.js scales by the user unit, PDFium does not, and
 *  retto.io.document sizes pages in plain points in both runtimes (docs/guides/cli.md, PDF input: /UserUnit is ignored). */
function viewport(page) {
  return page.getViewport({ scale: 1 / (page.userUnit || 1) });
}

/** The page's text layer for retto.io.text_layer (which decides whether to use it): pdf.js getTextContent items as
 *  {text, x, y (baseline), w (advance width), size} in points, top-left origin, as displayed; horizontal items
 *  only. And the rectangles [x0, y0, x1, y1] its images are painted in (the operator list, with the graphics
 *  state's transforms followed). Nothing is decided here. */
export async function pageText(page) {
  const { lib } = await pdfjs;
  const { OPS, Util } = lib;
  const vp = viewport(page);
  const ops = await page.getOperatorList();
  // Each font's glyph advances by character, from the glyphs the page shows: an item holding several words is
  // split where its characters' advances put the spaces (getTextContent gives one box per item only).
  const advances = new Map();
  let font = null;
  for (let i = 0; i < ops.fnArray.length; i++) {
    if (ops.fnArray[i] === OPS.setFont) font = ops.argsArray[i][0];
    else if (ops.fnArray[i] === OPS.showText && font) {
      if (!advances.has(font)) advances.set(font, new Map());
      for (const g of ops.argsArray[i][0]) if (g && typeof g === 'object' && g.unicode) advances.get(font).set(g.unicode, g.width);
    }
  }
  const items = [];
  for (const it of (await page.getTextContent()).items) {
    if (!it.str) continue; // marked-content markers and empty end-of-line items
    const [a, b, c, d, e, f] = Util.transform(vp.transform, it.transform);
    if (Math.abs(b) > 1e-6 || Math.abs(c) > 1e-6 || a <= 0) continue; // turned text: left to OCR
    const item = { text: it.str, x: e, y: f, w: it.width * vp.scale, size: Math.abs(d) };
    const known = advances.get(it.fontName);
    const adv = [...it.str].map((ch) => known?.get(ch));
    if (adv.length === it.str.length && adv.every((v) => typeof v === 'number' && v >= 0)) item.advances = adv;
    items.push(item);
  }
  const images = [];
  const stack = [];
  let ctm = [1, 0, 0, 1, 0, 0];
  const paints = new Set([OPS.paintImageXObject, OPS.paintInlineImageXObject, OPS.paintImageMaskXObject,
    OPS.paintImageXObjectRepeat, OPS.paintInlineImageXObjectGroup, OPS.paintImageMaskXObjectGroup]);
  for (let i = 0; i < ops.fnArray.length; i++) {
    const fn = ops.fnArray[i];
    if (fn === OPS.save) stack.push(ctm);
    else if (fn === OPS.restore) ctm = stack.pop() ?? [1, 0, 0, 1, 0, 0];
    else if (fn === OPS.transform) ctm = Util.transform(ctm, ops.argsArray[i]);
    else if (fn === OPS.paintFormXObjectBegin && ops.argsArray[i]?.[0]) { stack.push(ctm); ctm = Util.transform(ctm, ops.argsArray[i][0]); }
    else if (fn === OPS.paintFormXObjectEnd) ctm = stack.pop() ?? [1, 0, 0, 1, 0, 0];
    else if (paints.has(fn)) { // an image fills the unit square of the current transform
      const m = Util.transform(vp.transform, ctm);
      const pts = [[0, 0], [1, 0], [0, 1], [1, 1]].map(([x, y]) => [x * m[0] + y * m[2] + m[4], x * m[1] + y * m[3] + m[5]]);
      const xs = pts.map((p) => p[0]);
      const ys = pts.map((p) => p[1]);
      images.push([Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)]);
    }
  }
  return { items, images };
}

export function closePdf(pdf) {
  return pdf?.destroy().catch(() => {});
}
