// Errors the worker sends to the client: a stable code (the Python RettoError codes pass through) + a sentence.
export class RettoWorkerError extends Error {
  constructor(code, message) {
    super(message);
    this.code = code;
  }
}

export function toErrorPayload(e) {
  if (e && typeof e.code === 'string') return { code: e.code, message: e.message };
  if (e && e.name === 'AbortError') return { code: 'aborted', message: 'recognition was cancelled' };
  return { code: 'internal_error', message: String(e && e.message ? e.message : e) };
}
