"""Tables and page regions (issue 20), scored against ground truth of our own (scripts/data/make_tables.py): six
generated tables (ruled, borderless, spanning header, numbers/dates/money, a bank statement, an invoice) and two
report pages with header, title, paragraph, figure, caption, table and footer.

Scores (each table and page read once, natively, by the default set with layout.regions and layout.tables on):
- cell text accuracy: the share of ground-truth cells whose text the result's cell at the same (row, col) holds
  exactly (whitespace folded);
- grid exact: the share of tables whose cells (row, col, row_span, col_span) are exactly the ground truth's;
- row-order CER of the copied text (result.text) against the table read row by row, next to the CER of the cell
  texts alone (the "line CER"): reading order may cost at most 1 point more;
- region recall: ground-truth regions with a found region of the same type at IoU >= 0.5 (in all and per type);
  region precision: found regions of the scored types matching a ground-truth region of the same type at IoU >= 0.5;
- reading order of a two-column page (region_columns): a caption set beside its chart is read right after it.
Exports: CSV read back by the csv module, XLSX by openpyxl, the Markdown pipe table by a GFM renderer
(markdown-it-py), hOCR parsed by an HTML parser (lxml.html) as an HTML table, ALTO validated against the 4.2 XSD:
each holds the table's cells.
"""
from __future__ import annotations

import csv
import io
import json
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

from collections import Counter

import pytest

from ocr_metrics import cer, normalise_ws
import refkit
from refkit import ROOT, THREADS

sys.path.insert(0, str(ROOT / "scripts" / "data"))
import make_tables  # noqa: E402

TABLES = list(make_tables.TABLES)
PAGES = list(make_tables.REGION_PAGES) + list(make_tables.COLUMN_PAGES)
SCORED_REGIONS = ("header", "title", "text", "figure", "figure_caption", "table_caption", "table", "footer")


@pytest.fixture(scope="session")
def tables_worker(default_worker):
    return default_worker


@pytest.fixture(scope="session")
def table_runs(tables_worker):
    """name -> (result dict, ground truth) for every generated table and region page; read once."""
    make_tables.main([])   # idempotent: skips rendering when the stamp matches
    session = tables_worker.session({"layout": {"regions": True, "tables": True}})
    runs = {}
    for name in TABLES + PAGES:
        result = session.run(make_tables.OUT / f"{name}.png")
        gt = json.loads((make_tables.OUT / f"{name}.gt.json").read_text(encoding="utf-8"))
        runs[name] = (result.to_dict(), gt.get("table", gt), gt, result.text)
    return runs


def gt_rows(gt: dict) -> list:
    """The ground-truth table as rows of cell texts (a spanning cell's text in its first row and column)."""
    rows = [[""] * gt["cols"] for _ in range(gt["rows"])]
    for c in gt["cells"]:
        rows[c["row"]][c["col"]] = c["text"]
    return rows


def only_table(result: dict) -> dict:
    assert len(result["tables"]) == 1, [(t["rows"], t["cols"]) for t in result["tables"]]
    return result["tables"][0]


def grid(cells) -> set:
    return {(c["row"], c["col"], c["row_span"], c["col_span"]) for c in cells}


def test_cell_text_and_grid_match_the_ground_truth(table_runs):
    right = total = exact = 0
    wrong = []
    for name, (result, gt, _page, _text) in table_runs.items():
        table = only_table(result)
        exact += grid(table["cells"]) == grid(gt["cells"])
        got = {(c["row"], c["col"]): normalise_ws(c["text"]) for c in table["cells"]}
        for c in gt["cells"]:
            total += 1
            if got.get((c["row"], c["col"])) == normalise_ws(c["text"]):
                right += 1
            else:
                wrong.append((name, c["text"], got.get((c["row"], c["col"]))))
    refkit.REPORT_TABLES.append(f"tables: cell text {right}/{total} = {right / total:.1%}, "
                                f"grid exact {exact}/{len(table_runs)} tables")
    assert right / total >= 0.98, wrong
    assert exact / len(table_runs) >= 0.9


def test_copied_text_reads_tables_row_by_row(table_runs):
    for name in ("bank_statement", "invoice_items", "spanning_sales"):
        result, gt, _page, text = table_runs[name]
        cells = sorted(gt["cells"], key=lambda c: (c["row"], c["col"]))
        got = {(c["row"], c["col"]): c["text"] for c in only_table(result)["cells"]}
        line_cer = cer(" ".join(got.get((c["row"], c["col"]), "") for c in cells), " ".join(c["text"] for c in cells))
        row_cer = cer(text, gt["copy"])
        refkit.REPORT_TABLES.append(f"tables: {name} row-order CER {row_cer:.2%}, cell (line) CER {line_cer:.2%}")
        assert row_cer <= line_cer + 0.01, (name, row_cer, line_cer, text)
        assert text.splitlines()[1].split("\t") == [c["text"] for c in cells if c["row"] == 1] or name == "spanning_sales"
        # The page's Copy buttons copy the `plain` export: the same row-by-row text, in a document record too.
        from retto import export
        assert export.render({**result, "path": f"{name}.png"}, "plain") == text
        doc = {"path": f"{name}.pdf", "kind": "pdf", "page_count": 2, "pages": [{**result, "page": 1},
               {"page": 2, "error": {"code": "pdf_page_too_complex", "message": "x"}}]}
        assert export.render(doc, "plain") == text


def rect_of(box) -> list:
    return [min(p[0] for p in box), min(p[1] for p in box), max(p[0] for p in box), max(p[1] for p in box)]


def test_region_pages_find_their_regions_and_read_header_first_footer_last(table_runs):
    from retto.ops.regions import iou
    import numpy as np
    found, total, right, predicted = Counter(), Counter(), Counter(), Counter()
    missed, extra = [], []
    for name in PAGES:
        result, gt, page, text = table_runs[name]
        for want in page["regions"]:
            if want["type"] not in SCORED_REGIONS:
                continue
            total[want["type"]] += 1
            rects = np.asarray([rect_of(r["box"]) for r in result["regions"] if r["type"] == want["type"]]).reshape(-1, 4)
            if len(rects) and iou(np.asarray(want["box"], dtype=float), rects).max() >= 0.5:
                found[want["type"]] += 1
            else:
                missed.append((name, want["type"]))
        for got in result["regions"]:   # precision: each found region of a scored type matches the ground truth
            if got["type"] not in SCORED_REGIONS:
                continue
            predicted[got["type"]] += 1
            wants = np.asarray([w["box"] for w in page["regions"] if w["type"] == got["type"]], dtype=float).reshape(-1, 4)
            if len(wants) and iou(np.asarray(rect_of(got["box"]), dtype=float), wants).max() >= 0.5:
                right[got["type"]] += 1
            else:
                extra.append((name, got["type"], [round(v) for v in rect_of(got["box"])], round(got["score"], 2)))
        lines = text.splitlines()
        header = next(r for r in page["regions"] if r["type"] == "header")
        footer = next(r for r in page["regions"] if r["type"] == "footer")
        assert [b["type"] for b in result["blocks"]][0] == "header" and result["blocks"][-1]["type"] == "footer"
        assert normalise_ws(lines[0]) and result["lines"][result["blocks"][0]["lines"][0]]["box"][0][1] < header["box"][3]
        assert result["lines"][result["blocks"][-1]["lines"][-1]]["box"][2][1] > footer["box"][1]
        assert gt["copy"] in text   # the table inside the page reads row by row too
    recall = sum(found.values()) / sum(total.values())
    precision = sum(right.values()) / sum(predicted.values())
    per_type = ", ".join(f"{t} {found[t]}/{total[t]}" for t in SCORED_REGIONS)
    refkit.REPORT_TABLES.append(f"regions: recall {sum(found.values())}/{sum(total.values())} = {recall:.1%} "
                                f"({per_type}; missed: {missed}), precision {sum(right.values())}/"
                                f"{sum(predicted.values())} = {precision:.1%} (extra: {extra})")
    print(refkit.REPORT_TABLES[-1])
    assert recall >= 0.9, missed
    assert precision >= 0.9, extra
    for kind in SCORED_REGIONS:   # every type the pages hold 3+ times: at most one of them missed
        if total[kind] >= 3:
            assert found[kind] >= total[kind] - 1, (kind, missed)


def test_hocr_of_region_pages_says_header_footer_caption_and_table(table_runs):
    """Each region page's hOCR (parsed by an HTML parser): for every header, footer and caption the generator
    drew, one ocr_header / ocr_footer / ocr_caption inside the drawn box holding exactly the drawn text (and no
    other element of those classes); one ocr_table, an HTML table."""
    from lxml import html
    from retto import export
    classes = {"header": "ocr_header", "footer": "ocr_footer", "figure_caption": "ocr_caption",
               "table_caption": "ocr_caption"}
    texts = {"header": "header", "footer": "footer", "figure_caption": "caption", "table_caption": "table_caption"}
    for name in PAGES:
        result, gt, page, _text = table_runs[name]
        spec = {**make_tables.REGION_PAGES, **make_tables.COLUMN_PAGES}[name]
        root = html.fromstring(export.render({**result, "path": f"{name}.png"}, "hocr").encode("utf-8"))
        drawn = [r for r in page["regions"] if r["type"] in classes]
        for cls in set(classes.values()):
            assert len(root.find_class(cls)) == sum(classes[r["type"]] == cls for r in drawn), (name, cls)
        for want in drawn:
            gx0, gy0, gx1, gy1 = want["box"]
            inside = []
            for el in root.find_class(classes[want["type"]]):
                x0, y0, x1, y1 = map(int, el.get("title").split("bbox ")[1].split()[:4])
                if gx0 - 8 <= x0 and gy0 - 8 <= y0 and x1 <= gx1 + 8 and y1 <= gy1 + 8:
                    inside.append(normalise_ws(" ".join(w.text_content() for w in el.find_class("ocrx_word"))))
            assert inside == [normalise_ws(spec[texts[want["type"]]])], (name, want["type"], inside)
        assert [t.tag for t in root.find_class("ocr_table")] == ["table"], name


def test_a_chart_and_its_caption_are_read_together_in_two_columns(table_runs):
    """region_columns: a labelled chart in the left column with its caption under it and a paragraph beside it
    (right column), then a paragraph in each column and a captioned table across both. The lines read in the
    ground truth's region order (header, title, chart, caption, the paragraph beside them, the lower left and
    right paragraphs, the table's caption, table, footer). The premise: a plain XY-cut of the same lines (layout.analyse, line by line, as
    before figures and captions were kept together) reads the paragraph beside the chart between its labels
    and its caption."""
    from retto.ops import layout
    result, _gt, page, _text = table_runs["region_columns"]
    regions = page["regions"]

    def region_of(box):
        x0, y0, x1, y1 = rect_of(box)
        cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
        return next((k for k, r in enumerate(regions)
                     if r["box"][0] - 4 <= cx <= r["box"][2] + 4 and r["box"][1] - 4 <= cy <= r["box"][3] + 4), None)

    def runs(seq):
        return [k for n, k in enumerate(seq) if k is not None and (n == 0 or seq[n - 1] != k)]

    got = runs([region_of(line["box"]) for line in result["lines"]])
    assert got == page["order"], [(k, regions[k]["type"]) for k in got]
    caption = next(b for b in result["blocks"] if b["type"] == "figure_caption")
    before = result["blocks"][result["blocks"].index(caption) - 1]
    assert before["type"] == "figure", [b["type"] for b in result["blocks"]]
    # The premise: without the caption rule the columns come apart (header and footer left out, as the stage does).
    body = [line for line in result["lines"] if regions[region_of(line["box"])]["type"] not in ("header", "footer")]
    order, _, _ = layout.analyse([line["box"] for line in body])
    plain = runs([region_of(body[i]["box"]) for i in order])
    kinds = [regions[k]["type"] for k in plain]
    assert kinds.index("figure_caption") > kinds.index("text") > kinds.index("figure"), kinds
    print("region_columns: region order", [regions[k]["type"] for k in got], "; plain XY-cut", kinds)


def test_csv_xlsx_markdown_and_hocr_hold_the_cells(table_runs):
    import openpyxl
    from markdown_it import MarkdownIt
    from retto import export
    result, gt, _page, _text = table_runs["spanning_sales"]
    record = {**result, "path": "spanning_sales.png"}
    want = gt_rows(gt)

    assert list(csv.reader(io.StringIO(export.table_csv(only_table(result))))) == want

    book = openpyxl.load_workbook(io.BytesIO(export.tables_xlsx(record)))
    sheet = book.worksheets[0]
    assert [[v or "" for v in row] for row in sheet.iter_rows(values_only=True)] == want
    merged = {str(r) for r in sheet.merged_cells.ranges}
    assert {"A1:A2", "B1:C1", "D1:E1"} <= merged   # Region (2 rows), 2025 and 2026 (2 columns each)

    html = MarkdownIt("commonmark").enable("table").render(export.render(record, "md"))
    root = ET.fromstring(f"<r>{html}</r>")
    cells = [[(td.text or "") for td in tr] for tr in root.iter("tr")]
    assert cells == want



def html_grid(table) -> dict:
    """An HTML table's cells placed as HTML places them (a cell takes the first column of its row not covered
    by a rowspan from above): {(row, col, row_span, col_span): text of its ocrx_word spans}."""
    out, taken = {}, set()
    for r, tr in enumerate(table.iter("tr")):
        c = 0
        for td in tr.iter("td"):
            while (r, c) in taken:
                c += 1
            rs, cs = int(td.get("rowspan", 1)), int(td.get("colspan", 1))
            taken |= {(r + i, c + j) for i in range(rs) for j in range(cs)}
            out[(r, c, rs, cs)] = normalise_ws(" ".join(w.text_content() for w in td.find_class("ocrx_word")))
            c += cs
    return out


def test_hocr_writes_tables_as_html_tables_and_alto_as_composed_blocks(table_runs, tmp_path):
    """hOCR, parsed by an HTML parser (lxml.html): the table is an HTML table whose cells, placed by HTML's rules,
    are the ground truth's cells (rows, columns, spans, words), each titled with a bbox inside the table's;
    hocr-tools' hocr-check passes and Scribe.js imports every word. ALTO (no table element in 4.2): a
    ComposedBlock TYPE="table" of one TextBlock per cell, row by row, holding the cells' words; valid ALTO."""
    import subprocess
    from lxml import html
    from retto import export
    for name in ("spanning_sales", "region_columns"):
        result, gt, _page, _text = table_runs[name]
        record = {**result, "path": f"{name}.png"}
        text = export.render(record, "hocr")
        root = html.fromstring(text.encode("utf-8"))
        [table] = root.find_class("ocr_table")
        assert table.tag == "table"
        want = {(c["row"], c["col"], c["row_span"], c["col_span"]): normalise_ws(c["text"]) for c in gt["cells"]}
        assert html_grid(table) == want, name
        tx0, ty0, tx1, ty1 = map(int, table.get("title").split()[1:5])
        for td in table.iter("td"):
            x0, y0, x1, y1 = map(int, td.get("title").split()[1:5])
            assert tx0 - 2 <= x0 < x1 <= tx1 + 2 and ty0 - 2 <= y0 < y1 <= ty1 + 2, td.get("title")
        words = [w["text"] for line in result["lines"] for w in export.line_words(line)]
        assert len(root.find_class("ocrx_word")) == len(words)   # every word written once

        path = tmp_path / f"{name}.hocr"
        path.write_text(text, encoding="utf-8")
        check = Path(sys.executable).with_name("hocr-check")
        proc = subprocess.run([str(check), str(path)], capture_output=True, text=True, timeout=60)
        results = proc.stderr.splitlines()
        assert proc.returncode == 0 and len(results) > 5 and all(r.startswith("ok ") for r in results), proc.stderr
        proc = subprocess.run(["node", str(ROOT / "tests" / "py" / "scribe_import.mjs"), str(path)], cwd=ROOT,
                              capture_output=True, text=True, timeout=120)
        assert proc.returncode == 0, proc.stderr
        imported = [w["text"] for line in json.loads(proc.stdout)[0]["lines"] for w in line["words"]]
        assert sorted(imported) == sorted(words), name

        alto = export.render(record, "alto")
        alto_schema().validate(alto)
        ns = {"a": "http://www.loc.gov/standards/alto/ns-v4#"}
        [composed] = ET.fromstring(alto).iterfind(".//a:ComposedBlock", ns)
        assert composed.get("TYPE") == "table"
        cells = [normalise_ws(" ".join(s.get("CONTENT") for s in b.iterfind(".//a:String", ns)))
                 for b in composed.iterfind("a:TextBlock", ns)]
        assert cells == [want[k] for k in sorted(want)], name


def test_one_table_exports_as_the_page_copies_and_downloads_it(table_runs):
    """render_table, what the page's per-table buttons ask the worker for: the same cells in every format."""
    import openpyxl
    from retto import export
    result, gt, _page, _text = table_runs["spanning_sales"]
    record = {**result, "path": "spanning_sales.png"}
    want = gt_rows(gt)
    assert list(csv.reader(io.StringIO(export.render_table(record, "table_csv", 0)))) == want
    assert [row.split("\t") for row in export.render_table(record, "table_tsv", 0).split("\n")] == want
    assert export.render_table(record, "table_tsv", 0) == gt["copy"]
    md = export.render_table(record, "table_md", 0).splitlines()
    assert md[0] == "| " + " | ".join(c or " " for c in want[0]) + " |" and len(md) == gt["rows"] + 1
    sheet = openpyxl.load_workbook(io.BytesIO(export.render_table(record, "table_xlsx", 0))).worksheets[0]
    assert [[v or "" for v in row] for row in sheet.iter_rows(values_only=True)] == want
    with pytest.raises(ValueError, match="has 1 table: no table 1"):
        export.render_table(record, "table_csv", 1)


def test_cli_writes_a_csv_per_table_and_a_workbook_per_input(table_runs, tmp_path, capsys):
    """`retto --format csv|xlsx --output DIR`: files read back by csv and openpyxl hold the ground truth's cells;
    an input without tables and tables left off are said in words. One real CLI run (csv); the workbook is
    written by the CLI's Sink from the session's result (the models load once per run: seconds)."""
    import openpyxl
    from PIL import Image
    from retto.cli import main
    from retto.cli.progress import InterruptGuard
    from retto.cli.sink import Sink
    result, gt, _page, _text = table_runs["spanning_sales"]
    want = gt_rows(gt)
    blank = tmp_path / "blank.png"
    Image.new("RGB", (64, 64), "white").save(blank)
    config = tmp_path / "tables.json"
    config.write_text('{"layout": {"regions": true, "tables": true}}')
    out = tmp_path / "csv"
    assert main(["--images", str(make_tables.OUT / "spanning_sales.png"), str(blank), "--format", "csv", "--output",
                 str(out), "--config", str(config), "--threads", str(THREADS), "--no-progress"]) == 0
    assert f"{blank}: no table found, no csv written" in capsys.readouterr().err
    assert sorted(p.name for p in out.iterdir()) == ["spanning_sales.png.table-1.csv"]
    with open(out / "spanning_sales.png.table-1.csv", newline="", encoding="utf-8") as f:
        assert list(csv.reader(f)) == want

    guard = InterruptGuard()
    try:
        sink = Sink("xlsx", tmp_path / "xlsx", guard)
        assert sink.put("t.png", Path("t.png"), {**result, "path": "t.png"}) is None
    finally:
        guard.restore()
    sheet = openpyxl.load_workbook(tmp_path / "xlsx" / "t.png.xlsx").worksheets[0]
    assert [[v or "" for v in row] for row in sheet.iter_rows(values_only=True)] == want
    assert {"A1:A2", "B1:C1", "D1:E1"} <= {str(r) for r in sheet.merged_cells.ranges}

    off = tmp_path / "off.json"
    off.write_text('{"layout": {"tables": "off"}}')
    assert main(["--images", str(blank), "--format", "xlsx", "--output", str(tmp_path / "off"),
                 "--config", str(off)]) == 2
    assert "tables are off" in capsys.readouterr().err
    # The default set's tables are "auto": a page without one is read, and says that it wrote no workbook.
    assert main(["--images", str(blank), "--format", "xlsx", "--output", str(tmp_path / "auto"), "--no-progress",
                 "--threads", str(THREADS)]) == 0
    assert f"{blank}: no table found, no xlsx written" in capsys.readouterr().err
    assert main(["--images", str(blank), "--format", "xlsx"]) == 2
    assert "use --output DIR" in capsys.readouterr().err


def test_markdown_and_alto_of_a_region_page_say_title_table_and_figure(table_runs):
    import numpy as np
    from retto import export
    from retto.ops.regions import iou
    result, gt, page, _text = table_runs["region_report"]
    md = export.render({**result, "path": "p.png"}, "md")
    title = next(r for r in page["regions"] if r["type"] == "title")
    assert md.splitlines()[2] == "# Quarterly Stock Report", md   # header paragraph, blank line, the title
    assert "| Product | Colour | Stock | Price |" in md and title
    alto = export.render({**result, "path": "p.png"}, "alto")
    alto_schema().validate(alto)   # ALTO 4.2 as published: Tags, TAGREFS and Illustration in their places
    ns = {"a": "http://www.loc.gov/standards/alto/ns-v4#"}
    root = ET.fromstring(alto)
    tags = {t.get("ID"): t.get("LABEL") for t in root.iterfind(".//a:LayoutTag", ns)}
    kinds = [tags[b.get("TAGREFS")] for b in root.find(".//a:PrintSpace", ns)
             if b.tag.split("}")[1] in ("TextBlock", "ComposedBlock")]
    assert kinds == [b["type"] for b in result["blocks"]] and kinds[0] == "header" and "title" in kinds
    figure = next(r for r in page["regions"] if r["type"] == "figure")
    ill = root.find(".//a:Illustration", ns)
    x, y, w, h = (float(ill.get(k)) for k in ("HPOS", "VPOS", "WIDTH", "HEIGHT"))
    assert iou(np.asarray([x, y, x + w, y + h]), np.asarray([figure["box"]], dtype=float))[0] >= 0.7


def alto_schema():
    import xmlschema
    schemas = ROOT / "tests" / "schemas"
    return xmlschema.XMLSchema(str(schemas / "alto-4-2.xsd"), allow="local",
                               locations=[("http://www.w3.org/1999/xlink", str(schemas / "xlink.xsd"))])


def test_labelled_pages_ruled_table_reads_row_by_row_and_no_false_tables(tables_worker):
    """The labelled pages (scripts/data/make_testset.py): the ruled table, read column by column without tables
    (reading-order CER ~64 %), reads row by row with them; a UI screenshot (one figure over the whole picture),
    a deposition transcript (a weak "table" whose grid tears its lines) and the borderless table scan (a grid
    that crowds its lines) get no table."""
    from ocr_metrics import score_page
    from retto.export import page_lines
    pages = ROOT / "tests" / "testset" / "pages"
    on = tables_worker.session({"layout": {"regions": True, "tables": True}})
    off = tables_worker.session({"layout": {"tables": "off"}})

    def order_cer(session, name):
        result = session.run(pages / f"{name}.png").to_dict()
        gt = json.loads((pages / f"{name}.gt.json").read_text(encoding="utf-8"))
        text = " ".join(page_lines(result)).replace("\t", " ")
        return score_page([{"text": text, "box": [[0, 0], [1, 0], [1, 1], [0, 1]]}], gt)["order_cer"], result

    with_tables, result = order_cer(on, "hard_table_ruled")
    without, _ = order_cer(off, "hard_table_ruled")
    refkit.REPORT_TABLES.append(f"tables: hard_table_ruled reading-order CER {without:.1%} off -> {with_tables:.1%} on")
    assert len(result["tables"]) == 1 and with_tables < 0.03 and without > 0.3
    for name in ("dark_ui", "hard_deposition"):
        assert order_cer(on, name)[1]["tables"] == [], name
    # The borderless table scan: the table model's grid has 5 columns for its 7 and rows half a row off, crowding
    # most lines into shared cells; it is read as text (as with tables off: 3.2 %), not as that grid (30.9 %).
    borderless, result = order_cer(on, "hard_table_borderless")
    refkit.REPORT_TABLES.append(f"tables: hard_table_borderless reading-order CER {borderless:.1%} on")
    assert result["tables"] == [] and borderless < 0.05
