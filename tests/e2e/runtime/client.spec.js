// The main-thread client API: progress, input types, queueing, cancel, crash replacement, terminate.
import { join } from 'node:path';
import { DATA, expect, runNative, test } from '../fixtures.js';

// The first test counts a first visit's bytes, so it starts from an empty profile; the others from the warm one.
test.describe('a first visit', () => {
  test.use({ warm: false });

  test('progress events, every input type, concurrent calls queued not interleaved', async ({ app }) => {
    // The native side of the last part (the PDF fixtures, then the CLI on its three inputs), while the browser boots
    // and reads: as `retto --allow digits --text-layer auto` reads each input (one run for the three, a record each).
    const NATIVE_INPUTS = ['baiona.png', 'pdf/text.pdf', 'pdf/stamped.pdf'];
    const madePdfs = runNative([join('tests', 'e2e', 'make_pdfs.py'), join(DATA, 'pdf')]);
    const nativeOut = madePdfs.then(() => runNative(['-m', 'retto', '--inputs', ...NATIVE_INPUTS.map((p) => join(DATA, p)),
      '--allow', 'digits', '--text-layer', 'auto', '--no-progress', '--threads', '1'])).then(JSON.parse);
    await app.open();
    const fetched = new Set(); // every asset the page and its workers asked for while booting (the network's view)
    const onRequest = (r) => {
      const path = new URL(r.url()).pathname;
      if (path.startsWith('/assets/')) fetched.add(path.slice('/assets/'.length));
    };
    app.context.on('request', onRequest);
    const boot = await app.page.evaluate(async () => {
      const events = [];
      window.ocr = await window.Retto.create({ backend: 'wasm', onProgress: (e) => events.push(e) });
      return events;
    });
    app.context.off('request', onRequest);
    const loads = boot.filter((e) => e.stage === 'load');
    expect(loads.length).toBeGreaterThan(3);
    // The total is known from the first event on and never changes; it is exactly the bytes of every asset the
    // network saw requested (the asset manifest's sizes; the manifest's own length as the page receives it), so
    // the onnxruntime wasm and Pyodide's files are in it, and nothing that was not fetched.
    const { manifest, manifestBytes } = await app.page.evaluate(async () => {
      const bytes = await (await fetch('/assets/manifest.json')).arrayBuffer();
      return { manifest: JSON.parse(new TextDecoder().decode(bytes)), manifestBytes: bytes.byteLength };
    });
    expect(fetched.has('ort/ort-wasm-simd-threaded.wasm')).toBe(true);
    expect([...fetched].filter((f) => /jsep/.test(f)), 'the WebGPU (JSEP) build is not fetched for wasm').toEqual([]);
    const fetchedBytes = [...fetched].reduce((a, f) => a + (f === 'manifest.json' ? manifestBytes : manifest.files[f].size), 0);
    expect(new Set(loads.map((e) => e.total))).toEqual(new Set([fetchedBytes]));
    // Only forward: bytes, then the start-up steps; it ends full, with every step done.
    for (let i = 1; i < loads.length; i++) {
      expect(loads[i].loaded).toBeGreaterThanOrEqual(loads[i - 1].loaded);
      expect(loads[i].steps.done).toBeGreaterThanOrEqual(loads[i - 1].steps.done);
      if (loads[i - 1].phase === 'start') expect(loads[i].phase).toBe('start');
    }
    expect(loads.at(-1)).toMatchObject({ loaded: fetchedBytes, phase: 'start' });
    expect(loads.at(-1).steps.done).toBe(loads.at(-1).steps.total);
    expect(loads[0].phase).toBe('download');

    const out = await app.page.evaluate(async () => {
      const bytes = await (await fetch('/__testdata__/baiona.png')).arrayBuffer();
      const blob = new Blob([bytes], { type: 'image/png' });
      const inputs = {
        arrayBuffer: bytes,
        blob,
        file: new File([bytes], 'baiona.png', { type: 'image/png' }),
        bitmap: await createImageBitmap(blob, { colorSpaceConversion: 'none', premultiplyAlpha: 'none' }),
        uint8: new Uint8Array(bytes),
      };
      const log = [];
      // All started at once: the client must run them one after another.
      const runs = Object.entries(inputs).map(([kind, input]) => window.ocr.recognize(input, {
        onProgress: (e) => log.push([kind, e.stage, e]),
      }).then((r) => ({ kind, texts: r.lines.map((l) => l.text), boxes: r.lines.map((l) => l.box) })));
      const results = await Promise.all(runs);
      return { results, log, callerBufferIntact: bytes.byteLength };
    });
    expect(out.callerBufferIntact).toBeGreaterThan(100000); // the caller's ArrayBuffer was not detached
    const base = out.results[0];
    expect(base.texts.length).toBeGreaterThanOrEqual(15);
    for (const r of out.results) expect(r.texts, r.kind).toEqual(base.texts);
    // never interleaved: once a call's events start, the previous call's are over
    const order = out.log.map(([kind]) => kind);
    const seen = [];
    for (const k of order) if (seen.at(-1) !== k) seen.push(k);
    expect(seen).toEqual(['arrayBuffer', 'blob', 'file', 'bitmap', 'uint8']);
    // per-stage progress with counts
    const first = out.log.filter(([kind]) => kind === 'arrayBuffer').map(([, stage, e]) => [stage, e]);
    const stages = first.map(([s]) => s);
    expect(stages[0]).toBe('decode');
    expect(stages.at(-1)).toBe('done');
    const det = first.find(([s]) => s === 'det')[1];
    expect(det.boxes).toBeGreaterThanOrEqual(base.texts.length);
    const recs = first.filter(([s]) => s === 'rec').map(([, e]) => e);
    expect(recs.at(-1)).toMatchObject({ done: det.boxes, total: det.boxes });
    expect(first.filter(([s]) => s === 'cls').at(-1)[1]).toMatchObject({ done: det.boxes, total: det.boxes });

    // A second engine, with allow: 'digits' (config.rec.allow) and document.text_layer 'auto': an image reads only
    // digits; a text PDF gives its own words (source text, no OCR, so no digit filter either); a scan stamped with
    // one line of text is read by OCR. Each as `retto --allow digits --text-layer auto` reads it, boxes within 1 pt.
    await madePdfs;
    const both = await app.page.evaluate(async () => {
      const o = await window.Retto.create({ backend: 'wasm', allow: 'digits', config: { document: { text_layer: 'auto' } } });
      const read = async (path) => o.recognize(await (await fetch(`/__testdata__/${path}`)).arrayBuffer());
      const image = await read('baiona.png');
      const text = await read('pdf/text.pdf');
      const stamped = await read('pdf/stamped.pdf');
      o.terminate();
      return { digits: image.lines.map((l) => [l.text, l.box]), text: text.pages[0], stamped: stamped.pages[0] };
    });
    const digits = both.digits;
    const nativeRecords = await nativeOut;
    expect(nativeRecords.map((r) => r.path)).toEqual(NATIVE_INPUTS.map((p) => join(DATA, p)));
    const native = nativeRecords[0].lines.map((l) => [l.text, l.box]);
    const [nativeText, nativeStamped] = [nativeRecords[1].pages[0], nativeRecords[2].pages[0]];
    expect([both.text.source, nativeText.source, both.stamped.source, nativeStamped.source]).toEqual(['text', 'text', 'ocr', 'ocr']);
    expect(both.text.lines.map((l) => l.text)).toEqual(['Invoice 2026-114 for the garden works',
      'Total due: 1,250.00 EUR by 31 March', 'Thank you for your business.']);
    const words = (page) => page.lines.flatMap((l) => l.words.map((w) => [w.text, w.box.flat().map((v) => v * 72 / page.dpi)]));
    const [ours, theirs] = [words(both.text), words(nativeText)];
    expect(ours.map(([t]) => t)).toEqual(theirs.map(([t]) => t));
    ours.forEach(([t, box], i) => box.forEach((v, k) => expect(Math.abs(v - theirs[i][1][k]), `${t} ${k}: ${box} vs ${theirs[i][1]}`).toBeLessThanOrEqual(1)));
    // The stamped scan's picture is scaled into its page, which pdf.js and PDFium resample differently, so its OCR
    // text may differ by a character (pdf.spec.js compares OCR of 1:1 pages exactly). Both read the stamp by OCR,
    // through the digit filter: its date as digits alone, not the text layer's "Received 2026-03-01".
    for (const p of [both.stamped, nativeStamped]) expect(p.lines.map((l) => l.text.trim())).toContain('20260301');
    expect(digits.every(([t]) => /^[0-9 ]*$/.test(t))).toBe(true);
    expect(digits.some(([t]) => /[0-9]{4}/.test(t))).toBe(true);
    expect(digits.map(([t]) => t)).toEqual(native.map(([t]) => t));
    for (const [i, [, box]] of digits.entries()) {
      box.forEach(([x, y], k) => {
        expect(Math.abs(x - native[i][1][k][0])).toBeLessThanOrEqual(1);
        expect(Math.abs(y - native[i][1][k][1])).toBeLessThanOrEqual(1);
      });
    }
  });
});

test('AbortSignal cancels (running and queued), and the next call works', async ({ app }) => {
  await app.open();
  await app.create({ backend: 'wasm' });
  const out = await app.page.evaluate(async () => {
    const get = async (n) => (await fetch(`/__testdata__/${n}`)).arrayBuffer();
    const [linn, baiona] = [await get('linn.png'), await get('baiona.png')];
    const codeOf = (p) => p.then(() => 'resolved', (e) => e.code);
    // 1. already aborted
    const pre = await codeOf(window.ocr.recognize(baiona, { signal: AbortSignal.abort() }));
    // 2. abort while running (after detection reported) and a queued call aborted before it starts
    const running = new AbortController();
    const queued = new AbortController();
    let t;
    const a = codeOf(window.ocr.recognize(linn, { signal: running.signal, onProgress: (e) => {
      if (e.stage === 'det' && !running.signal.aborted) { t = performance.now(); running.abort(); }
    } }));
    const b = codeOf(window.ocr.recognize(baiona, { signal: queued.signal }));
    queued.abort();
    const [ra, rb] = await Promise.all([a, b]);
    const rejectMs = performance.now() - t;
    // 3. the queue carries on with a correct result
    const after = await window.ocr.recognize(baiona);
    return { pre, ra, rb, rejectMs, afterLines: after.lines.length };
  });
  expect(out.pre).toBe('aborted');
  expect(out.ra).toBe('aborted');
  expect(out.rb).toBe('aborted');
  expect(out.rejectMs).toBeLessThan(1000); // the caller hears at once, not after linn finishes
  expect(out.afterLines).toBeGreaterThanOrEqual(15);
});

test('a crashed worker is replaced and the next call works; terminate ends the instance', async ({ app }) => {
  await app.open();
  await app.create({ backend: 'wasm' });
  const out = await app.page.evaluate(async () => {
    const bytes = await (await fetch('/__testdata__/baiona.png')).arrayBuffer();
    await window.ocr.evalPython('import builtins\nbuiltins._marker = 1');
    const firstWorker = window.ocr.handle.worker;
    // crash while a call is in flight
    const inflight = window.ocr.recognize(bytes).then(() => 'resolved', (e) => e.code);
    await new Promise((r) => setTimeout(r, 50));
    window.ocr.simulateCrash();
    const inflightCode = await inflight;
    const next = await window.ocr.recognize(bytes);
    const replaced = window.ocr.handle.worker !== firstWorker;
    const markerGone = await window.ocr.evalPython("import builtins\nhasattr(builtins, '_marker')");
    const invalid = await window.ocr.recognize('not an image').then(() => 'resolved', (e) => e.code);
    // terminate() while a call that already has its worker is still reading its input: that call, too, ends as
    // 'terminated' (the page re-runs such a job on the new engine; a 'worker_crashed' there would fail it).
    let release;
    const slow = new Blob([bytes]);
    slow.arrayBuffer = () => new Promise((r) => { release = () => r(bytes.slice(0)); });
    const cutOff = window.ocr.recognize(slow).then(() => 'resolved', (e) => e.code);
    while (!release) await new Promise((r) => setTimeout(r, 5));
    window.ocr.terminate();
    release();
    const cutOffCode = await cutOff;
    const afterTerminate = await window.ocr.recognize(bytes).then(() => 'resolved', (e) => e.code);
    return { inflightCode, nextLines: next.lines.length, replaced, markerGone, invalid, cutOffCode, afterTerminate };
  });
  expect(out.inflightCode).toBe('worker_crashed');
  expect(out.replaced).toBe(true);
  expect(out.markerGone).toBe(false); // a fresh interpreter
  expect(out.nextLines).toBeGreaterThanOrEqual(15);
  expect(out.invalid).toBe('invalid_image');
  expect(out.cutOffCode).toBe('terminated');
  expect(out.afterTerminate).toBe('terminated');
});
