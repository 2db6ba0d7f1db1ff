// Per-image progress and timings in words, for the page.
import { formatMs } from '../shared/units.js';

/** Per-stage progress of one image, in words. */
export function stageText(ev) {
  if (!ev) return '';
  switch (ev.stage) {
    case 'queued': return 'starting…';
    case 'decode': return `image ${ev.width}×${ev.height}, finding text…`;
    case 'det': return `${ev.boxes} text region${ev.boxes === 1 ? '' : 's'} found`;
    case 'cls': return `orientation ${ev.done}/${ev.total}`;
    case 'orientation': return ev.page_angle ? `page turned ${ev.page_angle}°, reading it upright…` : 'page is upright';
    case 'stacks': return `${ev.split} table column${ev.split === 1 ? '' : 's'} read row by row`;
    case 'rec': return `reading ${ev.done}/${ev.total} lines`;
    case 'reread': return `checking ${ev.done}/${ev.total} doubtful lines`;
    case 'done': return 'finishing…';
    default: return ev.stage;
  }
}

/** Rows for the timings panel: [label, value]. */
export function timingRows(result, info, modelSetLabel = (name) => name) {
  const t = result.timings ?? {};
  const rows = [
    ...(result.model_set ? [['Model set', `${modelSetLabel(result.model_set)} (${result.model_set})`]] : []),
    ['Decode', formatMs(t.decode)],
    ['Detect', `${formatMs(t.det)} (model ${formatMs(t.infer?.det)})`],
    ['Orientation', `${formatMs(t.cls)} (model ${formatMs(t.infer?.cls)})`],
    ['Read', `${formatMs(t.rec)} (model ${formatMs(t.infer?.rec)})`],
    ['Total', formatMs(t.total)],
    ['Backend', `det ${result.backend.det} · cls ${result.backend.cls} · rec ${result.backend.rec}`],
  ];
  if (info) rows.push(['Threads', `${info.wasm.threads} — ${info.wasm.threadsReason}`]);
  const v = result.versions ?? {};
  rows.push(['Versions', Object.entries(v).filter(([, x]) => typeof x === 'string').map(([k, x]) => `${k} ${x}`).join(', ')]);
  for (const w of result.warnings ?? []) rows.push(['Warning', w]);
  return rows;
}
