"""retto.io.document.read_pages, the one page loop of both runtimes: driven with awaitables (as the browser bridge
drives it, pdf.js behind each await) it gives the record the native CLI gives for the same pages; and its rules
(warnings, a failed page, an unexpected failure, a fatal code, only some pages) hold either way."""
import asyncio
import json

import numpy as np
import pytest

from retto.errors import PDF_PAGE_TOO_COMPLEX, RettoError
from retto.io import document


def _as_coroutine(fn):
    async def run(*args):
        await asyncio.sleep(0)
        return fn(*args)
    return run


def test_awaited_pages_give_the_native_record(retto_session, data_dir):
    """The native record of a real PDF, and the loop driven asynchronously over the same rendered pages."""
    from retto.native.pdf_render import pdf_pages
    from retto.native.read import ocr_pdf
    data = (data_dir / "c03-29.pdf").read_bytes()
    native = ocr_pdf(retto_session, data)
    count, pages = pdf_pages(data, retto_session.config)
    rendered = {n: (rgb, dpi, warning, None) for n, rgb, dpi, warning in pages}
    seen = []
    awaited = asyncio.run(document.read_pages(
        count, _as_coroutine(lambda n: rendered[n]),
        _as_coroutine(lambda rgb, n: retto_session.run(rgb).to_dict()),
        on_page=lambda n, c, record, ms: seen.append((n, c, record["page"]))))
    del awaited["path"]
    drop_times = lambda r: json.loads(json.dumps(r).replace('"timings"', '"t"'), object_hook=lambda d: {
        k: v for k, v in d.items() if k != "t"})
    assert drop_times(awaited) == drop_times(native)
    assert native["page_count"] == count and len(native["pages"]) == count
    assert seen == [(n, count, n) for n in range(1, count + 1)]


@pytest.mark.parametrize("awaited", [False, True])
def test_the_loop_rules(awaited):
    rgb = np.full((8, 8, 3), 255, dtype=np.uint8)
    calls = []

    def render(n):
        calls.append(("render", n))
        if n == 2:
            return RettoError(PDF_PAGE_TOO_COMPLEX, "too many operators"), None, "big page", None
        return rgb, 100 + n, None, None

    def read(image, n):
        calls.append(("read", n))
        if n == 3:
            raise ValueError("boom")
        if n == 4:
            raise RettoError("invalid_image", "bad pixels")
        return {"lines": [], "n": n}

    wrap = _as_coroutine if awaited else (lambda f: f)
    out = document.read_pages(5, wrap(render), wrap(read), path="d.pdf", pages={1, 2, 3, 4, 9},
                              on_start=wrap(lambda n, c: calls.append(("start", n))))
    record = asyncio.run(out) if awaited else out
    assert asyncio.iscoroutine(out) == awaited   # synchronous unless a callback awaits
    assert record == {"path": "d.pdf", "kind": "pdf", "page_count": 5, "warnings": ["page 2: big page"], "pages": [
        {"page": 1, "lines": [], "n": 1, "source": "ocr", "dpi": 101},
        {"page": 2, "error": {"code": PDF_PAGE_TOO_COMPLEX, "message": "too many operators"}},
        {"page": 3, "error": {"code": "internal_error", "message": "unexpected failure: ValueError: boom"}},
        {"page": 4, "error": {"code": "invalid_image", "message": "bad pixels"}}]}
    assert calls == [("start", 1), ("render", 1), ("read", 1), ("start", 2), ("render", 2), ("start", 3),
                     ("render", 3), ("read", 3), ("start", 4), ("render", 4), ("read", 4)]


@pytest.mark.parametrize("awaited", [False, True])
def test_a_fatal_code_ends_the_document(awaited):
    def read(image, n):
        raise RettoError("aborted", "recognition was cancelled")

    wrap = _as_coroutine if awaited else (lambda f: f)
    done = []
    with pytest.raises(RettoError) as err:
        out = document.read_pages(3, wrap(lambda n: (np.zeros((4, 4, 3), np.uint8), 72, None, None)), wrap(read),
                                  fatal=("aborted",), on_page=lambda *a: done.append(a))
        if awaited:
            asyncio.run(out)
    assert (err.value.code, err.value.message) == ("aborted", "recognition was cancelled") and done == []


def test_the_text_layer_is_taken_when_it_reads_the_page():
    """A page whose text layer answers is not read by OCR: its record is the text layer's, source "text"."""
    from retto.io.text_layer import page_result
    items = [{"text": "Hello", "x": 72.0, "y": 100.0, "w": 30.0, "size": 12.0},
             {"text": "world", "x": 106.0, "y": 100.0, "w": 30.0, "size": 12.0}]
    text = (items, [], 612.0, 792.0)
    rgb = np.full((792, 612, 3), 255, dtype=np.uint8)
    want = page_result(*text, 612, 792, "text")
    assert want and want["lines"]
    record = document.read_pages(1, lambda n: (rgb, 72, None, text), lambda *a: pytest.fail("OCR ran"),
                                 text_mode="text")
    assert record["pages"] == [document.page_record(want, 1, 72, source="text")]
