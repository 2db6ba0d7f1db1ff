// Vite: the app lives in web/, builds to dist/. COOP/COEP make the page cross-origin isolated, which
// onnxruntime-web needs for threads (SharedArrayBuffer). Any static server sending these two headers can
// serve dist/ (scripts/serve_static.mjs is one).
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import rettoPwa from './web/src/sw/vite_plugin_pwa.js';

const web = (path) => fileURLToPath(new URL(`./web/${path}`, import.meta.url));

export const ISOLATION_HEADERS = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
};

export default defineConfig({
  root: 'web',
  base: './', // relative URLs: dist/ works under any path
  publicDir: 'public', // web/public/assets/ (assembled by scripts/setup/setup_web.sh) is copied as-is
  build: {
    outDir: '../dist',
    emptyOutDir: true,
    assetsDir: 'app', // keep Vite's bundles apart from the runtime assets/ folder
    target: 'es2022',
    rollupOptions: {
      input: {
        index: web('index.html'), // the product page (web/src/ui/)
        dev: web('dev.html'), // the minimal runtime page the runtime e2e tests drive
      },
      // The web component (dist/retto-ocr.js) is built on its own, with no shared chunks, by
      // vite.component.config.js (`npm run build` runs both builds).
      output: { entryFileNames: 'app/[name]-[hash].js' },
    },
  },
  // After the build: dist/embed-example/ (verbatim) and dist/sw.js (precache list with sha256, versioned).
  plugins: [rettoPwa()],
  worker: { format: 'es' },
  server: { host: '127.0.0.1', headers: ISOLATION_HEADERS },
  preview: { host: '127.0.0.1', headers: ISOLATION_HEADERS },
  // Pyodide and onnxruntime-web are loaded at run time from assets/, never bundled or pre-bundled.
  optimizeDeps: { exclude: ['pyodide', 'onnxruntime-web'] },
});
