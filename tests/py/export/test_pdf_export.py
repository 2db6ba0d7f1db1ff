"""Searchable PDF (retto.export.searchable_pdf), checked with poppler's pdftotext / pdfinfo / pdfimages.

Inputs are real OCR results of the pinned pages (the reference runs), on their real pictures.
"""
from __future__ import annotations

import io
import re
import subprocess

import numpy as np
import pytest
from PIL import Image

from retto import export

# pdftotext -bbox positions vs our word boxes (points): coordinates are written with 0.01 pt, and poppler gives a

from retto.io import document
# slanted word (up to ~3 degrees in these pages) the box of its baseline run, which differs from the axis-aligned
# box around the slanted quad by up to height * sin(angle), about 0.4 pt here. 1 pt (2.8 px at 200 DPI) covers
# both while staying far below a character's width.
BBOX_TOLERANCE_PT = 1.0


def words_of(page: dict) -> list:
    return [w for line in page["lines"] for w in export.line_words(line)]


def tokens(text: str) -> list:
    return text.split()


def pdftotext(pdf: bytes, *args) -> str:
    return subprocess.run(["pdftotext", *args, "-", "-"], input=pdf, capture_output=True, check=True).stdout.decode()


@pytest.fixture(scope="module")
def two_page_document(reference_runs, image_paths):
    """(document record, page pictures): typewriter.png and baiona.png as the pages of one document."""
    names = ["typewriter", "baiona"]
    pages = [document.page_record(reference_runs(n)["ours"], i, dpi=200) for i, n in enumerate(names, 1)]
    return document.document_record("scan.pdf", pages, 2), [image_paths[n].read_bytes() for n in names]


def test_pdftotext_finds_every_line_in_order_page_by_page(two_page_document):
    record, pictures = two_page_document
    pdf = export.searchable_pdf(record, pictures)
    # -raw: the text in the order it was drawn, i.e. ours; pages are separated by form feeds.
    found = pdftotext(pdf, "-raw").split("\f")
    assert len([p for p in found if p.strip()]) == 2
    for page, text in zip(record["pages"], found):
        want = tokens(" ".join(line["text"] for line in page["lines"]))
        assert len(want) > 10 and tokens(text) == want, page["page"]


def test_pages_have_the_pictures_size_at_their_dpi(two_page_document, image_paths):
    record, pictures = two_page_document
    pdf = export.searchable_pdf(record, pictures)
    info = subprocess.run(["pdfinfo", "-f", "1", "-l", "2", "-"], input=pdf, capture_output=True,
                          check=True).stdout.decode()
    sizes = [tuple(map(float, m)) for m in re.findall(r"Page\s+\d+ size:\s+([\d.]+) x ([\d.]+) pts", info)]
    assert sizes == [(4000 * 72 / 200, 2864 * 72 / 200), (640 * 72 / 200, 682 * 72 / 200)]


def test_word_positions_fall_inside_the_word_boxes(two_page_document):
    record, pictures = two_page_document
    pdf = export.searchable_pdf(record, pictures)
    layout = pdftotext(pdf, "-bbox")
    pages = layout.split("<page ")[1:]
    assert len(pages) == 2
    k = 72 / 200
    for page, found in zip(record["pages"], pages):
        ours = [(w["text"], export.bounds(w["box"])) for w in words_of(page)]
        theirs = re.findall(r'<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">([^<]*)</word>',
                            found)
        assert len(theirs) == len(ours)
        for x0, y0, x1, y1, text in theirs:
            box = [float(v) for v in (x0, y0, x1, y1)]
            inside = [t for t, (a, b, c, d) in ours if t == text.replace("&amp;", "&").replace("&quot;", '"')
                      .replace("&lt;", "<").replace("&gt;", ">").replace("&apos;", "'")
                      and box[0] >= a * k - BBOX_TOLERANCE_PT and box[1] >= b * k - BBOX_TOLERANCE_PT
                      and box[2] <= c * k + BBOX_TOLERANCE_PT and box[3] <= d * k + BBOX_TOLERANCE_PT]
            assert inside, (text, box)


def test_same_input_same_bytes_and_any_script_extracts(two_page_document):
    record, pictures = two_page_document
    assert export.searchable_pdf(record, pictures) == export.searchable_pdf(record, pictures)
    scripts = {"path": "x.png", "image": {"width": 600, "height": 100}, "lines": [
        {"box": [[10, 10], [590, 10], [590, 45], [10, 45]], "text": "中文识别 Café naïve Ærø 😀",
         "score": 0.9, "angle": 0},
        {"box": [[10, 55], [300, 55], [300, 90], [10, 90]], "text": "second line", "score": 0.9, "angle": 0}]}
    pdf = export.searchable_pdf(scripts, [np.full((100, 600, 3), 255, np.uint8)])
    assert tokens(pdftotext(pdf, "-raw")) == tokens("中文识别 Café naïve Ærø 😀 second line")


def test_a_jpeg_is_embedded_as_given_and_an_image_dpi_sets_the_page_size(image_paths, tmp_path):
    jpeg = image_paths["baiona_color.jpg"].read_bytes()
    record = {"path": "b.jpg", "image": {"width": 640, "height": 682}, "lines": []}
    record["lines"] = [{"box": [[10, 10], [200, 10], [200, 40], [10, 40]], "text": "label", "score": 0.9,
                        "angle": 0}]
    pdf = export.searchable_pdf(record, [jpeg])
    (tmp_path / "b.pdf").write_bytes(pdf)
    subprocess.run(["pdfimages", "-j", str(tmp_path / "b.pdf"), str(tmp_path / "img")], check=True)
    assert (tmp_path / "img-000.jpg").read_bytes() == jpeg                # not re-encoded
    with Image.open(io.BytesIO(jpeg)) as im:
        stated = im.info.get("dpi", (200, 200))[0]
    info = subprocess.run(["pdfinfo", "-"], input=pdf, capture_output=True, check=True).stdout.decode()
    w, h = map(float, re.search(r"Page size:\s+([\d.]+) x ([\d.]+)", info).groups())
    assert (round(w, 2), round(h, 2)) == (round(640 * 72 / stated, 2), round(682 * 72 / stated, 2))
    # A PNG that states 300 DPI makes a page of 640 x 682 pixels at 300 DPI.
    buf = io.BytesIO()
    Image.open(image_paths["baiona"]).save(buf, format="PNG", dpi=(300, 300))
    info = subprocess.run(["pdfinfo", "-"], input=export.searchable_pdf(record, [buf.getvalue()]),
                          capture_output=True, check=True).stdout.decode()
    w, h = map(float, re.search(r"Page size:\s+([\d.]+) x ([\d.]+)", info).groups())
    assert abs(w - 640 * 72 / 300) < 0.05 and abs(h - 682 * 72 / 300) < 0.05


def test_failed_pages_and_records_without_results():
    ok = document.page_record({"image": {"width": 100, "height": 50}, "lines": [
        {"box": [[5, 5], [95, 5], [95, 45], [5, 45]], "text": "kept", "score": 0.9, "angle": 0}]}, 2, dpi=100)
    failed = document.page_error(1, "internal_error", "x")
    record = document.document_record("d.pdf", [failed, ok], 2)
    pdf = export.searchable_pdf(record, [None, np.full((50, 100, 3), 255, np.uint8)])
    info = subprocess.run(["pdfinfo", "-"], input=pdf, capture_output=True, check=True).stdout.decode()
    assert re.search(r"Pages:\s+1\b", info) and tokens(pdftotext(pdf)) == ["kept"]
    with pytest.raises(ValueError):
        export.searchable_pdf(document.document_record("d.pdf", [failed], 1), [None])
    with pytest.raises(ValueError):
        export.searchable_pdf({"path": "x", "error": {"code": "invalid_image", "message": "x"}}, [None])
