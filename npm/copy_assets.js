// Copies the package's runtime assets (the OCR worker, Pyodide, onnxruntime-web, pdf.js, the retto wheel, the
// default model set) into an app's folder; used by the CLI (bin/retto-ocr-assets.js) and the Vite plugin.
import { cpSync, existsSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const ASSETS_DIR = fileURLToPath(new URL('./assets/', import.meta.url));

/** Copy assets/ into dest (created if missing); files already there with the same size and age are kept. */
export function copyAssets(dest) {
  if (!existsSync(ASSETS_DIR)) throw new Error(`retto-ocr: ${ASSETS_DIR} is missing (a broken install?)`);
  cpSync(ASSETS_DIR, dest, {
    recursive: true,
    preserveTimestamps: true,
    filter: (src, to) => {
      if (!existsSync(to)) return true;
      const a = statSync(src);
      const b = statSync(to);
      return a.isDirectory() || a.size !== b.size || a.mtimeMs !== b.mtimeMs;
    },
  });
}
