"""retto.export: the formats the CLI (and, through the worker, the browser) write, checked by parsing them back."""
from __future__ import annotations

import json
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest

from refkit import ROOT

from retto import export

# A hand-made result: two blocks, words on the first line only (the second line is one word), an & and quotes.
RECORD = {
    "path": "scan & co.png",
    "image": {"width": 400, "height": 200},
    "lines": [
        {"box": [[10, 10], [210, 10], [210, 40], [10, 40]], "text": "Fish & \"chips\"", "score": 0.9,
         "angle": 0, "words": [
             {"text": "Fish", "box": [[10, 10], [70, 10], [70, 40], [10, 40]], "score": 0.95},
             {"text": "&", "box": [[80, 10], [95, 10], [95, 40], [80, 40]], "score": 0.5},
             {"text": "\"chips\"", "box": [[105, 10], [210, 10], [210, 40], [105, 40]], "score": 0.91}]},
        {"box": [[10, 50], [200, 50], [200.6, 80.4], [10, 80]], "text": "a well-known exam-", "score": 0.8,
         "angle": 0},
        {"box": [[10, 90], [200, 90], [200, 120], [10, 120]], "text": "ple of it", "score": 0.7, "angle": 0},
        {"box": [[10, 150], [120, 150], [120, 180], [10, 180]], "text": "Next para", "score": 0.6, "angle": 0},
    ],
    "blocks": [{"box": [[10, 10], [210, 10], [210, 120], [10, 120]], "lines": [0, 1, 2]},
               {"box": [[10, 150], [120, 150], [120, 180], [10, 180]], "lines": [3]}],
}

XHTML = "{http://www.w3.org/1999/xhtml}"
ALTO = "{http://www.loc.gov/standards/alto/ns-v4#}"


def test_markdown_joins_hyphenated_line_ends_and_keeps_paragraphs():
    assert export.render(RECORD, "md") == 'Fish & "chips" a well-known example of it\n\nNext para'
    assert export.join_lines(["state-", "of-the-art", "X-", "Ray"]) == "state-of-the-art X- Ray"


def test_hocr_parses_as_xhtml_with_page_lines_and_words():
    root = ET.fromstring(export.render(RECORD, "hocr"))
    page = root.find(f".//{XHTML}div[@class='ocr_page']")
    assert page.get("title") == 'image "scan & co.png"; bbox 0 0 400 200'
    lines = root.findall(f".//{XHTML}span[@class='ocr_line']")
    assert [ln.get("title").split(";")[0] for ln in lines] == ["bbox 10 10 210 40", "bbox 10 50 201 80",
                                                               "bbox 10 90 200 120", "bbox 10 150 120 180"]
    # A level 30 px line: the glyphs rest a fifth of its height above its bottom (line_metrics).
    assert lines[0].get("title") == "bbox 10 10 210 40; baseline 0 -6; x_size 30; x_descenders 6; x_ascenders 6"
    words = root.findall(f".//{XHTML}span[@class='ocrx_word']")
    assert [w.text for w in words] == ["Fish", "&", '"chips"', "a well-known exam-", "ple of it", "Next para"]
    assert words[1].get("title") == "bbox 80 10 95 40; x_wconf 50"
    assert len({w.get("id") for w in words}) == len(words)
    assert len(root.findall(f".//{XHTML}p[@class='ocr_par']")) == 2


def test_alto_parses_with_its_namespace_and_positions(alto_schema):
    alto_schema.validate(export.render(RECORD, "alto"))
    root = ET.fromstring(export.render(RECORD, "alto"))
    assert root.tag == f"{ALTO}alto"
    page = root.find(f"{ALTO}Layout/{ALTO}Page")
    assert (page.get("WIDTH"), page.get("HEIGHT")) == ("400", "200")
    strings = root.findall(f".//{ALTO}String")
    assert [s.get("CONTENT") for s in strings] == ["Fish", "&", '"chips"', "a well-known exam-", "ple of it",
                                                  "Next para"]
    assert (strings[0].get("HPOS"), strings[0].get("VPOS"), strings[0].get("WIDTH"), strings[0].get("HEIGHT")) \
        == ("10", "10", "60", "30")
    assert strings[1].get("WC") == "0.5000"
    assert len(root.findall(f".//{ALTO}TextBlock")) == 2
    assert len(root.findall(f".//{ALTO}SP")) == 2   # between the three words of line 1


def test_errors_render_as_errors_and_have_no_xml_document():
    err = {"path": "x.png", "error": {"code": "invalid_image", "message": "not an image"}}
    assert export.render(err, "tsv") == "x.png\tERROR\tinvalid_image\tnot an image"
    with pytest.raises(ValueError):
        export.render(err, "alto")


def test_cli_writes_each_format_from_a_real_page(tmp_path, alto_schema):
    page = ROOT / "tests" / "testset" / "pages" / "dark_ui.png"
    outputs = {}
    for fmt in ("md", "hocr", "alto", "json"):
        proc = subprocess.run([sys.executable, "-m", "retto", "--images", str(page), "--format", fmt,
                               "--output", str(tmp_path / fmt), "--no-progress"], cwd=ROOT, capture_output=True,
                              timeout=300)
        assert proc.returncode == 0, proc.stderr
        (out,) = (tmp_path / fmt).iterdir()
        outputs[fmt] = out.read_text(encoding="utf-8")
    record = json.loads(outputs["json"])
    texts = [line["text"] for line in record["lines"]]
    assert [w.text for w in ET.fromstring(outputs["hocr"]).iter(f"{XHTML}span") if w.get("class") == "ocrx_word"]
    alto_words = [s.get("CONTENT") for s in ET.fromstring(outputs["alto"]).iter(f"{ALTO}String")]
    alto_schema.validate(outputs["alto"])
    assert " ".join(alto_words).split() == " ".join(texts).split()
    assert outputs["md"].split() == " ".join(texts).split()
    many = subprocess.run([sys.executable, "-m", "retto", "--images", str(page), str(page), "--format", "alto"],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert many.returncode == 2 and "--output" in many.stderr


# --------------------------------------------------------------------------------------------- documents

SCHEMAS = ROOT / "tests" / "schemas"


@pytest.fixture(scope="module")
def alto_schema():
    """ALTO 4.2 as published (tests/schemas/README.md says where from), its xlink import answered by the local
    copy of the schema it names: nothing is fetched (allow="local" refuses any URL that is not a local file)."""
    import xmlschema
    return xmlschema.XMLSchema(str(SCHEMAS / "alto-4-2.xsd"), allow="local",
                               locations=[("http://www.w3.org/1999/xlink", str(SCHEMAS / "xlink.xsd"))])


def two_pages(first: dict, second: dict) -> dict:
    from retto.io import document
    return document.document_record("doc.pdf", [document.page_record(first, 1, dpi=200),
                                                document.page_error(2, "internal_error", "page 2 broke"),
                                                document.page_record(second, 3, dpi=200)], 3)


def test_document_records_in_the_text_formats():
    doc = two_pages(RECORD, {**RECORD, "lines": RECORD["lines"][3:], "blocks": []})
    assert export.render(doc, "text", "doc.pdf").split("\f") == [
        '== doc.pdf ==\nFish & "chips"\na well-known exam-\nple of it\nNext para\n',
        "\nERROR internal_error: page 2 broke\n", "\nNext para"]
    assert export.render(doc, "md").split("\n\n---\n\n") == [
        'Fish & "chips" a well-known example of it\n\nNext para', "*ERROR internal\\_error: page 2 broke*",
        "Next para"]
    rows = [r.split("\t") for r in export.render(doc, "tsv").splitlines()]
    assert [r[:3] for r in rows] == [["doc.pdf", "1", "0"], ["doc.pdf", "1", "1"], ["doc.pdf", "1", "2"],
                                     ["doc.pdf", "1", "3"], ["doc.pdf", "2", "ERROR"], ["doc.pdf", "3", "0"]]
    assert rows[-1][-1] == "Next para"
    assert json.loads(export.render(doc, "jsonl")) == doc and "\n" not in export.render(doc, "jsonl")


def test_hocr_and_alto_of_a_document_have_one_page_per_read_page(alto_schema):
    doc = two_pages(RECORD, {**RECORD, "lines": RECORD["lines"][3:], "blocks": []})
    root = ET.fromstring(export.render(doc, "hocr"))
    pages = root.findall(f".//{XHTML}div[@class='ocr_page']")
    assert [p.get("id") for p in pages] == ["page_1", "page_3"]            # the failed page 2 is left out
    assert pages[1].get("title") == 'image "doc.pdf"; ppageno 2; bbox 0 0 400 200'
    ids = [e.get("id") for e in root.iter() if e.get("id")]
    assert len(ids) == len(set(ids))
    text = export.render(doc, "alto")
    alto_schema.validate(text)
    pages = ET.fromstring(text).findall(f"{ALTO}Layout/{ALTO}Page")
    assert [p.get("PHYSICAL_IMG_NR") for p in pages] == ["1", "3"]
    only_failed = {**doc, "pages": [doc["pages"][1]]}
    for fmt in ("hocr", "alto"):
        with pytest.raises(ValueError):
            export.render(only_failed, fmt)


def test_real_pages_in_hocr_carry_every_word_and_alto_validates(reference_runs, alto_schema):
    """OCR of two pinned pages as one document: hOCR has every word, in order, with its bbox and x_wconf."""
    pages = [reference_runs(n)["ours"] for n in ("typewriter", "baiona")]
    from retto.io import document
    doc = document.document_record("scan.pdf", [document.page_record(p, i, dpi=200)
                                                for i, p in enumerate(pages, 1)], 2)
    root = ET.fromstring(export.render(doc, "hocr"))
    for number, (page, div) in enumerate(zip(pages, root.findall(f".//{XHTML}div[@class='ocr_page']")), 1):
        want = [w for line in page["lines"] for w in export.line_words(line)]
        got = [s for s in div.iter(f"{XHTML}span") if s.get("class") == "ocrx_word"]
        assert len(want) > 10 and [s.text for s in got] == [w["text"] for w in want], number
        for span, word in zip(got, want):
            x0, y0, x1, y1 = export.bounds(word["box"])
            assert span.get("title") == f"bbox {x0} {y0} {x1} {y1}; x_wconf {round(100 * word['score'])}"
    alto_schema.validate(export.render(doc, "alto"))
    alto_schema.validate(export.render({"path": "t.png", **pages[0]}, "alto"))


def test_each_text_formats_media_type_is_what_its_bytes_parse_as():
    # The browser names and types downloads from format_table() (generated into the client at build time):
    # each declared media type must be what the rendered bytes are, checked by parsing them as that type.
    table = export.format_table()
    assert set(table) == set(export.FORMATS + export.TABLE_FORMATS)
    parse = {
        "application/json": json.loads,
        "application/x-ndjson": lambda s: [json.loads(x) for x in s.splitlines()],
        "application/xhtml+xml": ET.fromstring,
        "application/xml": ET.fromstring,
        "text/tab-separated-values;charset=utf-8": lambda s: [r.split("\t") for r in s.splitlines()],
    }
    for fmt in export.TEXT_FORMATS:
        body = export.render(RECORD, fmt, name="scan.png")
        kind = table[fmt]["type"]
        assert kind in parse or kind.startswith("text/"), (fmt, kind)
        parse.get(kind, str)(body)
        assert table[fmt]["ext"] == export.EXTENSIONS[fmt] and table[fmt]["table"] is False
    assert table["pdf"]["type"] == "application/pdf"
    assert all(table[f]["table"] for f in export.TABLE_FORMATS)
    assert table["table_xlsx"]["type"].endswith("spreadsheetml.sheet") and table["table_csv"]["type"].startswith("text/csv")
