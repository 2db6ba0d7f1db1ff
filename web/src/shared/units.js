// Numbers in words for display: sizes, durations, confidences.

export function formatBytes(n) {
  if (!Number.isFinite(n)) return '?';
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(0)} KB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}

export function formatMs(ms) {
  if (!Number.isFinite(ms)) return '–';
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(2)} s`;
}

/** "1 file", "3 files": a count with its noun. */
export const plural = (n, word) => `${n} ${word}${n === 1 ? '' : 's'}`;

export function percent(score) {
  return `${Math.round(score * 100)}%`;
}
