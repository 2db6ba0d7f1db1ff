// The page's downloads. Every file is written by py/retto (retto.export, the CLI's own code) in the OCR worker
// (ocr.export); this module only names the files, bundles them (zip: fflate, loaded on first use) and saves them.
import { EXPORT_FORMATS } from '../client/retto.js';

/** "scans/report.final.pdf" -> "report.final" (for naming downloads). */
export function baseName(path) {
  const name = path.split('/').pop();
  const i = name.lastIndexOf('.');
  return i > 0 ? name.slice(0, i) : name;
}

/** A finished job as the CLI's record: an image's result with its `path` first; a PDF's document record
 *  (which names its path already); a failed input's {path, error}. */
export function recordOf(job) {
  if (job.status === 'failed') return { path: job.name, error: job.error };
  return job.result.pages ? job.result : { path: job.name, ...job.result };
}

/** Save a Blob as a file through a temporary link (the download stays on the device). */
export function saveBlob(filename, blob) {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  a.style.display = 'none';
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** One job in one format: `report.pdf` -> `report.txt`, `report.json`, `report.pdf` (searchable), `report.hocr`. */
export async function downloadOne(ocr, job, format) {
  const blob = await ocr.export(recordOf(job), format, { source: job.file });
  saveBlob(`${baseName(job.name)}.${EXPORT_FORMATS[format].ext}`, blob);
}

/** One table of a job (index among its record's tables) as text ('table_tsv', 'table_md'), for copying. */
export async function tableText(ocr, job, format, index) {
  return (await ocr.export(recordOf(job), format, { table: index })).text();
}

/** The finished jobs' text as the Copy buttons copy it: py/retto's `plain` export of each (reading order, tables
 *  row by row with tabs, pages apart by a blank line), one job after another, a blank line between. */
export async function plainText(ocr, jobs) {
  const texts = await Promise.all(jobs.map(async (j) => (await (await ocr.export(recordOf(j), 'plain')).text()).replace(/\n$/, '')));
  return texts.filter(Boolean).join('\n\n');
}

/** One table of a job as a file ('table_csv', 'table_xlsx'): `report-table-2.csv` (tables numbered from 1 through
 *  the whole record, so a PDF's page 3 may hold table 4). */
export async function downloadTable(ocr, job, format, index) {
  const blob = await ocr.export(recordOf(job), format, { table: index });
  saveBlob(`${baseName(job.name)}-table-${index + 1}.${EXPORT_FORMATS[format].ext}`, blob);
}

/** Why a job is not in a download: its error code, "cancelled", "not finished", "image not kept". */
function leftOut(job, needsImage = false) {
  if (job.status === 'failed') return { name: job.name, why: job.error.code };
  if (job.status !== 'done') return { name: job.name, why: job.status === 'cancelled' ? 'cancelled' : 'not finished' };
  return needsImage && !job.file ? { name: job.name, why: 'image not kept' } : null;
}

/** The whole queue in one text file, as the CLI prints a batch (`json`: failed inputs included, as error
 *  records). Returns what it left out ({name, why}): `text` has only the files that were read, like the CLI's. */
export async function downloadBatch(ocr, jobs, format, filename) {
  const taken = jobs.filter((j) => j.status === 'done' || (format !== 'text' && j.status === 'failed'));
  saveBlob(filename, await ocr.export(taken.map(recordOf), format));
  return jobs.filter((j) => !taken.includes(j)).map((j) => leftOut(j));
}

/** One searchable PDF of every page of the finished jobs whose picture is here. Returns what it left out. */
export async function downloadAllPdf(ocr, jobs, filename = 'retto-ocr.pdf') {
  const done = jobs.filter((j) => !leftOut(j, true));
  const blob = await ocr.export(done.map(recordOf), 'pdf', { sources: done.map((j) => j.file), name: filename });
  saveBlob(filename, blob);
  return jobs.map((j) => leftOut(j, true)).filter(Boolean);
}

/** A zip with one file per finished job per format (names made unique; no searchable PDF of a job without its
 *  picture). Returns what it left out. */
export async function downloadZip(ocr, jobs, formats, filename = 'retto-ocr.zip') {
  const { zipSync } = await import('fflate');
  const done = jobs.filter((j) => j.status === 'done');
  const entries = {};
  for (const job of done) {
    const stem = uniqueStem(entries, baseName(job.name), formats);
    for (const format of formats) {
      if (format === 'pdf' && !job.file) continue;
      const blob = await ocr.export(recordOf(job), format, { source: job.file });
      entries[`${stem}.${EXPORT_FORMATS[format].ext}`] = [new Uint8Array(await blob.arrayBuffer()), { level: format === 'pdf' ? 0 : 6 }];
    }
  }
  // Fixed timestamps: the same results give the same zip.
  saveBlob(filename, new Blob([zipSync(entries, { mtime: new Date('1980-01-01T00:00:00Z') })], { type: 'application/zip' }));
  return jobs.map((j) => leftOut(j, formats.includes('pdf'))).filter(Boolean);
}

function uniqueStem(entries, stem, formats) {
  const taken = (s) => formats.some((f) => `${s}.${EXPORT_FORMATS[f].ext}` in entries);
  let out = stem;
  for (let n = 2; taken(out); n++) out = `${stem} (${n})`;
  return out;
}
