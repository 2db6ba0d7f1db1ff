// Fetching the app's own assets with byte progress and integrity checks (sha256 from assets/manifest.json).
import { RettoWorkerError } from './errors.js';

export async function fetchManifest(assetBase) {
  return (await fetchManifestSized(assetBase)).manifest;
}

/** The manifest and its own size in bytes (it cannot list itself; the load total counts it too). */
export async function fetchManifestSized(assetBase) {
  const res = await fetch(new URL('manifest.json', assetBase));
  if (!res.ok) throw new RettoWorkerError('model_missing', `asset manifest missing (${res.status}): run scripts/setup/setup_web.sh`);
  const bytes = new Uint8Array(await res.arrayBuffer());
  return { manifest: JSON.parse(new TextDecoder().decode(bytes)), size: bytes.length };
}

/** GET url into a Uint8Array, calling onBytes(delta) as chunks arrive. */
export async function fetchBytes(url, onBytes = () => {}, missingCode = 'model_missing') {
  const res = await fetch(url);
  if (!res.ok) throw new RettoWorkerError(missingCode, `${url} could not be loaded (HTTP ${res.status})`);
  const total = Number(res.headers.get('content-length')) || 0;
  const reader = res.body.getReader();
  const chunks = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    size += value.length;
    onBytes(value.length);
  }
  const out = total === size && chunks.length === 1 ? chunks[0] : new Uint8Array(size);
  if (out !== chunks[0]) {
    let o = 0;
    for (const c of chunks) { out.set(c, o); o += c.length; }
  }
  return out;
}

export async function sha256Hex(bytes) {
  const d = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));
  return Array.from(d, (b) => b.toString(16).padStart(2, '0')).join('');
}

/** The chosen model set's entry in the asset manifest (null: the default set); unknown names are an error, and a
 * native-only set (manifest.native_only_model_sets) is `backend_unavailable` with its reason. */
export function modelSetEntry(manifest, name) {
  const chosen = name ?? manifest.default_model_set;
  const entry = manifest.model_sets?.[chosen];
  const nativeOnly = manifest.native_only_model_sets?.[chosen];
  if (!entry && nativeOnly) {   // a set the browser cannot run yet (its set file says why): refused by name
    throw new RettoWorkerError('backend_unavailable', `model set ${JSON.stringify(chosen)} (${nativeOnly.label}) `
      + `runs natively only for now: ${nativeOnly.reason}`);
  }
  if (!entry) {
    throw new RettoWorkerError('invalid_config', `unknown model set ${JSON.stringify(chosen)}; choose one of: `
      + `${Object.keys(manifest.model_sets ?? {}).join(', ')}`);
  }
  return { name: chosen, ...entry };
}

/** GET url, refused (code model_integrity) unless its sha256 is the manifest's. */
export async function fetchChecked(url, sha256, label, onBytes) {
  const bytes = await fetchBytes(url, onBytes);
  const got = await sha256Hex(bytes);
  if (got !== sha256) throw new RettoWorkerError('model_integrity', `${label}: sha256 ${got} does not match ${sha256}`);
  return bytes;
}

/** The set's files (det, cls, rec, its dictionary files, and its optional models), each checked against the
 * manifest (code model_integrity): {role: Promise<bytes>}, so a session can start on the first file in. The
 * roles in `later` are fetched only when first read (a getter: the optional models, made on first use); every
 * other file starts at once, in parallel. Only this set is downloaded. */
export function fetchModels(assetBase, modelSet, onBytes = () => {}, later = []) {
  const out = {};
  for (const [role, m] of Object.entries(modelSet.files)) {
    const get = () => fetchChecked(new URL(m.file, assetBase), m.sha256, m.file, onBytes);
    if (later.includes(role)) {
      let pending = null; // a failed fetch is forgotten, so the next use tries again
      Object.defineProperty(out, role, { enumerable: false,
        get: () => (pending ??= get().catch((e) => { pending = null; throw e; })) });
    } else {
      out[role] = get();
    }
  }
  return out;
}

/** The set's WebGL model variants (scripts/build/webgl_models.py): {models: {role: {bytes, buckets}}, buckets: {det_sides,
 * rec_widths, batch, cls_hw, rec_height}}. The index is checked against the asset manifest, each variant against
 * the index. */
export async function fetchWebglModels(assetBase, manifest, modelSet, onBytes = () => {}) {
  if (!modelSet.webgl) {
    throw new RettoWorkerError('backend_unavailable', `model set ${modelSet.name} has no WebGL variant: `
      + `${modelSet.set.webgl?.reason ?? 'unsupported'}`);
  }
  const indexUrl = new URL(modelSet.webgl, assetBase);
  const indexBytes = await fetchChecked(indexUrl, manifest.files[modelSet.webgl]?.sha256, modelSet.webgl, onBytes);
  const index = JSON.parse(new TextDecoder().decode(indexBytes));
  const entries = await Promise.all(Object.entries(index.models).map(async ([role, m]) => {
    const bytes = await fetchChecked(new URL(m.file, indexUrl), m.sha256, m.file, onBytes);
    return [role, { bytes, buckets: m.buckets }];
  }));
  return { models: Object.fromEntries(entries), buckets: index.buckets };
}
