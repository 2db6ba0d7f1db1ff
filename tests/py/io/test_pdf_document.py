"""retto.io.document: the page-size rule both runtimes render to, the page limits, the records."""
from __future__ import annotations

import pytest

from retto import Config, RettoError

from retto.io import document


def test_page_size_is_points_at_the_dpi():
    # US Letter at 200 DPI: 8.5 x 11 inches -> 1700 x 2200 pixels; A4 (595.28 x 841.89 pt) -> 1654 x 2339.
    assert document.render_scale(612, 792, 200, 100_000_000) == (200, 1700, 2200, None)
    assert document.render_scale(595.28, 841.89, 200, 100_000_000)[1:3] == (1654, 2339)
    assert document.render_scale(0.1, 0.1, 72, 100)[1:3] == (1, 1)   # never less than one pixel


def test_a_page_over_max_pixels_gets_the_largest_dpi_that_fits_and_says_so():
    limit = 20_000_000
    dpi, w, h, warning = document.render_scale(2160, 2160, 200, limit)   # 30 x 30 inches
    assert w * h <= limit and dpi < 200
    bigger = document.pixel_size(2160, 2160, dpi + 1)
    assert bigger[0] * bigger[1] > limit                                  # one DPI more would not fit
    assert (w, h) == document.pixel_size(2160, 2160, dpi)
    assert f"rendered at {dpi} DPI" in warning and "global.max_pixels" in warning
    # rounding leaves slack on small pages: 10 pt is 10 px from 69 to 75 DPI, so 75 is the answer for 100 pixels
    assert document.render_scale(10, 10, 200, 100)[:3] == (75, 10, 10)
    with pytest.raises(RettoError) as exc:
        document.render_scale(14400, 14400, 200, 10)                      # 200 x 200 inches, 10 pixels
    assert exc.value.code == "image_too_large"


def test_pages_without_a_size_are_invalid():
    for w, h in ((0, 100), (100, -1), (float("nan"), 100), (float("inf"), 5)):
        with pytest.raises(RettoError) as exc:
            document.render_scale(w, h, 200, 100_000_000)
        assert exc.value.code == "pdf_invalid"


def test_page_count_limits_name_the_key_that_raises_them():
    document.check_page_count(1, 1)
    with pytest.raises(RettoError) as exc:
        document.check_page_count(0, 500)
    assert exc.value.code == "pdf_empty"
    with pytest.raises(RettoError) as exc:
        document.check_page_count(501, 500)
    assert exc.value.code == "pdf_too_many_pages"
    assert "501" in exc.value.message and "500" in exc.value.message and "document.max_pages" in exc.value.message


def test_records():
    page = document.page_record({"image": {"width": 1, "height": 1}, "lines": []}, 2, dpi=150)
    assert page == {"page": 2, "image": {"width": 1, "height": 1}, "lines": [], "source": "ocr", "dpi": 150}
    assert "dpi" not in document.page_record({"lines": []}, 1)
    failed = document.page_error(3, "invalid_image", "no")
    assert failed == {"page": 3, "error": {"code": "invalid_image", "message": "no"}}
    doc = document.document_record("a.pdf", [page, failed], 3)
    assert doc == {"path": "a.pdf", "kind": "pdf", "page_count": 3, "pages": [page, failed]}
    assert document.document_record("a.pdf", [], 0, ["w"])["warnings"] == ["w"]
    assert document.failed_pages(doc) == [3]


def test_pdf_is_known_by_its_header_not_its_name():
    assert document.is_pdf(b"%PDF-1.4\n...")
    assert document.is_pdf(b"\r\n junk before %PDF-1.7\n")   # readers accept junk before the header
    assert not document.is_pdf(b"\x89PNG\r\n\x1a\n tEXt %PDF-1.4")
    assert not document.is_pdf(b"GIF89a")


def test_config_has_a_document_section_with_stated_limits():
    cfg = Config()
    assert (cfg.document.dpi, cfg.document.max_pages) == (200, 500)
    cfg = Config.from_dict({"document": {"dpi": 300, "max_pages": 2}})
    assert (cfg.document.dpi, cfg.document.max_pages) == (300, 2)
    assert Config.from_json(cfg.to_json()).document.dpi == 300
    for bad in ({"dpi": 0}, {"max_pages": 0}):
        with pytest.raises(RettoError):
            Config.from_dict({"document": bad})
    with pytest.raises(RettoError):
        Config.from_dict({"document": {"scale": 2}})
