// Fetching the app's own assets with byte progress and integrity checks (sha256 from assets/manifest.json).
import { RettoWorkerError } from './errors.js';

export async function fetchManifest(assetBase) {
  const res = await fetch(new URL('manifest.json', assetBase));
  if (!res.ok) throw new RettoWorkerError('model_missing', `asset manifest missing (${res.status}): run scripts/setup_web.sh`);
  return res.json();
}

/** GET url into a Uint8Array, calling onBytes(delta) as chunks arrive. */
export async function fetchBytes(url, onBytes, missingCode = 'model_missing') {
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

/** The three models, fetched in parallel, each checked against the manifest (code model_integrity). */
export async function fetchModels(assetBase, manifest, onBytes) {
  const entries = await Promise.all(Object.entries(manifest.models).map(async ([role, m]) => {
    const bytes = await fetchBytes(new URL(m.file, assetBase), onBytes);
    const got = await sha256Hex(bytes);
    if (got !== m.sha256) {
      throw new RettoWorkerError('model_integrity', `${m.file}: sha256 ${got} does not match the manifest ${m.sha256}`);
    }
    return [role, bytes];
  }));
  return Object.fromEntries(entries);
}

/** The WebGL model variants (scripts/webgl_models.py): {models: {role: {bytes, buckets}}, buckets: {det_sides,
 * rec_widths, batch}}. The index is checked against the asset manifest, each variant against the index. */
export async function fetchWebglModels(assetBase, manifest, onBytes) {
  if (!manifest.webgl) throw new RettoWorkerError('model_missing', 'no WebGL models in the asset manifest: run scripts/setup_web.sh');
  const indexUrl = new URL(manifest.webgl, assetBase);
  const indexBytes = await fetchBytes(indexUrl, onBytes);
  const want = manifest.files[manifest.webgl]?.sha256;
  if ((await sha256Hex(indexBytes)) !== want) {
    throw new RettoWorkerError('model_integrity', `${manifest.webgl} does not match the asset manifest`);
  }
  const index = JSON.parse(new TextDecoder().decode(indexBytes));
  const entries = await Promise.all(Object.entries(index.models).map(async ([role, m]) => {
    const bytes = await fetchBytes(new URL(m.file, indexUrl), onBytes);
    const got = await sha256Hex(bytes);
    if (got !== m.sha256) {
      throw new RettoWorkerError('model_integrity', `${m.file}: sha256 ${got} does not match webgl.json ${m.sha256}`);
    }
    return [role, { bytes, buckets: m.buckets }];
  }));
  return { models: Object.fromEntries(entries), buckets: index.buckets };
}
