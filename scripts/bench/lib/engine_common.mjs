// What the two engine workers of scripts/bench/litert_vs_ort.mjs share: the recorded call's input, fetched once.
const inputs = new Map();
/** The recorded input of a call (float32, NCHW), from the benchmark's /__inputs__/ mount. */
export async function callInput(file) {
  if (!inputs.has(file)) inputs.set(file, new Float32Array(await (await fetch(`/__inputs__/${file}`)).arrayBuffer()));
  return inputs.get(file);
}
