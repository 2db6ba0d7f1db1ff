// Counts the wasm memory of this worker: Pyodide's heap and onnxruntime-web's (its threaded build creates its
// shared memory from JS). A wasm memory grows and never shrinks, so the sum after a job is what the worker keeps
// holding; the client replaces a worker whose sum passed its limit (recycleHeapBytes). Must be imported before
// either runtime loads: it watches the WebAssembly.Memory constructor.
const memories = new Set();

WebAssembly.Memory = new Proxy(WebAssembly.Memory, {
  construct(target, args, newTarget) {
    const memory = Reflect.construct(target, args, newTarget);
    memories.add(memory);
    return memory;
  },
});

/** Bytes of every wasm memory created in this worker so far. */
export function wasmMemoryBytes() {
  let total = 0;
  for (const m of memories) total += m.buffer.byteLength;
  return total;
}
