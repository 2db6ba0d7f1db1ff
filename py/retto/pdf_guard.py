"""Page budgets, checked before a PDF page is rendered, the same in both runtimes (issue 23).

A few KB of PDF can ask a renderer for gigabytes: a content stream that inflates to a gigabyte of operators
(PDFium builds an object per operator when it loads the page), millions of path operators (pdf.js keeps an
operator list and a canvas path), an image or soft mask of 20000 x 20000 pixels or a JPEG whose header claims
65000 x 65000 (decoded at full size before any scaling), forms that draw forms that draw forms. Neither renderer
can be told to stop part-way, so each page is measured first, here, from the file's own structure (pypdf, pure
Python: the CLI and the browser's Pyodide run this same code), and a page over a budget becomes the page error
`pdf_page_too_complex` while the other pages go on:

- `document.max_page_operators`: operators drawn on the page, forms counted as often as they are drawn
  (a form drawn 10 times counts its operators 10 times; annotation appearances count too);
- `document.max_content_bytes`: decoded bytes of all content streams the page draws (each counted once);
- `document.max_image_pixels`: width x height of any image or soft mask the page draws (its declared size: the
  size a decoder allocates).

Content streams are inflated in 1 MB pieces and only counted, never kept, so measuring a bomb costs its time, not
its memory; counting stops at the budget. A file pypdf cannot parse is left to the renderer (whose own error then
stands), so this check never refuses a PDF that would otherwise be read, except one whose structure goes past
pypdf's own safety limits (e.g. a page tree nested over 100 deep): that one is refused whole (`refusal`), in both
runtimes, rather than rendered unmeasured.

The same reading settles what the two renderers used to tell apart: the page count is the pages the tree really
holds (`page_count`: PDFium believed a lying /Count, pdf.js did not), and a PDF pypdf sees as encrypted but a
renderer cannot open is `pdf_encrypted` (`open_error`).
"""
from __future__ import annotations

import io
import re
import zlib
from collections import Counter

from .errors import PDF_ENCRYPTED, PDF_INVALID, PDF_PAGE_TOO_COMPLEX, RettoError

# The sentence both runtimes give for encryption no reader here can open (an unknown security handler).
UNKNOWN_ENCRYPTION = "the PDF uses an encryption scheme that cannot be opened"

CHUNK = 1 << 20
MAX_FORM_DEPTH = 12   # deeper form nesting than any real page; pdf.js and PDFium stop earlier or later
# An operator: a bare word (PDF operators are letters plus ' " *), not a /Name, not a number. Words inside
# strings count too, which only makes the count larger (on the safe side).
_OPERATOR = re.compile(rb"(?<![\w/#.*'\"-])[A-Za-z'\"][A-Za-z0-9*'\"]*")
_DRAW_FORM = re.compile(rb"/([^\s/\[\]()<>{}%]+)\s*Do(?![\w*'\"])")


class _OverBudget(Exception):
    pass


class PageGuard:
    """Opened once per document; `check(index)` -> None (within budget) or RettoError pdf_page_too_complex."""

    def __init__(self, data: bytes, document_config):
        self.max_ops = document_config.max_page_operators
        self.max_bytes = document_config.max_content_bytes
        self.max_pixels = document_config.max_image_pixels
        self.pages, self.count, self.encrypted, self.refusal = None, 0, False, None
        try:
            import logging
            import pypdf
            from pypdf.errors import LimitReachedError
            logging.getLogger("pypdf").setLevel(logging.ERROR)   # repairs of broken files are not our news
        except ImportError:
            return
        try:
            reader = pypdf.PdfReader(io.BytesIO(bytes(data)), strict=False)
            self.encrypted = bool(reader.is_encrypted)
            self.pages = reader.pages
            self.count = len(self.pages)
        except LimitReachedError as exc:
            self.pages, self.count = None, 0
            self.refusal = RettoError(PDF_INVALID, f"the PDF's structure is beyond what is read safely ({exc})")
        except Exception:   # pypdf cannot read it: the renderer decides (and reports pdf_invalid if it cannot)
            self.pages, self.count = None, 0
            # pypdf stops at a security handler it does not know, as the renderers do: the trailer names it.
            self.encrypted = self.encrypted or b"/Encrypt" in bytes(data)

    def page_count(self, renderer_count: int) -> int:
        """The pages to read: the renderer's count, or fewer when the page tree really holds fewer (a /Count
        that claims more pages than there are)."""
        return min(renderer_count, self.count) if self.count else renderer_count

    def open_error(self, code: str, message: str) -> RettoError:
        """The error for a PDF the renderer could not open: pdf_encrypted when it is encrypted (pypdf read its
        /Encrypt) with a scheme the renderer does not know."""
        if code == PDF_INVALID and self.encrypted:
            return RettoError(PDF_ENCRYPTED, UNKNOWN_ENCRYPTION)
        return RettoError(code, message)

    def check(self, index: int) -> RettoError | None:
        if self.pages is None:
            return None
        try:
            page = self.pages[index]
        except Exception:
            return None
        self.ops = self.bytes = 0
        self.seen_streams = set()
        self.costs = {}
        try:
            resources = _get(page, "/Resources")
            self._stream_cost(_get(page, "/Contents"), resources, 0, 1)
            for annot in _as_list(_get(page, "/Annots")):
                appearance = _get(_get(annot, "/AP"), "/N")
                if appearance is not None and not _is_stream(appearance):   # states: /On, /Off ...
                    for state in list(_dict_values(appearance))[:8]:
                        self._form_cost(state, 1)
                else:
                    self._form_cost(appearance, 1)
        except _OverBudget as over:
            return RettoError(PDF_PAGE_TOO_COMPLEX, f"page {index + 1} is too complex to render safely: {over}")
        except RecursionError:
            return RettoError(PDF_PAGE_TOO_COMPLEX, f"page {index + 1} nests its drawing too deeply to render "
                                                    "safely")
        except Exception:   # a structure pypdf does not follow: the renderer decides
            return None
        return None

    # A stream (or an array of them, the page's /Contents) drawn `times` times with `resources`.
    def _stream_cost(self, contents, resources, depth: int, times: int) -> None:
        streams = [s for s in _as_list(contents) if _is_stream(s)]
        ops, draws = 0, Counter()
        for s in streams:
            key = _key(s)
            cached = self.costs.get(key)
            if cached is None:
                cached = self._scan(s)
                self.costs[key] = cached
            ops += cached[0]
            draws.update(cached[1])
        self._add_ops(ops * times)
        xobjects = _get(resources, "/XObject")
        if xobjects is None:
            return
        for name, count in draws.items():
            xobj = _get(xobjects, "/" + name.decode("latin-1"))
            if xobj is not None:
                self._xobject_cost(xobj, depth + 1, times * count)

    def _xobject_cost(self, xobj, depth: int, times: int) -> None:
        subtype = _get(xobj, "/Subtype")
        if subtype == "/Image":
            self._check_image(xobj)
            smask = _get(xobj, "/SMask")
            if smask is not None:
                self._check_image(smask)
            mask = _get(xobj, "/Mask")
            if _is_stream(mask):
                self._check_image(mask)
        elif subtype == "/Form":
            self._form_cost(xobj, times, depth)

    def _form_cost(self, form, times: int, depth: int = 1) -> None:
        if form is None or not _is_stream(form):
            return
        if depth > MAX_FORM_DEPTH:
            raise _OverBudget(f"its forms are nested more than {MAX_FORM_DEPTH} deep")
        self._stream_cost(form, _get(form, "/Resources"), depth, times)

    def _check_image(self, image) -> None:
        try:
            w, h = int(_get(image, "/Width") or 0), int(_get(image, "/Height") or 0)
        except (TypeError, ValueError):
            return
        if w * h > self.max_pixels:
            raise _OverBudget(f"it draws an image of {w} x {h} pixels, over document.max_image_pixels "
                              f"({self.max_pixels / 1e6:g} megapixels)")

    def _add_ops(self, n: int) -> None:
        self.ops += n
        if self.ops > self.max_ops:
            raise _OverBudget(f"it draws over {self.max_ops:,} operators, over document.max_page_operators")

    def _scan(self, s) -> tuple[int, Counter]:
        """(operators, {form name: times drawn}) of one stream, decoded in pieces and counted as it goes."""
        ops, draws = 0, Counter()
        for piece in _decoded_pieces(s):
            self.bytes += len(piece)
            if self.bytes > self.max_bytes:
                raise _OverBudget(f"its content streams decode to over {self.max_bytes / 1e6:g} MB, over "
                                  "document.max_content_bytes")
            n = len(_OPERATOR.findall(piece))
            ops += n
            self._add_ops(n)   # a single bomb stream stops here, before it is decoded to the end
            draws.update(_DRAW_FORM.findall(piece))
        self.ops -= ops   # counted again, times the number of draws, by the caller
        return ops, draws


def _decoded_pieces(s):
    """The stream's decoded bytes in pieces of at most CHUNK: FlateDecode (the filter of nearly every content
    stream) inflated incrementally; any other filter chain decoded by pypdf (which bounds its own output)."""
    filters = [str(f) for f in _as_list(_get(s, "/Filter"))]
    raw = s._data
    if not filters:
        yield from (raw[i:i + CHUNK] for i in range(0, len(raw), CHUNK))
        return
    if filters == ["/FlateDecode"] or filters == ["/Fl"]:
        inflate = zlib.decompressobj()
        pending = raw
        try:
            while pending and not inflate.eof:
                piece = inflate.decompress(pending, CHUNK)
                pending = inflate.unconsumed_tail
                if not piece and not pending:
                    break
                yield piece
        except zlib.error:   # a broken tail: renderers keep what inflated; so does the count
            return
        return
    data = s.get_data()
    yield from (data[i:i + CHUNK] for i in range(0, len(data), CHUNK))


def _get(obj, key):
    if obj is None:
        return None
    try:
        obj = obj.get_object()
        value = obj.get(key) if hasattr(obj, "get") else None
        return value.get_object() if value is not None else None
    except Exception:
        return None


def _as_list(obj) -> list:
    if obj is None:
        return []
    obj = obj.get_object()
    if isinstance(obj, list):
        return [o.get_object() for o in obj]
    return [obj]


def _dict_values(obj):
    return (v.get_object() for v in obj.get_object().values())


def _is_stream(obj) -> bool:
    return obj is not None and hasattr(obj, "_data") and hasattr(obj, "get")


def _key(s):
    ref = getattr(s, "indirect_reference", None)
    return (ref.idnum, ref.generation) if ref is not None else id(s)
