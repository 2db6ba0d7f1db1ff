// The backend choices a person can make, in one place: the page builds its selector from this list (the values
// are the worker's backend names, backends.js; the labels are what people read).
export const BACKEND_CHOICES = [
  { value: 'auto', label: 'Automatic' },
  { value: 'wasm', label: 'CPU' },
  { value: 'webgpu', label: 'Graphics card (WebGPU)' },
  { value: 'webgl', label: 'Graphics card (WebGL)' },
];

/** Backends that need the graphics card: when one cannot run, the page falls back to 'auto' by itself. */
export const GPU_BACKENDS = new Set(['webgpu', 'webgl']);

export const isBackendChoice = (value) => BACKEND_CHOICES.some((c) => c.value === value);
