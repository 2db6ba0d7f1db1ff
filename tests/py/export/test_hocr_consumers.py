"""hOCR and ALTO as other tools read them: Scribe.js's importer (scribe.js-ocr 0.10.1 from npm, under Node) must
import every line and word with our boxes; hocr-tools 1.1.1's hocr-check (PyPI) must pass; ALTO keeps validating
against the 4.2 XSD with BASELINE on every line. The baseline itself is checked against the labelled test page's
ground truth (glyph boxes from the renderer), not against our own arithmetic."""
from __future__ import annotations

import json
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from refkit import ROOT, run_ours

from retto import export

from retto.io import document

XHTML = "{http://www.w3.org/1999/xhtml}"
ALTO = "{http://www.loc.gov/standards/alto/ns-v4#}"
SCHEMAS = ROOT / "tests" / "schemas"
DARK_UI = ROOT / "tests" / "testset" / "pages" / "dark_ui.png"

# Hand-made lines that are turned: upside down (the classifier's 180) and running up the page (a 90° box).
TURNED = {"path": "turned.png", "image": {"width": 300, "height": 300}, "model_set": "ppocr-v4", "lines": [
    {"box": [[20, 20], [220, 20], [220, 50], [20, 50]], "text": "upside down", "score": 0.9, "angle": 180},
    {"box": [[250, 260], [250, 60], [280, 60], [280, 260]], "text": "going up", "score": 0.8, "angle": 0}]}


@pytest.fixture(scope="module")
def pages(reference_runs, retto_session):
    """Three real pages read with the reference set (ppocr-v4: Chinese and English) and the turned lines."""
    read = [reference_runs(n)["ours"] for n in ("typewriter", "baiona")]
    read.append(run_ours(retto_session, DARK_UI.read_bytes()))
    return read + [TURNED]


@pytest.fixture(scope="module")
def hocr_files(pages, tmp_path_factory):
    """(hOCR file, its page records): one three-page document and one single image."""
    tmp = tmp_path_factory.mktemp("hocr")
    doc = document.document_record("scan.pdf", [document.page_record(p, i, dpi=200)
                                                for i, p in enumerate(pages[:3], 1)], 3)
    files = []
    for name, record, page_list in (("doc", doc, pages[:3]), ("turned", TURNED, [TURNED])):
        path = tmp / f"{name}.hocr"
        path.write_text(export.render(record, "hocr"), encoding="utf-8")
        files.append((path, page_list))
    return files


def test_scribe_imports_every_line_and_word_with_our_boxes(hocr_files):
    for path, page_list in hocr_files:
        proc = subprocess.run(["node", str(ROOT / "tests" / "py" / "scribe_import.mjs"), str(path)], cwd=ROOT,
                              capture_output=True, text=True, timeout=120)
        assert proc.returncode == 0, proc.stderr
        imported = json.loads(proc.stdout)
        assert len(imported) == len(page_list)
        for page, got in zip(page_list, imported):
            assert got["dims"] == {"width": page["image"]["width"], "height": page["image"]["height"]}
            assert len(got["lines"]) == len(page["lines"]) > 0, path.name     # 100 % of the lines
            for line, scribe_line in zip(page["lines"], got["lines"]):
                words = export.line_words(line)
                # Scribe keeps a line's box as the union of its words' boxes (its own rule, not hOCR's bbox).
                assert scribe_line["bbox"] == list(export.xml.union([w["box"] for w in words]))
                assert [w["text"] for w in scribe_line["words"]] == [w["text"] for w in words]
                assert [w["bbox"] for w in scribe_line["words"]] == [list(export.bounds(w["box"])) for w in words]
                assert [w["conf"] for w in scribe_line["words"]] == [round(100 * w["score"]) for w in words]


def test_hocr_tools_check_passes(hocr_files, tmp_path):
    """hocr-tools 1.1.1 `hocr-check`: ocr-system and ocr-capabilities metadata, at least one ocr_page, every
    ocr_line / ocr_par / ocr_carea inside a page, and lines, paragraphs and areas mostly not overlapping. Its overlap
    check compares the boxes of the whole file (an absolute XPath), so a document's pages, which share
    coordinates, are also checked one page per file."""
    check = Path(sys.executable).with_name("hocr-check")
    files = []
    for path, _ in hocr_files:
        text = path.read_text(encoding="utf-8")
        head, *pages = re.split(r'(?=<div class="ocr_page")', text)
        files.append([str(path)] + (["-o"] if len(pages) > 1 else []))
        for n, page in enumerate(pages if len(pages) > 1 else []):
            one = tmp_path / f"{path.stem}_{n}.hocr"
            body = page if n == len(pages) - 1 else page + "</body>\n</html>"
            one.write_text(head + body, encoding="utf-8")
            files.append([str(one)])
    for args in files:
        proc = subprocess.run([str(check), *args], capture_output=True, text=True, timeout=60)
        results = proc.stderr.splitlines()   # hocr-check reports on stderr, one "ok N - what" per check
        assert proc.returncode == 0 and len(results) > 5, proc.stderr
        assert all(r.startswith("ok ") for r in results), proc.stderr
    assert len(files) == 5


def test_line_properties_say_baseline_metrics_turn_and_language(hocr_files):
    path, page_list = hocr_files[0]
    root = ET.fromstring(path.read_text(encoding="utf-8"))
    lines = [s for s in root.iter(f"{XHTML}span") if s.get("class") == "ocr_line"]
    assert len(lines) == sum(len(p["lines"]) for p in page_list)
    prop = re.compile(r"bbox \d+ \d+ \d+ \d+; baseline -?[\d.]+ -?[\d.]+; x_size [\d.]+; x_descenders [\d.]+; "
                      r"x_ascenders [\d.]+$")
    assert all(prop.match(s.get("title")) for s in lines), [s.get("title") for s in lines if not prop.match(s.get("title"))]
    # ppocr-v4 reads Chinese and English (its set file): a line of Latin letters alone is English.
    texts = [ln["text"] for p in page_list for ln in p["lines"]]
    for span, text in zip(lines, texts):
        if re.fullmatch(r"[A-Za-z0-9 .,:;'()!?-]*[A-Za-z][A-Za-z0-9 .,:;'()!?-]*", text):
            assert span.get("lang") == "en", text
    turned = ET.fromstring(hocr_files[1][0].read_text(encoding="utf-8"))
    titles = [s.get("title") for s in turned.iter(f"{XHTML}span") if s.get("class") == "ocr_line"]
    assert titles[0].endswith("; textangle 180") and titles[1].endswith("; textangle 90")


def test_baseline_lies_where_the_glyphs_rest(pages):
    """dark_ui's ground truth gives each line's ink box; for lines without descending letters the ink ends on the
    baseline. Ours must be within a sixth of the line height of it, at the line's middle."""
    truth = json.loads(DARK_UI.with_suffix(".gt.json").read_text(encoding="utf-8"))
    ink = {ln["text"]: ln["box"] for ln in truth["lines"]}
    from retto.ops.line_metrics import measure
    checked = 0
    for line in pages[2]["lines"]:
        if line["text"] not in ink or re.search(r"[gjpqyQ,;()\[\]{}/|@$_]", line["text"]):
            continue
        m = measure(line)
        (lx, ly), (rx, ry) = m.baseline
        bottom = max(p[1] for p in ink[line["text"]])
        assert abs((ly + ry) / 2 - bottom) <= m.x_size / 6, (line["text"], (ly + ry) / 2, bottom)
        checked += 1
    assert checked >= 10


def test_alto_lines_carry_a_baseline_inside_the_line_and_validate(pages):
    import xmlschema
    schema = xmlschema.XMLSchema(str(SCHEMAS / "alto-4-2.xsd"), allow="local",
                                 locations=[("http://www.w3.org/1999/xlink", str(SCHEMAS / "xlink.xsd"))])
    for page in pages:
        text = export.render({"path": "p.png", **page}, "alto")
        schema.validate(text)
        lines = list(ET.fromstring(text).iter(f"{ALTO}TextLine"))
        assert len(lines) == len(page["lines"])
        for tl in lines:
            points = [tuple(map(int, p.split(","))) for p in tl.get("BASELINE").split()]
            top, height = int(tl.get("VPOS")), int(tl.get("HEIGHT"))
            assert len(points) == 2 and all(top <= y <= top + height for _, y in points), tl.attrib
