// Fixtures for the product surfaces (page, PWA, <retto-ocr>), on top of the runtime's fixtures.js: the same
// Chromium, servers and off-origin guard. RETTO_DIST may point at another build (default dist/).
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { DATA, DIST, ROOT, runNative, test as base, expect } from './fixtures.js';
import { startServer } from '../../scripts/serve_static.mjs';

export const APP_DIST = DIST;
export const ARTEFACTS = join(ROOT, 'test-artefacts');
mkdirSync(ARTEFACTS, { recursive: true });

const nativeCache = new Map();

/** The native CLI's JSON result for a file (the reference every text comparison uses). */
export async function nativeResult(path) {
  if (!nativeCache.has(path)) {
    nativeCache.set(path, runNative(['-m', 'retto', '--images', path, '--format', 'json', '--no-progress'])
      .then((out) => JSON.parse(out)[0]));
  }
  return nativeCache.get(path);
}

export { base as test };

export { DATA, expect, startServer };
