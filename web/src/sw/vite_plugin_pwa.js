// Vite build plugin for the offline app: after the bundle is written it
//  - copies web/embed-example/ verbatim (a plain host page, deliberately not processed by Vite),
//  - lists every file of dist/ with its sha256 (runtime assets: the sha256 from assets/manifest.json, checked
//    against the file so a stale manifest fails the build instead of a service worker that never installs),
//  - writes dist/sw.js = that list + web/src/sw/sw.js. The version is a hash of the list.
import { createHash } from 'node:crypto';
import { cpSync, existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const SKIP = [/^sw\.js$/, /\.map$/, /(^|\/)\.DS_Store$/];

function walk(dir, out = []) {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p, out);
    else out.push(p);
  }
  return out;
}

const sha256 = (buf) => createHash('sha256').update(buf).digest('hex');

export function buildPrecacheList(outDir) {
  const manifestPath = join(outDir, 'assets', 'manifest.json');
  if (!existsSync(manifestPath)) throw new Error(`${manifestPath} missing: assemble the runtime assets first`);
  const assetHashes = JSON.parse(readFileSync(manifestPath, 'utf8')).files;
  const files = [];
  for (const path of walk(outDir).sort()) {
    const url = relative(outDir, path).split(sep).join('/');
    if (SKIP.some((re) => re.test(url))) continue;
    const bytes = readFileSync(path);
    const hash = sha256(bytes);
    const inManifest = url.startsWith('assets/') ? assetHashes[url.slice('assets/'.length)] : undefined;
    if (url.startsWith('assets/') && url !== 'assets/manifest.json') {
      if (!inManifest) throw new Error(`${url} is not listed in assets/manifest.json`);
      if (inManifest.sha256 !== hash) throw new Error(`${url}: sha256 differs from assets/manifest.json`);
    }
    files.push({ url, sha256: inManifest?.sha256 ?? hash, size: bytes.length });
  }
  const version = sha256(JSON.stringify(files)).slice(0, 16);
  return { version, files };
}

export const SW_SOURCE = fileURLToPath(new URL('./sw.js', import.meta.url));
const EMBED_EXAMPLE = fileURLToPath(new URL('../../embed-example', import.meta.url));

/** dist/sw.js for a built dist/ (also used by the PWA test to make a "next deploy"). Returns the version. */
export function writeServiceWorker(outDir, swSource = SW_SOURCE) {
  const list = buildPrecacheList(outDir);
  writeFileSync(join(outDir, 'sw.js'), `const PRECACHE = ${JSON.stringify(list)};\n${readFileSync(swSource, 'utf8')}`);
  return list;
}

export default function rettoPwa({ swSource = SW_SOURCE, embedExample = EMBED_EXAMPLE } = {}) {
  let outDir;
  return {
    name: 'retto-pwa',
    apply: 'build',
    configResolved(config) {
      outDir = resolve(config.root, config.build.outDir);
    },
    closeBundle() {
      if (embedExample && existsSync(embedExample)) cpSync(embedExample, join(outDir, 'embed-example'), { recursive: true });
      const list = writeServiceWorker(outDir, swSource);
      const mb = list.files.reduce((a, f) => a + f.size, 0) / 1e6;
      this.info?.(`sw.js: ${list.files.length} files, ${mb.toFixed(1)} MB, version ${list.version}`);
    },
  };
}
