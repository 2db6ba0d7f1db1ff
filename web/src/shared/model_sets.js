// The build's model sets in words, shared by the page and <retto-ocr>: the list (from the asset manifest, via
// Retto.modelSets), how to name one, and which backend to ask for when a set has no WebGL version.
// Which set is the default is read from the manifest, never assumed here.
import { Retto } from '../client/retto.js';
import { formatBytes } from './units.js';

const lists = new Map(); // assetBase -> Promise<[set]>: one manifest fetch per asset base

/** [{name, label, summary, languages, bytes, default, webgl, order}] in display order. */
export function listModelSets(assetBase) {
  if (!lists.has(assetBase)) {
    const list = Retto.modelSets({ assetBase });
    list.catch(() => lists.delete(assetBase)); // a failed fetch may be retried
    lists.set(assetBase, list);
  }
  return lists.get(assetBase);
}

/** The set's name in a chooser: "Chinese & English (classic) · 16.2 MB". */
export function modelSetOptionText(set) {
  return `${set.label} · ${formatBytes(set.bytes)}`;
}

/** The label of the set named in a result (result.model_set), or its bare name when the list lacks it. */
export function modelSetLabel(sets, name) {
  return sets?.find((s) => s.name === name)?.label ?? name ?? '';
}

/** A set without WebGL models cannot run on the WebGL backend at all (the worker would refuse to start), so a
 * WebGL-only choice becomes auto for it: WebGPU if usable, else wasm. Returns {backend, note} (note: why). */
export function backendForSet(backend, set) {
  if (backend !== 'webgl' || !set || set.webgl?.supported !== false) return { backend, note: '' };
  return { backend: 'auto', note: `“${set.label}” has no WebGL version, so it runs on the CPU or through WebGPU instead.` };
}
