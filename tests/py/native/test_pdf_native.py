"""PDF input natively (pypdfium2): pages rendered to the pixels an independent path gives, then read like images.

References: the pinned images themselves (PDFs made here place each image on a page of exactly its size at the
render DPI, so rendering is 1:1), the JPEGs poppler's `pdfimages -j` copies out of the pinned real PDFs (rendered
at the image's own resolution, which `pdfimages -list` reports), pdftoppm for a turned page, and the known lines
of a vector-text page.
"""
from __future__ import annotations

import io
import subprocess
import time
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

import pdf_fixtures as F
import refkit
from retto import Config, RettoError
from retto.native import pdf_render as pdf_native
from retto.io.image import decode

CFG = Config()


def pages_of(data: bytes, cfg: Config = CFG) -> list:
    count, pages = pdf_native.pdf_pages(data, cfg)
    pages = list(pages)
    assert len(pages) == count
    return pages


def texts(session, rgb) -> list:
    return [line["text"] for line in session.run(rgb).to_dict()["lines"]]


def test_image_pages_render_back_to_the_images_pixels(image_paths):
    names = ["baiona.png", "typewriter.png", "baiona_gray.png"]
    pages = pages_of(F.image_pdf([image_paths[n] for n in names], dpi=200))
    assert [p[0] for p in pages] == [1, 2, 3]
    for (page_no, rgb, dpi, warning), name in zip(pages, names):
        want = decode(image_paths[name].read_bytes())
        assert dpi == 200 and warning is None
        assert rgb.dtype == np.uint8 and rgb.shape == want.shape, name
        assert np.array_equal(rgb, want), name


def test_pdf_page_texts_equal_the_image_read_directly(retto_session, image_paths, reference_runs):
    """The same pixels give the same texts: page 1 of the PDF is typewriter.png, page 2 baiona.png.

    The direct read is conftest's shared one (retto_session on the file's bytes, exactly what this test made
    itself), so the typewriter page is not read a second time in the run."""
    names = ["typewriter.png", "baiona.png"]
    count, pages = pdf_native.pdf_pages(F.image_pdf([image_paths[n] for n in names]), CFG)
    times = []
    t0 = time.perf_counter()
    for (_, rgb, _, _), name in zip(pages, names):
        got = texts(retto_session, rgb)
        times.append((time.perf_counter() - t0) * 1000)   # measured, not asserted: render + OCR of one page
        direct = [line["text"] for line in reference_runs(Path(name).stem)["ours"]["lines"]]
        assert direct and got == direct, name
        t0 = time.perf_counter()
    refkit.REPORT_TABLES.append("PDF pages natively (ppocr-v4, 200 DPI), render + OCR per page: "
                                + ", ".join(f"{n} {t:.0f} ms" for n, t in zip(names, times)))


def _embedded_jpeg(path, tmp_path):
    """(the page's one image as poppler copies it out, unchanged; its resolution on the page in ppi)."""
    listing = subprocess.run(["pdfimages", "-list", str(path)], capture_output=True, text=True, check=True).stdout
    row = listing.splitlines()[2].split()
    assert row[8] == "jpeg", listing
    subprocess.run(["pdfimages", "-j", str(path), str(tmp_path / "img")], check=True)
    (jpeg,) = tmp_path.glob("img-*.jpg")
    return jpeg.read_bytes(), int(row[12])


@pytest.mark.parametrize("name", ["c03-29.pdf", "francais.pdf"])
def test_pinned_scanned_pdfs_render_to_their_embedded_jpeg(retto_session, image_paths, tmp_path, name):
    """Real scanned PDFs: at the scan's own resolution the rendered page is the JPEG inside, pixel for pixel (both
    decoded by libjpeg, the JPEG by Pillow), so the texts are those of the scan itself."""
    jpeg, ppi = _embedded_jpeg(image_paths[name], tmp_path)
    ((page_no, rgb, dpi, warning),) = pages_of(image_paths[name].read_bytes(),
                                               Config.from_dict({"document": {"dpi": ppi}}))
    scan = decode(jpeg)
    assert (page_no, dpi, warning) == (1, ppi, None)
    assert np.array_equal(rgb, scan)
    got = texts(retto_session, rgb)
    assert len(got) >= 10 and got == texts(retto_session, scan)


def test_vector_text_reads_as_written(retto_session):
    ((_, rgb, dpi, _),) = pages_of(F.vector_text_pdf())
    assert rgb.shape[:2] == (1654, 1165)   # A5, 148 x 210 mm, at 200 DPI
    assert texts(retto_session, rgb) == F.VECTOR_LINES


def test_a_turned_page_renders_as_shown(tmp_path):
    """/Rotate 90: the page is rendered as viewers show it (width and height swapped), like poppler's pdftoppm."""
    import pypdfium2 as pdfium
    doc = pdfium.PdfDocument(F.vector_text_pdf())
    doc[0].set_rotation(90)
    buf = io.BytesIO()
    doc.save(buf)
    path = tmp_path / "turned.pdf"
    path.write_bytes(buf.getvalue())
    ((_, rgb, _, _),) = pages_of(path.read_bytes())
    assert rgb.shape[:2] == (1165, 1654)
    png = subprocess.run(["pdftoppm", "-r", "200", "-png", str(path)], capture_output=True, check=True).stdout
    poppler = np.asarray(Image.open(io.BytesIO(png)).convert("RGB"))
    assert abs(poppler.shape[0] - 1165) <= 1 and abs(poppler.shape[1] - 1654) <= 1   # poppler rounds up
    poppler = poppler[:1165, :1654]
    # Two renderers anti-alias text differently, so compare where the ink is, not exact values.
    ours_ink, their_ink = rgb.min(axis=2) < 128, poppler.min(axis=2) < 128
    assert ours_ink.sum() > 5000
    assert (ours_ink & their_ink).sum() / (ours_ink | their_ink).sum() > 0.8


def test_a_page_over_max_pixels_is_rendered_smaller_with_a_warning():
    cfg = Config.from_dict({"global": {"max_pixels": 100_000}})
    ((_, rgb, dpi, warning),) = pages_of(F.blank_pdf(1), cfg)   # 200 x 200 pt: 556 x 556 px at 200 DPI
    assert dpi < 200 and rgb.shape[0] * rgb.shape[1] <= 100_000 and "rendered at" in warning
    assert (rgb == 255).all()   # white background


@pytest.mark.parametrize("maker, code", [
    (F.encrypted_pdf, "pdf_encrypted"),
    (F.garbage_pdf, "pdf_invalid"),
    (lambda: F.truncated_pdf(F.vector_text_pdf()), "pdf_invalid"),
    (F.zero_page_pdf, "pdf_empty"),
])
def test_whole_document_errors_have_their_codes(maker, code):
    with pytest.raises(RettoError) as exc:
        pdf_native.pdf_pages(maker(), CFG)
    assert exc.value.code == code


def test_too_many_pages_is_refused_before_any_page_is_rendered():
    with pytest.raises(RettoError) as exc:
        pdf_native.pdf_pages(F.blank_pdf(3), Config.from_dict({"document": {"max_pages": 2}}))
    assert exc.value.code == "pdf_too_many_pages" and "document.max_pages" in exc.value.message
    assert len(pages_of(F.blank_pdf(3), Config.from_dict({"document": {"max_pages": 3}}))) == 3
