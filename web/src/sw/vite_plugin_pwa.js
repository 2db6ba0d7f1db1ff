// Vite build plugin for the offline app: after the bundle is written it
//  - copies web/embed-example/ verbatim (a plain host page, deliberately not processed by Vite),
//  - lists every file of dist/ with its sha256 (runtime assets: the sha256 from assets/manifest.json, checked
//    against the file so a stale manifest fails the build instead of a service worker that never installs),
//    split in two: `files`, precached at install (the app shell, Pyodide, onnxruntime-web, the wheel and the
//    DEFAULT model set with its WebGL variants), and `onDemand`, the other sets' files, the layout/table models
//    (fetched only with "Tables and regions" on), pdf.js and the export wheels, which the service worker saves
//    when they are first fetched (each set is 7-32 MB; nobody needs all of them offline; pdf.js and the export
//    code only matter to people who use PDFs),
//  - writes dist/sw.js = both lists + web/src/sw/sw.js. The version is a hash of both lists.
import { createHash } from 'node:crypto';
import { cpSync, existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

// .br/.gz: scripts/build/precompress.mjs's copies of files listed here; the server picks them by Accept-Encoding.
const SKIP = [/^sw\.js$/, /\.map$/, /(^|\/)\.DS_Store$/, /\.(br|gz)$/];
// Loaded only when a feature is first used: pdf.js (a PDF arrives), the searchable-PDF export's wheels and
// XlsxWriter (the first table workbook).
// Saved on that first use, like the other model sets; the page then asks for the whole group (sw.js
// 'cache-group'), so a later PDF needing a CMap or font the first did not still works offline.
const LOADED_ON_USE = { pdfjs: /^assets\/pdf(js)?\//, export: /^assets\/export\//, xlsx: /^assets\/xlsx\// }; // pdf/: pypdf, with pdf.js

// The component build's worker (vite.component.config.js) lives under assets/ so that copying assets/ brings it;
// it is a build output, not a runtime asset, so assets/manifest.json does not list it.
const BUILT_INTO_ASSETS = /^assets\/retto-ocr\//;

const groupOf = (url) => Object.keys(LOADED_ON_USE).find((g) => LOADED_ON_USE[g].test(url)) ?? null;
// Model roles that run only when a setting turns them on (layout.regions / layout.tables): never precached, saved
// when first fetched, so a visitor who never turns tables on never downloads their models.
const SETTING_ROLES = new Set(['layout', 'table']);

/** assets/ paths of the model files that serve only SETTING_ROLES, in whichever sets use them. */
function settingOnlyFiles(manifest) {
  const roles = new Map();
  for (const entry of Object.values(manifest.model_sets ?? {})) {
    for (const [role, f] of Object.entries(entry.files)) roles.set(f.file, [...(roles.get(f.file) ?? []), role]);
  }
  return new Set([...roles].filter(([, rs]) => rs.every((r) => SETTING_ROLES.has(r))).map(([file]) => file));
}

function walk(dir, out = []) {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p, out);
    else out.push(p);
  }
  return out;
}

const sha256 = (buf) => createHash('sha256').update(buf).digest('hex');

/** assets/ path -> the model sets it belongs to (a set's files, its WebGL folder, and the wasm Tesseract for the
 * sets with `line_rec`), for the sets in the manifest. */
function modelSetOwners(manifest) {
  const owners = new Map();
  for (const [name, entry] of Object.entries(manifest.model_sets ?? {})) {
    const webglDir = entry.webgl ? entry.webgl.replace(/[^/]*$/, '') : null;
    for (const path of Object.keys(manifest.files)) {
      if (webglDir && path.startsWith(webglDir)) owners.set(path, [...(owners.get(path) ?? []), name]);
    }
    for (const f of Object.values(entry.files)) owners.set(f.file, [...(owners.get(f.file) ?? []), name]);
    // the wasm Tesseract belongs to the sets whose lines it reads: saved with them, never precached for the others
    if (entry.set.line_rec && manifest.tesseract) {
      for (const f of [manifest.tesseract.module, manifest.tesseract.wasm]) owners.set(f, [...(owners.get(f) ?? []), name]);
    }
  }
  return owners;
}

export function buildPrecacheList(outDir) {
  const manifestPath = join(outDir, 'assets', 'manifest.json');
  if (!existsSync(manifestPath)) throw new Error(`${manifestPath} missing: assemble the runtime assets first`);
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8'));
  const assetHashes = manifest.files;
  const owners = modelSetOwners(manifest);
  const bySetting = settingOnlyFiles(manifest);
  const defaultSet = manifest.default_model_set;
  if (!manifest.model_sets?.[defaultSet]) throw new Error(`assets/manifest.json: default_model_set ${defaultSet} is not a model set`);
  const files = [];
  const onDemand = [];
  for (const path of walk(outDir).sort()) {
    const url = relative(outDir, path).split(sep).join('/');
    if (SKIP.some((re) => re.test(url))) continue;
    const bytes = readFileSync(path);
    const hash = sha256(bytes);
    const inManifest = url.startsWith('assets/') ? assetHashes[url.slice('assets/'.length)] : undefined;
    if (url.startsWith('assets/') && url !== 'assets/manifest.json' && !BUILT_INTO_ASSETS.test(url)) {
      if (!inManifest) throw new Error(`${url} is not listed in assets/manifest.json`);
      if (inManifest.sha256 !== hash) throw new Error(`${url}: sha256 differs from assets/manifest.json`);
    }
    const entry = { url, sha256: inManifest?.sha256 ?? hash, size: bytes.length };
    // A model file is precached only if the default set uses it (a file two sets share counts as the default's).
    const rel = url.slice('assets/'.length);
    const sets = url.startsWith('assets/models/') || owners.has(rel) ? (owners.get(rel) ?? []) : null;
    if (sets && bySetting.has(url.slice('assets/'.length))) onDemand.push({ ...entry, sets: [], group: 'tables' });
    else if (sets && !sets.includes(defaultSet)) onDemand.push({ ...entry, sets });
    else if (groupOf(url)) onDemand.push({ ...entry, sets: [], group: groupOf(url) });
    else files.push(entry);
  }
  const version = sha256(JSON.stringify({ files, onDemand })).slice(0, 16);
  return { version, defaultModelSet: defaultSet, files, onDemand };
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
      const mb = (l) => (l.reduce((a, f) => a + f.size, 0) / 1e6).toFixed(1);
      this.info?.(`sw.js: precache ${list.files.length} files, ${mb(list.files)} MB; on first use `
        + `${list.onDemand.length} files, ${mb(list.onDemand)} MB; version ${list.version}`);
    },
  };
}
