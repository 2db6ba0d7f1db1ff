"""Browser runtime glue: the Worker protocol (det/cls/rec) over onnxruntime-web, for py/retto in Pyodide.

The JS side (web/src/worker/ort_bridge.js) owns the onnxruntime-web sessions; tensors cross as typed arrays
through the buffer protocol (one bulk copy each way, no per-element conversion). This is the only module of
retto that imports pyodide; natively it is never imported."""
from __future__ import annotations

import gc
import json
import time

import numpy as np
from pyodide.ffi import JsException, to_js

from retto.errors import INFERENCE_FAILED, INVALID_IMAGE, RettoError
from retto.io.image import check_size
from retto.models.sets import LINE_ROLE

ABORTED = "aborted"  # browser-only code: the caller cancelled (AbortSignal)


class BridgeWorker:
    """Worker protocol over a JS object whose async `run(name, array, dims, wasm)` returns {data, dims}.
    wasm=True: always the model's wasm session (the fallback for inputs beyond the WebGL buckets)."""

    def __init__(self, js_models, wasm: bool = False, roles=("det", "cls", "rec"), line_reader=None):
        self._js = js_models
        self._lines = line_reader   # a Tesseract set's line_rec (web/src/worker/line_reader.js), or None
        self._wasm = wasm
        self.roles = set(roles)   # the models JS can run: det/cls/rec, and the set's optional ones (on wasm)
        self.name = "wasm" if wasm else "the browser backend"
        self.copy_out_ms = 0.0
        self.fallback: BridgeWorker | None = None   # set by create_session when some model runs on WebGL
        self.buckets = None                          # ... with the BucketWorker in front of this worker

    async def run(self, role: str, x):
        if role == LINE_ROLE:
            return self._read_line(x)
        return await self._run(role, x)   # very long rec lines come in windows (Pipeline.infer_best)

    def _read_line(self, x) -> dict:
        """line_rec: (a uint8 grey [H, W] line, mode "line" or "raw") to the wasm Tesseract, its {"text", "words"}
        back (the native engine's shape, native/tesseract_lines.py)."""
        if self._lines is None:
            raise RettoError(INFERENCE_FAILED, "this model set has no line recogniser in the browser")
        grey, mode = x
        grey = np.ascontiguousarray(grey, dtype=np.uint8)
        try:
            return json.loads(self._lines.read(to_js(grey.tobytes()), grey.shape[0], grey.shape[1], mode))
        except JsException as e:
            raise RettoError(INFERENCE_FAILED, f"Tesseract (wasm) failed on a {list(grey.shape)} line: {e}") from None

    async def run_all(self, role: str, x) -> list:
        """Every output of a model with several (layout, table), in the model's order."""
        return await self._run(role, x, every=True)

    async def det(self, x):
        return await self._run("det", x)

    async def cls(self, x):
        return await self._run("cls", x)

    async def rec(self, x):
        return await self.run("rec", x)

    async def _run(self, name: str, x, every: bool = False):
        x = np.ascontiguousarray(x, dtype=np.float32)
        dims = to_js(list(x.shape))
        try:
            # Make the session first: a new WebGL bucket is stamped by Python (retto.models.onnx_stamp), which can grow
            # the wasm heap and so detach any typed-array view of x taken before ("Input dims doesn't match
            # data length" on the first image of each bucket). prepare() returns None when nothing is to be made.
            ready = self._js.prepare(name, dims, self._wasm)
            if ready is not None:
                await ready
            # JS reads x through getBuffer() before its first await, so the borrowed proxy is enough.
            res = await self._js.run(name, x, dims, self._wasm)
        except JsException as e:
            raise _js_error(e) from None
        t0 = time.perf_counter()
        outs = [self._copy_out(o) for o in res.outputs] if every else self._copy_out(res)
        self.copy_out_ms += (time.perf_counter() - t0) * 1000.0
        return outs

    @staticmethod
    def _copy_out(res) -> np.ndarray:
        out = np.empty(tuple(res.dims.to_py()), dtype=np.float32)
        res.data.assign_to(out)  # one memcpy from the JS Float32Array into numpy
        return out


def bucket_ladder(worker: BridgeWorker) -> str:
    """JSON: the det sides and cls/rec batches the session's BucketWorker uses (create_session): {det_sides,
    batches: {cls, rec}}, or null without one."""
    b = worker.buckets
    return json.dumps(None if b is None else {"det_sides": list(b.det_sides), "batches": b.batches})


def _js_error(e: JsException) -> RettoError:
    name = getattr(e, "name", "") or ""
    msg = str(e)
    if name == "AbortError" or msg.startswith("AbortError"):
        return RettoError(ABORTED, "recognition was cancelled")
    return RettoError(INFERENCE_FAILED, f"onnxruntime-web failed: {msg}")


def create_session(js_models, set_json: str, rec_model, dictionary, backend_json: str, versions_json: str,
                   extra_json: str = "{}", config_json: str = "{}", reread_dictionary=None, line_reader=None):
    """Build the unchanged retto Session over the bridge, configured like native: the model set (its set file as
    JSON, from the asset manifest) gives the settings and where the dictionary is; config_json is a partial
    Config applied over them (the same overrides `retto --config` takes). rec_model: the rec model bytes (JS
    Uint8Array), read only for a dictionary in its metadata; dictionary: the set's dictionary file (Uint8Array)
    or None. extra_json: {"warnings": [...] (backend choices every result reports), "buckets": {det_sides,
    rec_widths, batch} or null}. Models whose backend is "webgl" run fixed-shape sessions, so they are called
    through a BucketWorker with those buckets, its det sides following the config's det.limit_side_len and its
    cls/rec batches the config's batch sizes (buckets.det_sides_for, batch_for; `bucket_ladder(worker)` tells JS
    which). reread_dictionary: the set's re-reading recogniser's dictionary
    file (Uint8Array) or None; the set's optional models (orient, reread) run on wasm, made by JS on first use.
    A Tesseract set has no rec model (rec_model None) and reads its lines with line_reader (JS LineReader)."""
    from retto.pipeline.session import Session
    from retto.browser.buckets import BucketWorker, batch_for, det_sides_for
    from retto.models.sets import ModelSet

    model_set = ModelSet.from_dict(json.loads(set_json))
    backend = json.loads(backend_json)
    extra = json.loads(extra_json)
    worker = BridgeWorker(js_models, roles=model_set.model_roles, line_reader=line_reader)
    config = model_set.make_config(json.loads(config_json or "{}"))
    fixed = [role for role, name in backend.items() if name == "webgl"]
    inner = worker
    if fixed:
        b = extra["buckets"]
        # Inputs beyond the largest bucket run on the model's wasm session (made by JS on first need).
        worker.fallback = BridgeWorker(js_models, wasm=True)
        inner = worker.buckets = BucketWorker(worker, det_buckets=det_sides_for(config.det, b["det_sides"]),
                                              rec_widths=b["rec_widths"], batch=b["batch"], models=fixed,
                                              fallback=worker.fallback,
                                              batches={"cls": batch_for(config.cls.batch_size, b["batch"]),
                                                       "rec": batch_for(config.rec.batch_size, b["batch"])})
    charset = [] if model_set.line_rec else model_set.charset(
        rec_model.to_bytes(), dictionary.to_bytes() if dictionary is not None else None)
    extra_charsets = {}
    if "reread" in model_set.files:
        extra_charsets["reread"] = model_set.charset(
            b"", reread_dictionary.to_bytes() if reread_dictionary is not None else None, role="reread")
    session = Session(inner, charset=charset, config=config,
                      backend=backend, versions=json.loads(versions_json), warnings=extra.get("warnings") or [],
                      model_set=model_set.name, extra_charsets=extra_charsets)
    return session, worker


def _image_from_js(kind: str, data, width: int, height: int):
    if kind == "bytes":
        return data.to_bytes()
    if kind == "rgba":  # ImageBitmap/ImageData pixels drawn by JS
        buf = np.empty((height, width, 4), dtype=np.uint8)
        data.assign_to(buf)
        if buf[:, :, 3].min(initial=255) == 255:   # opaque: compositing would change nothing
            return np.ascontiguousarray(buf[:, :, :3])
        return buf   # decode() composites RGBA exactly as it does a transparent file (image.paper_colour)
    raise RettoError(INVALID_IMAGE, f"unsupported input kind {kind!r}")


def _counts(info) -> dict:
    """Progress info for JS: scalars only (the stage's partial results stay in Python)."""
    if not isinstance(info, dict):
        return {}
    return {k: v for k, v in info.items() if isinstance(v, (int, float, str, bool))}


def max_pixels(session) -> int:
    """The largest image (in pixels) this session decodes (its config's global.max_pixels)."""
    return int(session.config.global_.max_pixels)


def check_declared_size(session, width: int, height: int) -> str | None:
    """Before JS draws an ImageBitmap to pixels: None, or the image_too_large error JSON for its size."""
    try:
        check_size(int(width), int(height), session.config.global_.max_pixels)
    except RettoError as e:
        return json.dumps(e.to_dict())
    return None


async def _read_image(session, worker: BridgeWorker, image, on_progress) -> dict:
    """One image (bytes or pixels) through the session: its result dict, with this image's WebGL fallback notes
    in its warnings; raises RettoError (a JS failure as its code)."""
    fallback, buckets = worker.fallback, worker.buckets
    for w in (worker, fallback):
        if w is not None:
            w.copy_out_ms = 0.0
    if buckets is not None:
        buckets.fallback_notes.clear()
    try:
        result = (await session.run_async(image, on_progress=on_progress)).to_dict()
    except JsException as e:
        raise _js_error(e) from None
    if buckets is not None and buckets.fallback_notes:
        result["warnings"] += buckets.fallback_notes
    return result


def _copy_out_ms(worker: BridgeWorker) -> float:
    return worker.copy_out_ms + (worker.fallback.copy_out_ms if worker.fallback else 0.0)


async def recognize(session, worker: BridgeWorker, kind: str, data, width: int, height: int,
                    js_progress=None) -> str:
    """Run the pipeline on one image; returns JSON: {"result": to_dict(), "bridge": {...}} or {"error": …}."""
    def on_progress(stage, info=None):
        if js_progress is not None:
            js_progress(stage, json.dumps(_counts(info)))

    image = None
    try:
        image = _image_from_js(kind, data, int(width or 0), int(height or 0))
        out = {"result": await _read_image(session, worker, image, on_progress),
               "bridge": {"copy_out_ms": _copy_out_ms(worker)}}
    except RettoError as e:
        out = e.to_dict()
    except JsException as e:
        out = _js_error(e).to_dict()
    finally:
        # Drop this image's arrays now (the page, its det map, the crops): the wasm heap never shrinks, but
        # freed blocks are reused by the next job instead of growing it further.
        image = None
        gc.collect()
    return json.dumps(out, ensure_ascii=False)


# ---- documents (PDF pages rendered by pdf.js in the worker) and exports ------------------------------------
# The worker opens the PDF with pdf.js and asks here about the whole document (the page budgets, the page
# limit); the page loop itself is retto.io.document.read_pages, the CLI's, driven by read_document below with
# awaits into pdf.js for each page's size, text and pixels.

def is_pdf(head) -> bool:
    """document.is_pdf (the CLI's rule) on an input's first bytes: the worker passes only those, not the file."""
    from retto.io.document import is_pdf as rule
    return rule(head.to_bytes())


def check_page_count(session, page_count: int) -> str | None:
    """None, or the whole-document error JSON ({"error": {code, message}}) for a PDF of page_count pages."""
    from retto.io.document import check_page_count as check
    try:
        check(int(page_count), int(session.config.document.max_pages))
    except RettoError as e:
        return json.dumps(e.to_dict())
    return None


def page_size(session, width_pt: float, height_pt: float) -> str:
    """[dpi_used, width_px, height_px, warning | null]: the one pixel size of a PDF page (document.render_scale),
    shared with the native renderer; or {"error": ...} for a page no DPI can fit (or without a usable size)."""
    from retto.io.document import render_scale
    cfg = session.config
    try:
        dpi, w, h, warning = render_scale(float(width_pt), float(height_pt), int(cfg.document.dpi),
                                          int(cfg.global_.max_pixels))
    except RettoError as e:
        return json.dumps(e.to_dict())
    return json.dumps([dpi, int(w), int(h), warning])


def pdf_limits(session) -> str:
    """What pdf.js is told about the budgets (it skips an image over maxImageSize pixels, and scales down an
    image canvas over canvasMaxAreaInBytes): the numbers retto.io.pdf_guard checks first, so they only back it up."""
    cfg = session.config
    return json.dumps({"maxImageSize": int(cfg.document.max_image_pixels),
                       "canvasMaxAreaInBytes": int(cfg.global_.max_pixels) * 4})


def pdf_guard(session, data):
    """The document's page budgets (retto.io.pdf_guard.PageGuard over a copy of its bytes), made before pdf.js takes
    the buffer; read_document asks it about each page before the page is drawn."""
    from retto.io.pdf_guard import PageGuard
    return PageGuard(data.to_bytes() if hasattr(data, "to_bytes") else bytes(data), session.config.document)


def pdf_document_check(guard, page_count: int) -> str:
    """Before any page: {"error": ...} when the document is refused whole (its structure past pypdf's safety
    limits), else {"page_count": n}: pdf.js's count, or fewer when the page tree really holds fewer."""
    if guard.refusal:
        return json.dumps(guard.refusal.to_dict())
    return json.dumps({"page_count": guard.page_count(int(page_count))})


def pdf_open_error(guard, code: str, message: str) -> str:
    """The error JSON for a PDF pdf.js could not open (pdf_encrypted for an encryption scheme it does not know,
    as natively)."""
    return json.dumps(guard.open_error(str(code), str(message)).to_dict())


def _js_answer(res):
    """A hook's answer: its value, or the RettoError of the {error: {code, message}} it returned instead."""
    error = getattr(res, "error", None)
    if error is not None:
        return RettoError(str(error.code), str(error.message))
    return res


class _PdfJsPages:
    """The browser's renderer for read_pages: each page measured by pdf.js (`hooks.pageSize(n)` -> {widthPt,
    heightPt}), sized by document.render_scale, its text taken (`hooks.pageText(n)` -> JSON of {items, images})
    unless the config reads by OCR only, and drawn (`hooks.renderPage(n, width, height)` -> {rgba}). Each hook
    returns {error: {code, message}} instead of throwing: a coded error is the page's, any other means pdf.js
    failed on the page (pdf_invalid)."""

    def __init__(self, session, guard, hooks):
        self.session, self.guard, self.hooks = session, guard, hooks

    async def render(self, page_no: int):
        from retto.io.document import render_scale
        cfg = self.session.config
        warning = None
        try:
            over = self.guard.check(page_no - 1)
            if over is not None:
                raise over
            size = _js_answer(await self.hooks.pageSize(page_no))
            if isinstance(size, RettoError):
                raise size
            width_pt, height_pt = float(size.widthPt), float(size.heightPt)
            dpi, width, height, warning = render_scale(width_pt, height_pt, int(cfg.document.dpi),
                                                       int(cfg.global_.max_pixels))
            text = None
            if cfg.document.text_layer != "ocr":
                got = _js_answer(await self.hooks.pageText(page_no))
                if isinstance(got, RettoError):
                    raise got
                got = json.loads(str(got))
                text = (got["items"], got["images"], width_pt, height_pt)
            drawn = _js_answer(await self.hooks.renderPage(page_no, int(width), int(height)))
            if isinstance(drawn, RettoError):
                raise drawn
            rgb = _image_from_js("rgba", drawn.rgba, int(width), int(height))
            drawn = None
            return rgb, int(dpi), warning, text
        except RettoError as err:
            if err.code != "internal_error":
                return err, None, warning, None
            message = err.message
        except Exception as exc:   # a JS exception a hook let through: pdf.js failed on this page
            message = str(exc)
        return RettoError("pdf_invalid", f"page {page_no} could not be rendered: {message}"), None, warning, None


async def read_document(session, worker: BridgeWorker, guard, page_count: int, name: str, pages_json: str,
                        hooks) -> str:
    """A PDF's pages through the shared page loop (retto.io.document.read_pages); returns JSON: {"result":
    document record} or {"error": ...} (the document ended: aborted). hooks (JS): pageStart(n, count) -> true when
    cancelled (it tells the page the page began); progress(stage, info_json, n, count); pageDone(n, count,
    record_json) (the page's record, as soon as it is done); and the renderer's (_PdfJsPages). pages_json: the
    page numbers to read (null: all)."""
    from retto.io.document import read_pages
    only = json.loads(pages_json)

    def on_start(page_no, count):
        if hooks.pageStart(page_no, count):
            raise RettoError(ABORTED, "recognition was cancelled")

    async def read(rgb, page_no):
        def on_progress(stage, info=None):
            hooks.progress(stage, json.dumps(_counts(info)), page_no, int(page_count))
        try:
            return await _read_image(session, worker, rgb, on_progress)
        finally:
            gc.collect()

    def on_page(page_no, count, record, _ms):
        hooks.pageDone(page_no, count, json.dumps(record, ensure_ascii=False))

    try:
        record = await read_pages(int(page_count), _PdfJsPages(session, guard, hooks).render, read,
                                  path=str(name), pages=None if only is None else {int(n) for n in only},
                                  text_mode=session.config.document.text_layer, on_start=on_start,
                                  on_page=on_page, fatal=(ABORTED,))
        out = {"result": record}
    except RettoError as e:
        out = e.to_dict()
    finally:
        gc.collect()
    return json.dumps(out, ensure_ascii=False)


def export_text(record_json: str, fmt: str, name=None) -> str:
    """One record (image result + path, document record, or error record) in a text format (retto.export), as
    the file the CLI writes with --output (the same text and its final newline)."""
    from retto import export
    return export.render(json.loads(record_json), str(fmt), None if name is None else str(name)) + "\n"


def export_table(record_json: str, fmt: str, index: int):
    """Table `index` of a record in a table format (retto.export.render_table): text (csv, tsv, md) or the bytes
    of a one-sheet XLSX workbook (table_xlsx; XlsxWriter is installed by the worker before it asks)."""
    from retto import export
    return export.render_table(json.loads(record_json), str(fmt), int(index))


def encode_page_jpeg(rgba, width: int, height: int) -> bytes:
    """A rendered PDF page (RGBA from pdf.js, opaque) as the searchable PDF's picture: JPEG, encoded by the same
    retto.export.pdf.encode_page (and quality) the CLI uses."""
    _allow_fpdf_import()
    from retto.export.pdf import encode_page
    buf = np.empty((int(height), int(width), 4), dtype=np.uint8)
    rgba.assign_to(buf)
    try:
        return encode_page(np.ascontiguousarray(buf[:, :, :3]))
    finally:
        buf = None


def _allow_fpdf_import() -> None:
    """fpdf2 imports urllib.request.HTTPSHandler and subclasses http.client.HTTPSConnection (to fetch images by
    URL, which retto never asks it to), and Pyodide's Python has no ssl module, so both names are missing there.
    Stand-ins that can open nothing let the import succeed; any https fetch would still fail (and none is made:
    pictures are handed over as bytes)."""
    import http.client
    import urllib.request
    if not hasattr(http.client, "HTTPSConnection"):
        class HTTPSConnection(http.client.HTTPConnection):
            def connect(self):
                raise OSError("no TLS in this runtime")

        http.client.HTTPSConnection = HTTPSConnection
    if not hasattr(urllib.request, "HTTPSHandler"):
        class HTTPSHandler(urllib.request.BaseHandler):
            def __init__(self, *args, **kwargs):
                super().__init__()

        urllib.request.HTTPSHandler = HTTPSHandler


def searchable_pdf(record_json: str, page_images, name=None) -> bytes:
    """retto.export.searchable_pdf over a record and its pages' pictures (JS Uint8Arrays of encoded images, one
    per page that has a result). record_json: one record, or a list of records made into one document named
    `name` (the page's "All as PDF"). Pages that failed are left out: they have no picture and no text."""
    from retto import export
    _allow_fpdf_import()
    records = json.loads(record_json)
    record = _pdf_document(records, name) if isinstance(records, list) else _without_failed_pages(records)
    images = [img.to_bytes() for img in page_images]
    if len(images) != len(record.get("pages", [record])):
        raise RettoError(INVALID_IMAGE, f"{len(images)} pictures for the record's pages")
    try:
        return export.searchable_pdf(record, images)
    finally:
        images = None
        gc.collect()


def _without_failed_pages(record: dict) -> dict:
    if "pages" not in record:
        return record
    return {**record, "pages": [p for p in record["pages"] if "error" not in p]}


def _pdf_document(records: list, name) -> dict:
    """Several inputs' records as one document: their good pages in order, numbered from 1."""
    from retto.io.document import document_record, page_record
    pages = []
    for rec in records:
        if "error" in rec:
            continue
        for p in (rec["pages"] if "pages" in rec else [rec]):
            if "error" in p:
                continue
            result = {k: v for k, v in p.items() if k not in ("page", "dpi", "path")}
            pages.append(page_record(result, len(pages) + 1, p.get("dpi")))
    return document_record(str(name or "retto-ocr.pdf"), pages, len(pages))


def export_batch(records_json: str, fmt: str) -> str:
    """Several records in one text file, as the CLI writes them to stdout: json is one array (the CLI streams the
    same bytes), the line formats are the records one after another."""
    from retto import export
    records = json.loads(records_json)
    if fmt == "json":
        return json.dumps(records, ensure_ascii=False, indent=2) + "\n"
    return "".join(export.render(r, str(fmt)) + "\n" for r in records)
