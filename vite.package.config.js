// The npm package's code (scripts/build/build_npm_package.sh runs this twice): npm/dist/index.js (the client) and
// npm/dist/element.js (<retto-ocr>), then with RETTO_PACKAGE_PART=worker the OCR worker as one file,
// npm/assets/retto-worker.js, beside the runtime assets. The package's client starts its worker from the asset
// folder (web/src/package/build_paths.js replaces web/src/client/build_paths.js), so an app's bundler never has
// to understand the worker, and a strict CSP needs only 'self'.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const here = (path) => fileURLToPath(new URL(path, import.meta.url));
const worker = process.env.RETTO_PACKAGE_PART === 'worker';

/** Every import of the repository's build_paths.js gets the package's. */
function packagePaths() {
  const repo = here('web/src/client/build_paths.js');
  const pkg = here('web/src/package/build_paths.js');
  return {
    name: 'retto-package-paths',
    enforce: 'pre',
    async resolveId(source, importer, options) {
      if (!source.endsWith('build_paths.js')) return null;
      const resolved = await this.resolve(source, importer, { ...options, skipSelf: true });
      return resolved?.id === repo ? pkg : null;
    },
  };
}

export default defineConfig({
  root: 'web',
  base: './',
  publicDir: false,
  logLevel: 'warn',
  plugins: [packagePaths()],
  build: {
    outDir: worker ? '../npm/assets' : '../npm/dist',
    emptyOutDir: !worker,
    target: 'es2022',
    minify: true,
    modulePreload: worker ? false : undefined, // the worker has no document to preload into
    rollupOptions: {
      input: worker ? { 'retto-worker': here('web/src/worker/worker.js') }
        : { index: here('web/src/package/index.js'), element: here('web/src/package/element.js') },
      preserveEntrySignatures: worker ? false : 'exports-only',
      output: worker ? { entryFileNames: '[name].js', inlineDynamicImports: true }
        : { entryFileNames: '[name].js', chunkFileNames: 'chunks/[name]-[hash].js' },
    },
  },
});
