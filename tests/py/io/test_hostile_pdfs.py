"""Hostile PDFs natively (issue 23): every probe's bad page is refused before PDFium loads it, with the page error
pdf_page_too_complex (over a budget) or pdf_page_unmeasured (it could not be measured), its good page is still
read, and the CLI's peak memory stays under 1.5 GB."""
from __future__ import annotations

import json
import sys

import pytest

from refkit import ROOT, run_cli_peak

import hostile_pdfs
from retto.config import Config, DocumentConfig
from retto.errors import PDF_PAGE_TOO_COMPLEX, PDF_PAGE_UNMEASURED
from retto.io.pdf_guard import PageGuard

DATA = ROOT / "tests" / "data"


@pytest.fixture(scope="module")
def probes(tmp_path_factory):
    out = tmp_path_factory.mktemp("hostile")
    hostile_pdfs.main(out)   # full size: the sizes the issue measured (about 2 s to write)
    return out


# What each probe's first page asks for, in words the error names (the probe maker's own figures).
TOO_COMPLEX = {
    "jpeg_65000.pdf": "65000 x 65000 pixels", "flate_image_20000.pdf": "20000 x 20000 pixels",
    "smask_30000.pdf": "30000 x 30000 pixels", "path_ops_2m.pdf": "operators", "text_ops_1gb.pdf": "operators",
    "spaces_1gb.pdf": "decode to over", "nested_forms.pdf": "operators",
    "inline_image_20000.pdf": "20000 x 20000 pixels", "type3_glyph_ops_2m.pdf": "operators",
    "pattern_ops_2m.pdf": "operators",
}
EXPECTED = {**{name: (PDF_PAGE_TOO_COMPLEX, words) for name, words in TOO_COMPLEX.items()},
            "unknown_filter.pdf": (PDF_PAGE_UNMEASURED, "could not be measured")}


def test_the_cli_refuses_each_hostile_page_reads_the_next_and_stays_under_1_5_gb(probes):
    proc, peak = run_cli_peak(["--inputs", probes, "--format", "jsonl", "--no-progress", "--threads", "2"])
    assert proc.returncode == 1, proc.stderr   # every document has a failed page
    records = {json.loads(line)["path"].split("/")[-1]: json.loads(line) for line in proc.stdout.splitlines()}
    assert sorted(records) == sorted(EXPECTED)
    for name, record in records.items():
        bad, good = record["pages"]
        code, words = EXPECTED[name]
        assert bad["error"]["code"] == code, (name, bad)
        assert words in bad["error"]["message"], (name, bad)
        assert [line["text"] for line in good["lines"]] == [hostile_pdfs.GOOD_PAGE_TEXT], name
    print(f"hostile PDFs through the CLI: peak RSS {peak:.0f} MB")
    assert peak < 1500


def check_all(data: bytes, document: DocumentConfig = None) -> list:
    guard = PageGuard(data, document or Config().document)
    return [guard.check(i) for i in range(guard.count)]


def test_real_pdfs_and_pages_just_within_the_budgets_pass():
    for name in ("c03-29.pdf", "francais.pdf"):
        verdicts = check_all((DATA / name).read_bytes())
        assert verdicts and all(v is None for v in verdicts), name
    # 990,000 path operators against a budget of 1,000,000; 60 MB of content against 64 MB.
    assert check_all(hostile_pdfs.path_operators(990_000)) == [None, None]
    assert check_all(hostile_pdfs.spaces_bomb(60_000_000)) == [None, None]


def test_forms_count_as_often_as_they_are_drawn():
    doc = Config().document
    # The page draws form 1 ten times, each draws form 2 ten times, ...; form 4 strokes once (3 operators):
    # 10 + 100 + 1,000 + 10,000 "Do" operators and 10,000 x 3 for the strokes = 41,110 operators.
    nested = hostile_pdfs.nested_forms(depth=4, fan=10)
    small = DocumentConfig(max_page_operators=41_109, max_content_bytes=doc.max_content_bytes,
                           max_image_pixels=doc.max_image_pixels)
    large = DocumentConfig(max_page_operators=41_110, max_content_bytes=doc.max_content_bytes,
                           max_image_pixels=doc.max_image_pixels)
    refused = check_all(nested, small)[0]
    assert refused is not None and refused.code == PDF_PAGE_TOO_COMPLEX
    assert check_all(nested, large) == [None, None]


def test_a_pdf_pypdf_cannot_parse_gets_the_renderers_error_and_no_page_unmeasured():
    from retto.native import pdf_render as pdf_native
    from retto.errors import RettoError
    garbage = b"%PDF-1.4\nnot really a pdf"
    assert PageGuard(garbage, Config().document).check(0).code == PDF_PAGE_UNMEASURED   # if a renderer opened it
    with pytest.raises(RettoError) as exc:   # PDFium cannot open it either: its error is the document's
        pdf_native.pdf_pages(garbage, Config())
    assert exc.value.code == "pdf_invalid"


def test_without_pypdf_every_page_is_refused_unmeasured(monkeypatch):
    """Fail closed: with no reader to measure them, pages are not handed to the renderer."""
    from retto.native import pdf_render as pdf_native
    monkeypatch.setitem(sys.modules, "pypdf", None)   # what `import pypdf` meets when it is not installed
    count, pages = pdf_native.pdf_pages(hostile_pdfs.path_operators(3000), Config())
    assert count == 2
    for page, err, _dpi, _warning in pages:
        assert err.code == PDF_PAGE_UNMEASURED and "pypdf" in err.message, (page, err)


def test_inline_images_type3_glyphs_and_pattern_cells_are_counted_at_the_budget_edge():
    doc = Config().document

    def budgets(ops=doc.max_page_operators, pixels=doc.max_image_pixels):
        return DocumentConfig(max_page_operators=ops, max_content_bytes=doc.max_content_bytes, max_image_pixels=pixels)
    # 3,000 path operators in the glyph (+ its d0) and in the cell, plus the page's own: BT Tf Td Tj ET and the
    # word A in the string (6); cs scn re f (4).
    assert check_all(hostile_pdfs.type3_glyph_operators(3000), budgets(ops=3007))[0] is None
    assert check_all(hostile_pdfs.type3_glyph_operators(3000), budgets(ops=3006))[0].code == PDF_PAGE_TOO_COMPLEX
    assert check_all(hostile_pdfs.pattern_operators(3000), budgets(ops=3004))[0] is None
    assert check_all(hostile_pdfs.pattern_operators(3000), budgets(ops=3003))[0].code == PDF_PAGE_TOO_COMPLEX
    small = hostile_pdfs.inline_image_bomb(side=100)   # 100 x 100 = 10,000 pixels
    assert check_all(small, budgets(pixels=10_000))[0] is None
    assert check_all(small, budgets(pixels=9_999))[0].code == PDF_PAGE_TOO_COMPLEX


def test_structures_the_renderers_read_differently_get_one_answer_natively():
    """The browser gives the same (tests/e2e/runtime/hostile.spec.js compares the two runtimes' records)."""
    from retto.native import pdf_render as pdf_native
    from retto.errors import RettoError
    cfg = Config()
    count, pages = pdf_native.pdf_pages(hostile_pdfs.lying_count(5), cfg)   # /Count 5, one page
    assert count == 1 and [p for p, *_ in pages] == [1]
    count, pages = pdf_native.pdf_pages(hostile_pdfs.user_unit(10), cfg)    # /UserUnit ignored: 300 x 100 points
    (_, rgb, dpi, _), = list(pages)
    assert rgb.shape[:2] == (278, 833) and dpi == 200
    with pytest.raises(RettoError) as exc:
        pdf_native.pdf_pages(hostile_pdfs.unknown_security_handler(), cfg)
    assert exc.value.code == "pdf_encrypted"
    with pytest.raises(RettoError) as exc:
        pdf_native.pdf_pages(hostile_pdfs.deep_page_tree(600), cfg)
    assert exc.value.code == "pdf_invalid" and "depth" in exc.value.message


@pytest.mark.parametrize("revision", [4, 6])
def test_a_permissions_only_aes_pdf_is_read(retto_session, revision):
    """pypdf cannot decrypt AES here (no crypto library in either runtime), so the guard cannot measure such a
    file; it must still be read, as both renderers open it without a password (hostile.spec.js: the browser too)."""
    from retto.native import pdf_render as pdf_native
    data = hostile_pdfs.aes_permissions_only(revision)
    assert b"/AESV" in data and b"Total due" not in data   # really encrypted, the text not in the clear
    count, pages = pdf_native.pdf_pages(data, Config())
    (_, rgb, _, _), = list(pages)
    assert count == 1 and not isinstance(rgb, Exception), rgb
    assert [l.text for l in retto_session.run(rgb).lines] == [hostile_pdfs.GOOD_PAGE_TEXT]
