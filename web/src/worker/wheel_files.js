// A wheel (a zip file) written into Pyodide's file system from JS, on every start (a restored Python snapshot
// included: the file system is not part of the heap). The set-up ships the wheels with their entries stored
// (scripts/build/assemble_web_assets.py stored_zip), so each file is a slice of the download: measured under load,
// Python's own unpacker took ~0.4 s for numpy, Pillow and retto, and inflating the deflated entries here with
// DecompressionStream (one stream per file) 0.6 s. A deflated entry is still inflated that way.
// Handles what wheels use: stored (0) and deflated (8) entries, no zip64, no encryption.

const EOCD = 0x06054b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;

/** [{name, method, data}] of every file entry in the zip `bytes` (data: the entry's bytes as stored). */
export function zipEntries(bytes) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let end = bytes.length - 22;
  const stop = Math.max(0, end - 0xffff); // the archive comment is at most 64 KiB
  while (end >= stop && view.getUint32(end, true) !== EOCD) end -= 1;
  if (end < stop) throw new Error('not a zip file (no end of central directory)');
  const count = view.getUint16(end + 10, true);
  let at = view.getUint32(end + 16, true);
  const names = new TextDecoder();
  const entries = [];
  for (let i = 0; i < count; i++) {
    if (view.getUint32(at, true) !== CENTRAL) throw new Error('damaged zip central directory');
    const method = view.getUint16(at + 10, true);
    const size = view.getUint32(at + 20, true);
    const nameLength = view.getUint16(at + 28, true);
    const local = view.getUint32(at + 42, true);
    const name = names.decode(bytes.subarray(at + 46, at + 46 + nameLength));
    at += 46 + nameLength + view.getUint16(at + 30, true) + view.getUint16(at + 32, true);
    if (name.endsWith('/')) continue;
    if (method !== 0 && method !== 8) throw new Error(`${name}: zip method ${method} is not supported`);
    if (view.getUint32(local, true) !== LOCAL) throw new Error(`${name}: damaged zip entry`);
    const start = local + 30 + view.getUint16(local + 26, true) + view.getUint16(local + 28, true);
    entries.push({ name, method, data: bytes.subarray(start, start + size) });
  }
  return entries;
}

async function inflate(data) {
  const stream = new Blob([data]).stream().pipeThrough(new DecompressionStream('deflate-raw'));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

/** Write every file of each wheel under `dir` (what installing it does, minus the dependency resolution). */
export async function writeWheels(FS, dir, wheels) {
  const files = await Promise.all(wheels.flatMap((bytes) => zipEntries(bytes)).map(async (e) => (
    { name: e.name, data: e.method === 8 ? await inflate(e.data) : e.data })));
  const made = new Set();
  for (const { name, data } of files) {
    const path = `${dir}/${name}`;
    const parent = path.slice(0, path.lastIndexOf('/'));
    if (!made.has(parent)) {
      FS.mkdirTree(parent);
      made.add(parent);
    }
    FS.writeFile(path, data); // a copy: the download's buffer is not kept alive by a few small files
  }
}
