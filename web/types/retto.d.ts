// Types of the Retto OCR client (web/src/client/retto.js), shipped as dist/retto.d.ts. The client is exported
// by dist/retto-ocr.js: `import { Retto } from './retto-ocr.js'`. Shapes follow docs/CONTRACT.md.

export type BackendName = 'wasm' | 'webgpu' | 'webgl';
export type BackendChoice = 'auto' | BackendName | { det?: 'auto' | BackendName; cls?: 'auto' | BackendName; rec?: 'auto' | BackendName };
/** The models every set has (retto.models.sets.ROLES). */
export type ModelRole = 'det' | 'cls' | 'rec';
/** The models a set may add (retto.models.sets.OPTIONAL_ROLES): page orientation, the re-reading recogniser, page
 *  regions, table structure. In the browser they run on wasm; a result names those that the set has. */
export type OptionalModelRole = 'orient' | 'reread' | 'layout' | 'table';
/** What ran each model of a result: every ModelRole, and each optional model of the set. */
export type ModelRecord<T> = Record<ModelRole, T> & Partial<Record<OptionalModelRole, T>>;

/** Error codes of RettoError and of <retto-ocr>'s retto-error events. */
export type RettoErrorCode =
  | 'invalid_image' | 'image_too_large' | 'model_integrity' | 'model_missing' | 'backend_unavailable'
  | 'inference_failed' | 'invalid_config' | 'aborted' | 'worker_crashed' | 'worker_load_failed' | 'terminated'
  | 'internal_error' | 'file_too_large' | 'pdf_encrypted' | 'pdf_invalid' | 'pdf_empty' | 'pdf_too_many_pages'
  | 'pdf_page_too_complex' | 'pdf_page_unmeasured' // a PDF page's own error (PageError), the other pages go on
  | 'fetch_failed'; // <retto-ocr> only: a src/URL that could not be downloaded

export class RettoError extends Error {
  constructor(code: RettoErrorCode, message: string);
  readonly name: 'RettoError';
  code: RettoErrorCode;
}

/** A point [x, y] in the pixels of the image as given; a box is 4 of them (tl, tr, br, bl of the upright text). */
export type Point = [number, number];
export type Quad = [Point, Point, Point, Point];

export interface OcrWord { text: string; box: Quad; score: number }
export interface OcrLine { box: Quad; text: string; score: number; angle: 0 | 180; words: OcrWord[] }
/** type and table: only with page regions on (config layout.regions); table: index into `tables`. */
export interface OcrBlock { box: Quad; lines: number[]; type?: RegionType; table?: number }
export type RegionType = 'text' | 'title' | 'figure' | 'figure_caption' | 'table' | 'table_caption' | 'header'
  | 'footer' | 'reference' | 'equation';
/** A page region (config layout.regions): its lines are indexes into `lines`. */
export interface OcrRegion { type: RegionType; score: number; box: Quad; lines: number[] }
export interface OcrCell { row: number; col: number; row_span: number; col_span: number; box: Quad; text: string }
/** A table (config layout.tables): its grid, cells in row-major order; block: index into `blocks`. */
export interface OcrTable { box: Quad; rows: number; cols: number; block: number | null; cells: OcrCell[] }

/** One image's result: the same JSON as native `result.to_dict()` (docs/CONTRACT.md). Times in ms. */
export interface OcrResult {
  image: { width: number; height: number };
  page_angle: 0 | 90 | 180 | 270;
  /** The evidence for page_angle, 0..1; null when the page's orientation was not checked. */
  page_angle_confidence: number | null;
  lines: OcrLine[];
  blocks: OcrBlock[];
  regions: OcrRegion[];
  tables: OcrTable[];
  /** Each stage's wall time (the stages the config ran) and each model's inference time (infer). */
  timings: { decode: number; det: number; cls: number; rec: number; total: number;
    infer: ModelRecord<number>; orientation?: number; stacks?: number; flip_check?: number; reread?: number;
    layout?: number; regions?: number; script_check?: number };
  backend: ModelRecord<string>;
  model_set: string;
  versions: Record<string, string>;
  warnings: string[];
}

/** A PDF page that was read: its result, its number (from 1), the DPI it was rendered at and where its text came
 *  from: "ocr" (read from the rendered page) or "text" (the PDF's own text layer, config document.text_layer). */
export interface PageResult extends OcrResult { page: number; dpi: number; source: 'ocr' | 'text' }
export interface PageError { page: number; error: { code: RettoErrorCode; message: string } }

/** What recognize() resolves with for a PDF (bytes starting with %PDF-). */
export interface DocumentRecord {
  path: string;
  kind: 'pdf';
  page_count: number;
  pages: Array<PageResult | PageError>;
  warnings?: string[];
}

export type ProgressEvent =
  | { stage: 'load'; phase: 'download' | 'start'; file?: string; loaded: number; total: number;
      steps: { done: number; total: number; last?: string } }
  | { stage: 'decode'; page?: number; pageCount?: number }
  | { stage: 'det'; boxes: number; page_angle?: number; page?: number; pageCount?: number }
  | { stage: 'cls' | 'rec'; done: number; total: number; page?: number; pageCount?: number }
  | { stage: 'page'; page: number; pageCount: number };

/** What runs each model and why (ocr.info); more fields exist for diagnostics. */
export interface EngineInfo {
  backend: Record<ModelRole, string>;
  modelSet?: { name: string; label?: string; [k: string]: unknown };
  wasm?: { threads: number; crossOriginIsolated: boolean; threadsReason?: string; [k: string]: unknown };
  warnings?: string[];
  heapBytes?: number;
  [k: string]: unknown;
}

export interface ModelSetSummary {
  name: string; label: string; summary: string; languages: string[]; bytes: number; default: boolean;
  webgl: unknown; order: number;
}

export interface CreateOptions {
  /** A model set's name, e.g. "ppocr-v5-mobile"; default: the build's default set. */
  models?: string;
  backend?: BackendChoice;
  /** The CLI's --config: section -> option -> value, e.g. {det: {box_thresh: 0.6}}. */
  config?: Record<string, Record<string, unknown>>;
  /** Read only these characters (config.rec.allow): a class ("digits", "latin", "uppercase", "lowercase",
   *  "punctuation", "symbols", "han", "kana", "hangul", "space"), the characters themselves, or a list of both. */
  allow?: string | string[];
  /** Never read these characters (config.rec.block), same forms as allow. */
  block?: string | string[];
  /** Where assets/ is (default: assets/ under the page's base URL). */
  assetBase?: string | URL;
  onProgress?: (event: ProgressEvent) => void;
  threads?: number;
  watchdogMs?: number;
  recycleHeapBytes?: number;
  idleRecycleBytes?: number;
  abortGraceMs?: number;
}

export type RecognizeInput = Blob | ImageBitmap | ArrayBuffer | ArrayBufferView;

export interface PageEvent { page: number; pageCount: number; record: PageResult | PageError; preview: Blob | null }

export interface RecognizeOptions {
  signal?: AbortSignal;
  onProgress?: (event: ProgressEvent) => void;
  onPage?: (page: PageEvent) => void;
  /** A PDF record's `path` (default: the File's name). */
  name?: string;
  /** A PDF: read only these page numbers (from 1; numbers past the end are ignored). The pool splits a PDF so. */
  pages?: number[];
}

/** retto.export's formats (`retto --format`); the table_* ones render one table of a record ({ table: index }). */
export type ExportFormat = 'json' | 'jsonl' | 'text' | 'plain' | 'tsv' | 'md' | 'hocr' | 'alto' | 'pdf'
  | 'table_csv' | 'table_tsv' | 'table_md' | 'table_xlsx';
export type ExportRecord = (OcrResult & { path?: string }) | DocumentRecord;

/** Each format's Blob type, file extension and whether it is one table's (generated from retto.export). */
export const EXPORT_FORMATS: Readonly<Record<ExportFormat, { type: string; ext: string; table: boolean }>>;

export interface PoolOptions extends CreateOptions {
  /** Workers (default: defaultPoolSize()). `threads` defaults to cores / workers (at least 1) for each. */
  workers?: number;
}

/** Workers for a machine: one per core, at most one per 1.5 GB of memory, at least 1 (defaults: navigator's). */
export function defaultPoolSize(machine?: { cores?: number; memoryGB?: number }): number;

/** Several workers reading files and a PDF's pages in parallel; results as one Retto's, in the same order. */
export class RettoPool {
  readonly size: number;
  readonly info: EngineInfo;
  recognize(input: RecognizeInput, options?: RecognizeOptions): Promise<OcrResult | DocumentRecord>;
  /** Every input, spread over the workers; results in the order given (rejects with the first error). */
  recognizeAll(inputs: Iterable<RecognizeInput>, options?: RecognizeOptions): Promise<Array<OcrResult | DocumentRecord>>;
  export(record: ExportRecord | ExportRecord[], format: ExportFormat,
    options?: { source?: Blob | ArrayBuffer; sources?: Array<Blob | ArrayBuffer | null>; name?: string; table?: number }): Promise<Blob>;
  terminate(): void;
}

export class Retto {
  /** Boots a worker (Pyodide + onnxruntime-web + models); resolves when it can recognize. */
  static create(options?: CreateOptions): Promise<Retto>;
  /** Boots a pool of workers (see RettoPool). */
  static createPool(options?: PoolOptions): Promise<RettoPool>;
  static modelSets(options?: { assetBase?: string | URL }): Promise<ModelSetSummary[]>;
  readonly info: EngineInfo;
  readonly boots: number;
  recognize(input: RecognizeInput, options?: RecognizeOptions): Promise<OcrResult | DocumentRecord>;
  /** The bytes `retto --format <format>` writes, as a Blob; 'pdf' needs the input as `source` (or `sources`). */
  export(record: ExportRecord | ExportRecord[], format: ExportFormat,
    options?: { source?: Blob | ArrayBuffer; sources?: Array<Blob | ArrayBuffer | null>; name?: string; table?: number }): Promise<Blob>;
  terminate(): void;
}

export default Retto;
