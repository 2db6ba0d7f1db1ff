// Vite plugin: serves the package's runtime assets at <base>retto/ in `vite` (dev) and copies them into the
// build's output as retto/ — where Retto.create and <retto-ocr> look by default.
//   import retto from 'retto-ocr/vite';  export default { plugins: [retto()] };
import { createReadStream, existsSync, statSync } from 'node:fs';
import { extname, join, normalize, resolve, sep } from 'node:path';
import { ASSETS_DIR, copyAssets } from './copy_assets.js';

const TYPES = { '.js': 'text/javascript', '.mjs': 'text/javascript', '.wasm': 'application/wasm',
  '.json': 'application/json', '.whl': 'application/zip', '.zip': 'application/zip' };

export default function rettoOcr({ dir = 'retto' } = {}) {
  let outDir;
  let base = '/';
  return {
    name: 'retto-ocr-assets',
    configResolved(config) {
      outDir = resolve(config.root, config.build.outDir);
      base = config.base.startsWith('/') ? config.base : '/';
    },
    configureServer(server) {
      const prefix = `${base}${dir}/`;
      server.middlewares.use((req, res, next) => {
        const path = decodeURIComponent((req.url ?? '').split('?')[0]);
        if (!path.startsWith(prefix)) return next();
        const file = normalize(join(ASSETS_DIR, path.slice(prefix.length)));
        if (!file.startsWith(ASSETS_DIR.replace(/[\\/]$/, '') + sep) || !existsSync(file) || !statSync(file).isFile()) return next();
        res.setHeader('Content-Type', TYPES[extname(file)] ?? 'application/octet-stream');
        res.setHeader('Content-Length', statSync(file).size);
        createReadStream(file).pipe(res);
      });
    },
    writeBundle() {
      copyAssets(join(outDir, dir));
    },
  };
}
