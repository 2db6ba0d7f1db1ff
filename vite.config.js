// Vite: the app lives in web/, builds to dist/. COOP/COEP make the page cross-origin isolated, which
// onnxruntime-web needs for threads (SharedArrayBuffer). Any static server sending these two headers can
// serve dist/ (scripts/serve_static.mjs is one).
import { defineConfig } from 'vite';

export const ISOLATION_HEADERS = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
};

export default defineConfig({
  root: 'web',
  base: './', // relative URLs: dist/ works under any path
  publicDir: 'public', // web/public/assets/ (assembled by scripts/setup_web.sh) is copied as-is
  build: {
    outDir: '../dist',
    emptyOutDir: true,
    assetsDir: 'app', // keep Vite's bundles apart from the runtime assets/ folder
    target: 'es2022',
  },
  worker: { format: 'es' },
  server: { host: '127.0.0.1', headers: ISOLATION_HEADERS },
  preview: { host: '127.0.0.1', headers: ISOLATION_HEADERS },
  // Pyodide and onnxruntime-web are loaded at run time from assets/, never bundled or pre-bundled.
  optimizeDeps: { exclude: ['pyodide', 'onnxruntime-web'] },
});
