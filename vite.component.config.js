// Second build: the <retto-ocr> element alone, so a host site needs exactly what the README says to copy:
// dist/retto-ocr.js (one module: the element, the client, the shared view and styles, no app/ chunks) and
// dist/assets/ (the runtime assets, plus the OCR worker this module starts, emitted under assets/retto-ocr/).
// Runs after the page build (vite.config.js), into the same dist/ without emptying it; the service worker's
// precache list is written again at its end so it covers these files too.
import { copyFileSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import rettoPwa from './web/src/sw/vite_plugin_pwa.js';

const here = (path) => fileURLToPath(new URL(path, import.meta.url));
export const COMPONENT_WORKER_DIR = 'assets/retto-ocr'; // inside assets/: copied along with it

/** The TypeScript declarations ship beside the module: dist/retto-ocr.d.ts (element) and dist/retto.d.ts (client). */
function copyDeclarations() {
  let outDir;
  return {
    name: 'retto-declarations',
    apply: 'build',
    configResolved(config) { outDir = resolve(config.root, config.build.outDir); },
    closeBundle() {
      mkdirSync(outDir, { recursive: true });
      for (const name of ['retto-ocr.d.ts', 'retto.d.ts']) copyFileSync(here(`web/types/${name}`), join(outDir, name));
    },
  };
}

export default defineConfig({
  root: 'web',
  base: './',
  publicDir: false, // the page build copied web/public/ already
  build: {
    outDir: '../dist',
    emptyOutDir: false,
    target: 'es2022',
    assetsDir: COMPONENT_WORKER_DIR,
    rollupOptions: {
      input: { 'retto-ocr': here('web/src/component/retto-ocr.js') },
      preserveEntrySignatures: 'exports-only',
      // One file: every dynamic import of the element's own code is inlined.
      output: { entryFileNames: 'retto-ocr.js', inlineDynamicImports: true },
    },
  },
  worker: {
    format: 'es',
    // The worker is a file of its own (a module worker from a blob: URL could not resolve its own imports);
    // its lazily used parts (PDF pages) are inlined into it, so assets/retto-ocr/ holds one file.
    rollupOptions: { output: { inlineDynamicImports: true } }, // named by assetsDir: assets/retto-ocr/
  },
  plugins: [copyDeclarations(), rettoPwa({ embedExample: null })],
});
