// Types of the <retto-ocr> element (web/src/component/retto-ocr.js), shipped as dist/retto-ocr.d.ts beside
// dist/retto-ocr.js. Importing the module defines the element and also exports the client (dist/retto.d.ts).
import type { BackendName, DocumentRecord, EngineInfo, ExportFormat, OcrResult, PageResult, ProgressEvent,
  RettoErrorCode } from './retto.js';

export * from './retto.js';

/** retto-error's detail: a code (see RettoErrorCode), the technical message, and plain-words title and advice. */
export interface RettoOcrErrorDetail {
  code: RettoErrorCode;
  message: string;
  title: string;
  advice: string;
  /** A PDF page that failed (the other pages still give retto-result). */
  page?: number;
  /** fetch_failed: the HTTP status of the download (0: a network error). */
  status?: number;
}

/** retto-progress's detail: the engine's progress, or {stage: 'ready', info} once the engine has booted. */
export type RettoOcrProgressDetail = ProgressEvent | { stage: 'ready'; info: EngineInfo };

/** retto-result's detail: an image's result, or for a PDF one event per page with that page's result. */
export type RettoOcrResultDetail = OcrResult | PageResult;

export interface RettoOcrEventMap {
  'retto-progress': CustomEvent<RettoOcrProgressDetail>;
  'retto-result': CustomEvent<RettoOcrResultDetail>;
  'retto-error': CustomEvent<RettoOcrErrorDetail>;
}

export class RettoOcrElement extends HTMLElement {
  static readonly observedAttributes: string[];
  /** Attribute src: an image or PDF URL, recognised when set. */
  src: string;
  /** Attribute backend (default 'auto'). */
  backend: 'auto' | BackendName;
  /** Attribute models: a model set's name; '' = the build's default set. */
  models: string;
  /** Attribute allow: read only these characters, a class ("digits", "latin", ...) or the characters; '' = all. */
  allow: string;
  /** Attribute block: never read these characters (same forms as allow); '' = none. */
  block: string;
  /** Attribute asset-base (default: assets/ next to retto-ocr.js). */
  assetBase: string;
  /** Attribute show-boxes. */
  showBoxes: boolean;
  /** Attribute fetch-timeout: ms a src/URL download may take (default 30000; past it: fetch_failed). */
  fetchTimeout: number;
  /** Attribute max-bytes: the largest src/URL download (default 200 MB; past it: file_too_large). */
  maxBytes: number;
  /** Attribute allow-cross-origin-redirects: follow a src/URL that redirects to another origin (default: refused). */
  allowCrossOriginRedirects: boolean;
  /** The engine's info once ready, else null. */
  readonly info: EngineInfo | null;
  /** The last result, or null (none yet, or the last input failed). */
  readonly result: OcrResult | DocumentRecord | null;
  /** OCR one image or PDF; a URL is downloaded first (a failed download rejects with code fetch_failed, one over
   *  max-bytes with file_too_large). The newest call wins: an older one still resolves, but never updates the view. */
  recognize(input: Blob | string | URL): Promise<OcrResult | DocumentRecord>;
  /** The last result in one of retto.export's formats ('pdf': a searchable PDF of its input). */
  export(format: ExportFormat): Promise<Blob>;

  addEventListener<K extends keyof RettoOcrEventMap>(type: K,
    listener: (this: RettoOcrElement, ev: RettoOcrEventMap[K]) => unknown, options?: boolean | AddEventListenerOptions): void;
  addEventListener<K extends keyof HTMLElementEventMap>(type: K,
    listener: (this: RettoOcrElement, ev: HTMLElementEventMap[K]) => unknown, options?: boolean | AddEventListenerOptions): void;
  addEventListener(type: string, listener: EventListenerOrEventListenerObject, options?: boolean | AddEventListenerOptions): void;
  removeEventListener<K extends keyof RettoOcrEventMap>(type: K,
    listener: (this: RettoOcrElement, ev: RettoOcrEventMap[K]) => unknown, options?: boolean | EventListenerOptions): void;
  removeEventListener<K extends keyof HTMLElementEventMap>(type: K,
    listener: (this: RettoOcrElement, ev: HTMLElementEventMap[K]) => unknown, options?: boolean | EventListenerOptions): void;
  removeEventListener(type: string, listener: EventListenerOrEventListenerObject, options?: boolean | EventListenerOptions): void;
}

export default RettoOcrElement;

declare global {
  interface HTMLElementTagNameMap { 'retto-ocr': RettoOcrElement }
  // The events bubble and are composed: a host can listen on document too.
  interface HTMLElementEventMap extends RettoOcrEventMap {}
  interface DocumentEventMap extends RettoOcrEventMap {}
}
