// The page's history across reloads: one IndexedDB record per queue item (through npm `idb`), written when the
// item is added and again when it finishes. This module owns all of the page's stored queue data; the service
// worker has no part in it. Images (and PDFs, with their rendered page previews) are stored only when the
// person ticked "Keep images in history". A full store (QuotaExceededError) never stops OCR: the item's older
// record is dropped, it is saved again without its image, or not at all, and onNotice says which.
import { openDB } from 'idb';

const DB_NAME = 'retto-history';
const STORE = 'items';
const KEEP_IMAGES = 'retto.keepImages'; // the checkbox's choice (a preference, not history)

/** Record: {key, added, name, status: 'pending'|'done'|'failed'|'cancelled', result, error, file, previews}. */
export class History {
  constructor({ onNotice }) {
    this.onNotice = onNotice;
    this.db = openDB(DB_NAME, 1, {
      upgrade(db) { db.createObjectStore(STORE, { keyPath: 'key' }); },
    }).catch((e) => { // private windows and locked-down browsers: the page works, without history
      this.onNotice(`History is not available in this browser (${e.name || e.message}); results last until you leave the page.`);
      return null;
    });
  }

  get keepImages() {
    return localStorage.getItem(KEEP_IMAGES) === '1';
  }

  set keepImages(on) {
    localStorage.setItem(KEEP_IMAGES, on ? '1' : '0');
  }

  /** The stored records, oldest first. */
  async load() {
    const db = await this.db;
    if (!db) return [];
    return (await db.getAll(STORE)).sort((a, b) => a.added - b.added);
  }

  /** Save (or update) a job's record. Not: removed jobs, and jobs marked job.notSaved (history was cleared while
   *  they were shown). */
  async save(job) {
    const db = await this.db;
    if (!db || job.notSaved || job.removed) return;
    const keep = this.keepImages && job.file;
    const record = {
      key: job.key, added: job.added, name: job.name,
      status: job.status === 'done' || job.status === 'failed' || job.status === 'cancelled' ? job.status : 'pending',
      result: job.status === 'done' ? job.result : null, error: job.error ?? null,
      file: keep ? job.file : null, previews: keep && job.previewBlobs.length ? job.previewBlobs : null,
    };
    try {
      await db.put(STORE, record);
    } catch (e) {
      if (e?.name !== 'QuotaExceededError') throw e;
      // The stored copy goes first: it frees its space (e.g. the pending record with its image), and a finished
      // item must never come back after a reload as the unfinished one it replaced. Then the text alone.
      await db.delete(STORE, record.key).catch(() => {});
      try {
        await db.put(STORE, { ...record, file: null, previews: null });
        if (keep) this.onNotice(`Storage is full: ${job.name}'s text is kept in history, its image is not. OCR goes on.`);
        return;
      } catch (e2) {
        if (e2?.name !== 'QuotaExceededError') throw e2;
      }
      this.onNotice(`Storage is full: ${job.name} is not kept in history. OCR goes on; Clear history makes room.`);
    }
  }

  async remove(job) {
    const db = await this.db;
    if (db) await db.delete(STORE, job.key);
  }

  /** Re-save every job (after "Keep images in history" changed: adds or drops the stored images). */
  async saveAll(jobs) {
    for (const job of jobs) await this.save(job);
  }

  async clear() {
    const db = await this.db;
    if (db) await db.clear(STORE);
  }
}

/** A fresh key for a job's record (unique across reloads). */
export function newKey() {
  return crypto.randomUUID?.() ?? `${Date.now()}-${Math.random().toString(36).slice(2)}`;
}
