"""Reading one input natively: an image's or a PDF's bytes to its record, never raising for bad input. The CLI,
`--jobs` and `retto batch` all read through here, so they give the same records."""
from __future__ import annotations

import time
from pathlib import Path

from retto.errors import INTERNAL_ERROR, RettoError
from retto.io import document
from retto.io.image import read_image_file


def ocr_one(session, path: Path, max_bytes: int, on_page=None) -> tuple[dict, bytes | None]:
    """(one input's result, document or error record without its path; the file's bytes when read). Nothing
    that goes wrong with one file, or one page of a PDF, ends the batch."""
    try:
        data = read_image_file(path, max_bytes)
    except RettoError as err:
        return err.to_dict(), None
    return ocr_data(session, data, on_page), data


def ocr_data(session, data: bytes, on_page=None) -> dict:
    """One input's bytes to its record without `path` (an image's result, a PDF's document record, or an error
    record); never raises for bad input. Shared with `retto batch` and `--jobs`, so they give the CLI's records."""
    try:
        if document.is_pdf(data):
            return ocr_pdf(session, data, on_page)
        return session.run(data).to_dict()
    except RettoError as err:
        return err.to_dict()
    except Exception as exc:
        return unexpected(exc).to_dict()


def ocr_pdf(session, data: bytes, on_page=None) -> dict:
    """A PDF's document record (its `path` is added by the caller): each page rendered natively and read as one
    image. Whole-document problems (encrypted, broken, empty, too many pages) raise RettoError."""
    from retto.native.pdf_render import pdf_pages   # pypdfium2 is needed for PDFs only
    from retto.io.text_layer import page_result
    mode = session.config.document.text_layer
    count, pages = pdf_pages(data, session.config, with_text=mode != "ocr")
    records, warnings = [], []
    t0 = time.perf_counter()
    for page_no, rgb, dpi, warning, *text in pages:   # each page's time counts its rendering too
        if warning:
            warnings.append(f"page {page_no}: {warning}")
        if isinstance(rgb, RettoError):
            record = document.page_error(page_no, rgb.code, rgb.message)
        else:
            try:
                own = text and text[0] and page_result(*text[0], rgb.shape[1], rgb.shape[0], mode)
                if own:
                    record = document.page_record(own, page_no, dpi, source="text")
                else:
                    record = document.page_record(session.run(rgb).to_dict(), page_no, dpi)
            except RettoError as err:
                record = document.page_error(page_no, err.code, err.message)
            except Exception as exc:
                record = document.page_error(page_no, **unexpected(exc).to_dict()["error"])
        rgb = text = None   # this page's pixels go before the next page is rendered, not after
        records.append(record)
        if on_page:
            on_page(page_no, count, record, (time.perf_counter() - t0) * 1000.0)
        t0 = time.perf_counter()
    record = document.document_record("", records, count, warnings)
    del record["path"]
    return record


def unexpected(exc: Exception) -> RettoError:
    return RettoError(INTERNAL_ERROR, f"unexpected failure: {type(exc).__name__}: {exc}")


def page_images_of(record: dict, data: bytes | None, config):
    """What the searchable PDF is drawn on: an image file's own bytes, or a PDF's pages rendered again (the same
    size as when read) and JPEG-encoded one at a time, so no page pixels are held between reading and writing."""
    def images():
        if "pages" not in record:
            return [data]
        from retto.export.pdf import encode_page
        from retto.native.pdf_render import pdf_pages
        return (None if isinstance(rgb, RettoError) else encode_page(rgb)
                for _, rgb, _, _ in pdf_pages(data, config)[1])
    return images


def status_of(record: dict) -> str:
    if "error" in record:
        return f"error {record['error']['code']}"
    if "pages" in record:
        failed = document.failed_pages(record)
        n = record["page_count"]
        return f"{n} page{'' if n == 1 else 's'}" + (f", {len(failed)} failed" if failed else "")
    return f"{len(record['lines'])} lines"
