// Error codes (from py/retto and the worker) in plain words, each with what the person can do about it.
const TEXTS = {
  fetch_failed: ['The image could not be downloaded.',
    'Check that its address is right and that the server lets this page fetch it.'],
  file_too_large: ['This file is too large to read here.',
    'Use a smaller copy of it (or raise the limit: max-bytes on <retto-ocr>, --max-file-bytes in the CLI).'],
  invalid_image: ['This file could not be read as an image.',
    'Use a PNG, JPEG, WebP, GIF, BMP or TIFF file. If it is one, it may be damaged: open and save it again.'],
  image_too_large: ['This image is too large to process.',
    'Scale it down or crop it (under 100 megapixels) and add it again.'],
  model_missing: ['The OCR models could not be loaded.',
    'Check your connection and reload the page.'],
  model_integrity: ['The OCR model files are damaged.',
    'Reload the page. If it keeps happening, clear this site’s data in the browser settings.'],
  backend_unavailable: ['The chosen backend cannot run in this browser.',
    'Choose “auto” or “wasm” as the backend.'],
  inference_failed: ['The OCR engine failed on this image.',
    'Try again, or choose the “wasm” backend.'],
  worker_crashed: ['The OCR engine stopped unexpectedly (often: out of memory).',
    'It restarts by itself. Try the image again, or a smaller copy of it.'],
  worker_load_failed: ['The OCR engine could not be loaded.',
    'Check your connection and reload the page. Embedding on your own site: copy the whole assets/ folder next to retto-ocr.js.'],
  aborted: ['Cancelled.', 'Add the image again to recognise it.'],
  terminated: ['The OCR engine was restarted before this image was done.', 'Add the image again.'],
  pdf_encrypted: ['This PDF is protected by a password.',
    'Open it in a PDF reader, save a copy without the password, and add that copy.'],
  pdf_invalid: ['This PDF is damaged or not really a PDF.',
    'Open it in a PDF reader and save or print it to a new PDF, then add that file.'],
  pdf_empty: ['This PDF has no pages.', 'There is nothing to read in it.'],
  pdf_too_many_pages: ['This PDF has too many pages.',
    'Split it into smaller PDFs (or raise document.max_pages in the config) and add them again.'],
  pdf_page_too_complex: ['This page is too complex to draw safely (huge images or millions of drawing steps).',
    'The other pages are read. Print the page to a new PDF or an image at a lower resolution and add that.'],
  pdf_page_unmeasured: ['This page could not be checked before drawing, so it was not drawn.',
    'The other pages are read. Print the page to a new PDF or an image and add that.'],
};

/** {title, advice, code, detail} for an error object with a code and a message. */
export function explainError(error) {
  const code = error?.code || 'internal_error';
  const [title, advice] = TEXTS[code] ?? ['Something went wrong while reading this image.',
    'Try again; if it keeps failing, reload the page.'];
  return { code, title, advice, detail: error?.message || '' };
}
