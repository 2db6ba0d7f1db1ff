"""document.text_layer natively: a PDF page that carries text gives that text (source "text"), with word boxes where
the font puts the words (fpdf2's own string widths are the reference); scans and image pages are still read by
OCR (source "ocr")."""
from __future__ import annotations

import io

import pytest
from fpdf import FPDF

from pdf_fixtures import DEJAVU, VECTOR_LINES, image_pdf, stamped_scan_pdf, vector_text_pdf
from refkit import DATA

from retto import RettoError
from retto.native.read import ocr_pdf
from retto.config import Config

SIZE = 16   # vector_text_pdf's font size; its lines start at x 36 pt, baselines at 72 + i * 2.2 * SIZE


def read(worker, data: bytes, mode: str) -> dict:
    return ocr_pdf(worker.session({"document": {"text_layer": mode}}), data)


def test_text_pdf_gives_its_own_words_where_the_font_puts_them(retto_worker):
    data = vector_text_pdf()
    doc = read(retto_worker, data, "auto")
    (page,) = doc["pages"]
    assert page["source"] == "text" and [ln["text"] for ln in page["lines"]] == VECTOR_LINES
    pt = 72.0 / page["dpi"]
    widths = FPDF(unit="pt")
    widths.add_font("DejaVu", fname=str(DEJAVU))
    widths.set_font("DejaVu", size=SIZE)
    for i, (line, text) in enumerate(zip(page["lines"], VECTOR_LINES)):
        start = 0
        for word in line["words"]:
            at = text.index(word["text"], start)
            x0 = 36 + widths.get_string_width(text[:at])
            x1 = x0 + widths.get_string_width(word["text"])
            start = at + len(word["text"])
            (bx0, top), (bx1, _), (_, bottom), _ = word["box"]
            assert abs(bx0 * pt - x0) <= 1 and abs(bx1 * pt - x1) <= 1, (word, x0, x1)
            assert top * pt < 72 + i * 2.2 * SIZE < bottom * pt      # the baseline inside the box
        assert start == len(text)
    assert read(retto_worker, data, "text")["pages"][0]["lines"] == page["lines"]
    assert read(retto_worker, data, "ocr")["pages"][0]["source"] == "ocr"


def test_scans_and_partly_text_pages_are_read_by_ocr(retto_worker):
    scan = read(retto_worker, image_pdf([DATA / "baiona.png"]), "auto")["pages"][0]
    assert scan["source"] == "ocr" and len(scan["lines"]) > 10
    stamped = stamped_scan_pdf()
    auto = read(retto_worker, stamped, "auto")["pages"][0]
    assert auto["source"] == "ocr" and len(auto["lines"]) > 10
    text = read(retto_worker, stamped, "text")["pages"][0]
    assert text["source"] == "text" and [ln["text"] for ln in text["lines"]] == ["Received 2026-03-01"]


def test_bad_mode_is_refused():
    with pytest.raises(RettoError) as err:
        Config.from_dict({"document": {"text_layer": "sometimes"}})
    assert err.value.code == "invalid_config" and "auto, ocr, text" in err.value.message
