"""Reading one input natively: an image's or a PDF's bytes to its record, never raising for bad input. The CLI,
`--jobs` and `retto batch` all read through here, so they give the same records."""
from __future__ import annotations

from pathlib import Path

from retto.errors import RettoError
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
    """A PDF's document record (its `path` is added by the caller): each page rendered natively (pypdfium2) and
    read as one image by the shared page loop (retto.io.document.read_pages). Whole-document problems (encrypted,
    broken, empty, too many pages) raise RettoError."""
    from retto.native.pdf_render import pdf_pages   # pypdfium2 is needed for PDFs only
    mode = session.config.document.text_layer
    count, pages = pdf_pages(data, session.config, with_text=mode != "ocr")

    def render(page_no: int):
        n, rgb, dpi, warning, *text = next(pages)
        assert n == page_no, (n, page_no)
        return rgb, dpi, warning, (text[0] if text else None)

    try:
        record = document.read_pages(count, render, lambda rgb, _page_no: session.run(rgb).to_dict(),
                                     text_mode=mode, on_page=on_page)
    finally:
        pages.close()   # PDFium's document is closed here, not when the iterator is collected
    del record["path"]
    return record


unexpected = document.unexpected


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
