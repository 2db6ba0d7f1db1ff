// A host page's TypeScript against the shipped declarations (tests/py/browser/test_types.py runs tsc --strict on it).
// The lines marked @ts-expect-error are misuses: tsc fails if any of them type-checks.
import { Retto, RettoError, defaultPoolSize, type OcrResult, type DocumentRecord } from '../../web/types/retto-ocr.js';

const el = document.querySelector('retto-ocr');
if (el) {
  el.src = 'scan.png';
  el.backend = 'wasm';
  el.showBoxes = true;
  el.addEventListener('retto-result', (e) => {
    const lines: string[] = e.detail.lines.map((l) => l.text);
    console.log(lines.join('\n'), e.detail.timings.total);
  });
  el.addEventListener('retto-error', (e) => {
    const status: number | undefined = e.detail.status;
    console.log(e.detail.code, e.detail.title, e.detail.advice, status);
  });
  el.addEventListener('retto-progress', (e) => {
    if (e.detail.stage === 'ready') console.log(e.detail.info.backend.det);
    else if (e.detail.stage === 'rec') console.log(e.detail.done, e.detail.total);
  });
  void el.recognize(new Blob()).then(async (r: OcrResult | DocumentRecord) => {
    if ('pages' in r) console.log(r.page_count);
    const text: Blob = await el.export('text');
    console.log(r, text.size);
  });
  // @ts-expect-error: not a backend
  el.backend = 'cuda';
  // @ts-expect-error: not an export format
  void el.export('docx');
  // @ts-expect-error: retto-error's detail has no `lines`
  el.addEventListener('retto-error', (e) => console.log(e.detail.lines));
}

const made: HTMLElementTagNameMap['retto-ocr'] = document.createElement('retto-ocr');
made.allow = 'digits';
document.addEventListener('retto-result', (e) => console.log(e.detail.model_set));

async function client(): Promise<void> {
  const ocr = await Retto.create({ models: 'ppocr-v5-mobile', backend: { det: 'webgpu', rec: 'wasm' }, allow: 'digits',
    onProgress: (ev) => console.log(ev.stage) });
  try {
    const r = await ocr.recognize(new ArrayBuffer(8), { signal: new AbortController().signal });
    const blob = await ocr.export(r, 'hocr');
    console.log(blob.type, made.tagName);
  } catch (e) {
    if (e instanceof RettoError && e.code === 'aborted') return;
    throw e;
  } finally {
    ocr.terminate();
  }
  // @ts-expect-error: recognize() takes bytes or a Blob, not a path
  await ocr.recognize('scan.png');
}
void client;

async function pool(): Promise<void> {
  const p = await Retto.createPool({ workers: 2, backend: 'wasm' });
  const all: Array<OcrResult | DocumentRecord> = await p.recognizeAll([new Blob(), new ArrayBuffer(8)]);
  console.log(all.length, p.size, defaultPoolSize({ cores: 4, memoryGB: 8 }));
  // @ts-expect-error: workers is a number
  await Retto.createPool({ workers: 'two' });
  p.terminate();
}
void pool;
