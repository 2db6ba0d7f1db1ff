"""Page budgets, checked before a PDF page is rendered, the same in both runtimes (issue 23).

A few KB of PDF can ask a renderer for gigabytes: a content stream that inflates to a gigabyte of operators
(PDFium builds an object per operator when it loads the page), millions of path operators (pdf.js keeps an
operator list and a canvas path), an image or soft mask of 20000 x 20000 pixels or a JPEG whose header claims
65000 x 65000 (decoded at full size before any scaling), forms that draw forms that draw forms. Neither renderer
can be told to stop part-way, so each page is measured first, here, from the file's own structure (pypdf, pure
Python: the CLI and the browser's Pyodide run this same code), and a page over a budget becomes the page error
`pdf_page_too_complex` while the other pages go on:

- `document.max_page_operators`: operators drawn on the page, forms counted as often as they are drawn
  (a form drawn 10 times counts its operators 10 times; annotation appearances count too), and the glyph
  programs of the Type3 fonts and the cells of the tiling patterns it uses, each once (a renderer builds each
  once and reuses it);
- `document.max_content_bytes`: decoded bytes of all content streams the page draws (each counted once);
- `document.max_image_pixels`: width x height of any image or soft mask the page draws, inline images (BI ... ID
  ... EI inside a content stream) included (its declared size: the size a decoder allocates).

Content streams are inflated in 1 MB pieces and only counted, never kept, so measuring a bomb costs its time, not
its memory; counting stops at the budget.

It fails closed: a page it cannot measure is not rendered either, but becomes the page error
`pdf_page_unmeasured` (pypdf missing, a structure pypdf cannot read, a stream it cannot decode, e.g. one under an
unknown filter, whose raw bytes both renderers would then draw as content, unmeasured). The one failure left to
the renderers is a file pypdf cannot open at all: both renderers are then asked first, and when they cannot open
it either, their error (`pdf_invalid`, `pdf_encrypted`) is the document's; when one can, every page is
`pdf_page_unmeasured`. The exception is AES encryption, which pypdf cannot decrypt here (see `no_aes`): such a
file is left to the renderers, unmeasured. A structure past pypdf's own safety limits (e.g. a page tree nested over 100 deep) is
refused whole (`refusal`), in both runtimes.

The same reading settles what the two renderers used to tell apart: the page count is the pages the tree really
holds (`page_count`: PDFium believed a lying /Count, pdf.js did not), and a PDF pypdf sees as encrypted but a
renderer cannot open is `pdf_encrypted` (`open_error`).
"""
from __future__ import annotations

import bisect
import io
import re
import zlib
from collections import Counter

from retto.errors import PDF_ENCRYPTED, PDF_INVALID, PDF_PAGE_TOO_COMPLEX, PDF_PAGE_UNMEASURED, RettoError

# The sentence both runtimes give for encryption no reader here can open (an unknown security handler).
UNKNOWN_ENCRYPTION = "the PDF uses an encryption scheme that cannot be opened"

CHUNK = 1 << 20
MAX_FORM_DEPTH = 12   # deeper form nesting than any real page; pdf.js and PDFium stop earlier or later
# An operator: a bare word (PDF operators are letters plus ' " *), not a /Name, not a number. Words inside
# strings count too, which only makes the count larger (on the safe side).
_OPERATOR = re.compile(rb"(?<![\w/#.*'\"-])[A-Za-z'\"][A-Za-z0-9*'\"]*")
_NAME = rb"/([^\s/\[\]()<>{}%]+)"
_DRAW_FORM = re.compile(_NAME + rb"\s*Do(?![\w*'\"])")
_SET_FONT = re.compile(_NAME + rb"\s+[-+]?[\d.]+\s*Tf(?![\w*'\"])")
_SET_PATTERN = re.compile(_NAME + rb"\s*(?:scn|SCN)(?![\w*'\"])")   # a pattern colour: /P0 scn (after operands)
# An inline image's dictionary runs from BI to ID (its data follows). Words found in an earlier inline image's
# data only add checks (on the safe side).
_BEGIN_INLINE = re.compile(rb"(?<![\w/#.*'\"-])BI(?![\w*'\"])")
_INLINE_DATA = re.compile(rb"(?<![\w/#.*'\"-])ID(?=\s)")
MAX_INLINE_DICT = 4096   # bytes from BI to ID; a real inline image's dictionary is a few dozen
_INLINE_WIDTH = re.compile(rb"/(?:Width|W)(?![\w#])\s*(\d+)")
_INLINE_HEIGHT = re.compile(rb"/(?:Height|H)(?![\w#])\s*(\d+)")


class _OverBudget(Exception):
    pass


class PageGuard:
    """Opened once per document; `check(index)` -> None (within budget) or RettoError pdf_page_too_complex."""

    def __init__(self, data: bytes, document_config):
        self.max_ops = document_config.max_page_operators
        self.max_bytes = document_config.max_content_bytes
        self.max_pixels = document_config.max_image_pixels
        self.pages, self.count, self.encrypted, self.refusal = None, 0, False, None
        self.unmeasured = None   # why no page can be measured (then every page is refused)
        # pypdf decrypts AES only with the `cryptography` package, which neither runtime has (Pyodide's carrier
        # ships no build of it). Refusing would lose every permissions-only AES PDF (an owner password, an empty
        # user one: common for statements and forms), which both renderers open and read; so such a file is
        # left to them, unmeasured, as before this guard (docs/measurements/memory.md).
        self.no_aes = False
        try:
            import logging
            import pypdf
            from pypdf.errors import DependencyError, LimitReachedError
            logging.getLogger("pypdf").setLevel(logging.ERROR)   # repairs of broken files are not our news
            self.dependency_error = DependencyError
        except ImportError:
            self.unmeasured = "pypdf, which measures the pages, is not installed"
            return
        try:
            reader = pypdf.PdfReader(io.BytesIO(bytes(data)), strict=False)
            self.encrypted = bool(reader.is_encrypted)
            self.pages = reader.pages
            self.count = len(self.pages)
        except DependencyError:   # AES without a crypto library (see no_aes): left to the renderers
            self.pages, self.count, self.encrypted, self.no_aes = None, 0, True, True
        except LimitReachedError as exc:
            self.pages, self.count = None, 0
            self.refusal = RettoError(PDF_INVALID, f"the PDF's structure is beyond what is read safely ({exc})")
        except Exception as exc:   # the renderers are asked first: their error stands if they cannot open it
            self.pages, self.count = None, 0
            self.unmeasured = f"its structure could not be read ({type(exc).__name__})"
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
            if self.no_aes:
                return None
            return self._unmeasured(index, self.unmeasured or "it was not read")
        try:
            page = self.pages[index]
        except Exception as exc:
            return self._unmeasured(index, f"the page could not be read ({type(exc).__name__})")
        self.ops = self.bytes = 0
        self.costs = {}
        self.once = set()   # Type3 glyph programs and pattern cells already counted on this page
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
        except Exception as exc:   # what is not measured is not rendered (fail closed)
            if isinstance(exc, self.dependency_error):   # an AES stream (see no_aes)
                return None
            return self._unmeasured(index, f"{type(exc).__name__} while reading its drawing")
        return None

    @staticmethod
    def _unmeasured(index: int, why: str) -> RettoError:
        # The same words in both runtimes (the same pypdf): exception class names only, no message text.
        return RettoError(PDF_PAGE_UNMEASURED, f"page {index + 1} could not be measured before rendering ({why}), "
                                               "so it is not rendered")

    # A stream (or an array of them, the page's /Contents) drawn `times` times with `resources`.
    def _stream_cost(self, contents, resources, depth: int, times: int) -> None:
        streams = [s for s in _as_list(contents) if _is_stream(s)]
        ops, draws, fonts, patterns = 0, Counter(), set(), set()
        for s in streams:
            key = _key(s)
            cached = self.costs.get(key)
            if cached is None:
                cached = self._scan(s)
                self.costs[key] = cached
            ops += cached[0]
            draws.update(cached[1])
            fonts |= cached[2]
            patterns |= cached[3]
        self._add_ops(ops * times)
        xobjects = _get(resources, "/XObject")
        if xobjects is not None:
            for name, count in draws.items():
                xobj = _get(xobjects, "/" + name.decode("latin-1"))
                if xobj is not None:
                    self._xobject_cost(xobj, depth + 1, times * count)
        # Content streams a renderer builds once and reuses: each counted once per page, however often drawn.
        for name in fonts:
            font = _get(_get(resources, "/Font"), "/" + name.decode("latin-1"))
            if _get(font, "/Subtype") == "/Type3":
                procs = _get(font, "/CharProcs")
                for glyph in (list(_dict_values(procs)) if procs is not None and hasattr(procs, "values") else []):
                    self._once(glyph, _get(font, "/Resources") or resources, depth)
        for name in patterns:
            pattern = _get(_get(resources, "/Pattern"), "/" + name.decode("latin-1"))
            if _is_stream(pattern):   # a tiling pattern's cell (a shading pattern has no content)
                self._once(pattern, _get(pattern, "/Resources"), depth)

    def _once(self, s, resources, depth: int) -> None:
        if not _is_stream(s) or _key(s) in self.once:
            return
        if depth + 1 > MAX_FORM_DEPTH:
            raise _OverBudget(f"its forms are nested more than {MAX_FORM_DEPTH} deep")
        self.once.add(_key(s))
        self._stream_cost(s, resources, depth + 1, 1)

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
        except (TypeError, ValueError):   # no size: no decoder draws it
            return
        self._check_size(w, h)

    def _check_size(self, w: int, h: int) -> None:
        if w * h > self.max_pixels:
            raise _OverBudget(f"it draws an image of {w} x {h} pixels, over document.max_image_pixels "
                              f"({self.max_pixels / 1e6:g} megapixels)")

    def _add_ops(self, n: int) -> None:
        self.ops += n
        if self.ops > self.max_ops:
            raise _OverBudget(f"it draws over {self.max_ops:,} operators, over document.max_page_operators")

    def _scan(self, s) -> tuple[int, Counter, set, set]:
        """(operators, {form name: times drawn}, font names, pattern names) of one stream, decoded in pieces and
        counted as it goes; inline images are checked on the way."""
        ops, draws, fonts, patterns = 0, Counter(), set(), set()
        tail = b""   # the end of the previous piece: an inline image's dictionary may straddle two
        for piece in _decoded_pieces(s):
            self.bytes += len(piece)
            if self.bytes > self.max_bytes:
                raise _OverBudget(f"its content streams decode to over {self.max_bytes / 1e6:g} MB, over "
                                  "document.max_content_bytes")
            n = len(_OPERATOR.findall(piece))
            ops += n
            self._add_ops(n)   # a single bomb stream stops here, before it is decoded to the end
            draws.update(_DRAW_FORM.findall(piece))
            fonts.update(_SET_FONT.findall(piece))
            patterns.update(_SET_PATTERN.findall(piece))
            text = tail + piece
            for begin, end in _inline_dicts(text):
                if end > len(tail):   # else seen with the previous piece
                    w, h = _INLINE_WIDTH.search(text, begin, end), _INLINE_HEIGHT.search(text, begin, end)
                    if w and h:
                        self._check_size(int(w.group(1)), int(h.group(1)))
            tail = text[-(MAX_INLINE_DICT + 8):]
        self.ops -= ops   # counted again, times the number of draws, by the caller
        return ops, draws, fonts, patterns


def _inline_dicts(text: bytes):
    """(start, end) of each inline image dictionary: from the last BI before an ID to that ID, when no earlier ID
    lies between them and they are at most MAX_INLINE_DICT apart. Linear in the text: each byte is in at most one
    span (a run of BI or ID words cannot make it quadratic)."""
    begins = [m.end() for m in _BEGIN_INLINE.finditer(text)]
    previous = -1
    for m in _INLINE_DATA.finditer(text):
        i = bisect.bisect_left(begins, m.start()) - 1
        if i >= 0 and begins[i] > previous and m.start() - begins[i] <= MAX_INLINE_DICT:
            yield begins[i], m.start()
        previous = m.start()


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
    """obj[key] resolved, or None when obj is not a dictionary or has no such key. A reference to an object that
    is not there resolves to pypdf's NullObject (strict=False), as renderers treat it; any other failure to read
    is raised (the page is then refused unmeasured)."""
    if obj is None:
        return None
    obj = obj.get_object()
    value = obj.get(key) if hasattr(obj, "get") else None
    return value.get_object() if value is not None else None


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
