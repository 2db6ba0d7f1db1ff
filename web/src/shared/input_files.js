// Turning what a person drops, picks or pastes into a flat list of Files (images and PDFs). Folders are walked
// recursively (drag and drop only: webkitGetAsEntry), keeping the relative path for display. Whether a file is
// a PDF is decided later by its bytes (%PDF-), not here: names only choose what to take from a folder.

import pythonFacts from '../generated/python_facts.json'; // generated from retto.browser.facts at build time

// The suffixes `retto <folder>` searches for (retto.io.inputs.IMAGE_SUFFIXES, PDF_SUFFIXES): one list, in Python.
// A name that is only a suffix ('.png') has none, as Python's Path.suffix says.
const suffixes = (list) => new RegExp(`.\\.(${list.join('|')})$`, 'i');
const IMAGE_EXT = suffixes(pythonFacts.image_suffixes);
const PDF_EXT = suffixes(pythonFacts.pdf_suffixes);

/** A file input's `accept`: any image type the browser names, every image and PDF suffix, and PDFs by type. */
export const FILE_ACCEPT = ['image/*', ...pythonFacts.image_suffixes.map((s) => `.${s}`), 'application/pdf',
  ...pythonFacts.pdf_suffixes.map((s) => `.${s}`)].join(',');

export function looksLikeImage(file) {
  return file.type.startsWith('image/') || IMAGE_EXT.test(file.name);
}

export function looksLikePdf(file) {
  return file.type === 'application/pdf' || PDF_EXT.test(file.name);
}

/** What the page and the component read: images and PDFs. */
export function looksReadable(file) {
  return looksLikeImage(file) || looksLikePdf(file);
}

function readEntries(reader) {
  return new Promise((ok, fail) => reader.readEntries(ok, fail));
}

async function walk(entry, prefix, out) {
  if (entry.isFile) {
    const file = await new Promise((ok, fail) => entry.file(ok, fail));
    out.push({ file, path: prefix + file.name, fromFolder: prefix !== '' });
    return;
  }
  if (!entry.isDirectory) return;
  const reader = entry.createReader();
  for (;;) { // readEntries returns at most ~100 entries per call
    const batch = await readEntries(reader);
    if (!batch.length) break;
    for (const child of batch) await walk(child, `${prefix}${entry.name}/`, out);
  }
}

/**
 * Files from a drop's DataTransfer, folders included. Returns {files:[{file, path}], skipped}: files found in
 * folders that are neither images nor PDFs are skipped (counted); files dropped directly are all kept, so a
 * wrong one gets a per-file error instead of silently vanishing.
 */
export async function filesFromDataTransfer(dt) {
  const found = [];
  const items = Array.from(dt.items ?? []).filter((it) => it.kind === 'file');
  const entries = items.map((it) => it.webkitGetAsEntry?.()).filter(Boolean);
  if (entries.length) {
    for (const entry of entries) await walk(entry, '', found);
  } else {
    for (const file of Array.from(dt.files ?? [])) found.push({ file, path: file.name, fromFolder: false });
  }
  return keepImages(found);
}

/** Files from an <input type=file> (with or without webkitdirectory). */
export function filesFromInput(input) {
  return keepImages(Array.from(input.files ?? [], (file) => {
    const rel = file.webkitRelativePath || '';
    return { file, path: rel || file.name, fromFolder: rel !== '' };
  }));
}

/** Files on the clipboard of a paste event (a screenshot, or copied image or PDF files). */
export function filesFromClipboard(event) {
  const files = [];
  for (const item of Array.from(event.clipboardData?.items ?? [])) {
    if (item.kind !== 'file') continue;
    const file = item.getAsFile();
    if (!file) continue;
    const name = file.name && file.name !== 'image.png' ? file.name
      : `pasted-${new Date().toISOString().replace(/[:.]/g, '-')}.${(file.type.split('/')[1] || 'png')}`;
    files.push({ file: new File([file], name, { type: file.type }), path: name, fromFolder: false });
  }
  return keepImages(files);
}

function keepImages(found) {
  const files = found.filter((f) => !f.fromFolder || looksReadable(f.file));
  return { files: files.map(({ file, path }) => ({ file, path })), skipped: found.length - files.length };
}
